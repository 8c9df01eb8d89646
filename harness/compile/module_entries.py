"""The cache's ext/ entries as `harness cache` sees them: a tree's cffi modules
(harness/compile/ffi_build.py), `<tree entry>-<variant>-<cdef hash>`, each named when its
declarations are this checkout's and its tree is named; and each one's check."""

import json
from pathlib import Path

from harness.compile import ffi_build
from harness.compile.declarations import cdef_hash
from harness.obtain.tree import Tree
from harness.paths import Entry

KIND = "module"


def entries(root: Path, trees: set) -> list:
    """Every module entry of the cache at `root`; `trees`, the names of the tree entries
    something names."""
    out, cdef = [], cdef_hash()
    for d in sorted((root / "ext").glob("*")) if (root / "ext").is_dir() else ():
        if d.name.startswith(".tmp-"):
            continue
        tree, _, rest = d.name.rpartition("-")  # <tree entry>-<variant>-<cdef>
        tree, _, variant = tree.rpartition("-")
        if rest != cdef:
            out.append(Entry(d, KIND, why="older declarations (cdef hash)"))
        elif tree not in trees:
            out.append(Entry(d, KIND, why=f"its tree {tree} is not named"))
        else:
            out.append(Entry(d, KIND, f"{variant} module of trees/{tree}"))
    return out


def verify(path: Path) -> None:
    """A module entry's sha256 and a real import of it: a cache error if either fails."""
    so = ffi_build.check_module(path)
    info = json.loads((path / "stamp.json").read_text())
    tree = Tree(path.name, path, info.get("tree", {}))
    ffi_build.try_import(so, info["stamp"], tree)
