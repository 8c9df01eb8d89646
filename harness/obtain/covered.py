"""A tree's coverage variant: every object of FFmpeg's DNN code (libavfilter/dnn/ and the
filters libavfilter/vf_dnn_*.c) built with gcov's instrumentation, for `harness coverage`
(harness/experiments/coverage.py), where a change's tree (harness/obtain/patched.py) has only
the objects its patches change instrumented.

A cache entry `<cache>/trees/<tree>-coverage-<key>/`, keyed by the tree's own key and the
objects: a copy of the tree's entry, those objects removed and compiled again with
build.coverage_make_args() (the other objects are the tree's own), the libraries and
programs linked again. The stamp is the tree's, with `coverage` naming the instrumented
objects and the directory they were compiled in (what GCOV_PREFIX_STRIP takes off), and
`variant` what it is a variant of. Compiling the four backends' objects takes about two
minutes on 2 cores (LibTorch's one object about 76 s and 1.7 GB), once per tree.
"""

import json
import time
from pathlib import Path

from harness.errors import BuildError
from harness.obtain.build import copy_tree, git, make
from harness.obtain.tree import Tree, library_files, read_stamp
from harness.paths import atomic_dir, cache_root, digest

RECIPE = 1  # bump when the way a coverage variant is built changes
SUFFIX = "coverage"


def objects(src: Path) -> list:
    """The objects of FFmpeg's DNN code the tree compiled: libavfilter/dnn/*.o (C and
    C++) and libavfilter/vf_dnn_*.o, by repository path."""
    found = sorted(src.glob("libavfilter/dnn/*.o")) + sorted(src.glob("libavfilter/vf_dnn_*.o"))
    return [str(o.relative_to(src)) for o in found]


def sources(tree: Tree) -> list:
    """The source files of those objects (.c or .cpp), by repository path."""
    out = []
    for o in objects(tree.src):
        stem = tree.src / Path(o).with_suffix("")
        out += [str(p.relative_to(tree.src)) for p in (stem.with_suffix(".c"),
                                                       stem.with_suffix(".cpp")) if p.is_file()]
    return out


def instrumented(tree: Tree) -> Tree:
    """The coverage variant of `tree`, from the cache or built now."""
    if tree.stamp.get("variant", {}).get("coverage"):
        return tree  # a coverage variant already
    objs = objects(tree.src)
    if not objs:
        raise BuildError(f"{tree.name}: no object of libavfilter/dnn/ in it: no DNN code to "
                         "count")
    key = digest(RECIPE, tree.key, SUFFIX, objs)
    path = cache_root() / "trees" / f"{tree.name}-{SUFFIX}-{key[:16]}"
    if not (path / "stamp.json").is_file():
        _build(tree, objs, key, path)
    stamp = read_stamp(path)
    if stamp.get("key") != key:
        raise BuildError(f"{path}: not the coverage variant its key names (remove the entry "
                         "to build it again)")
    return Tree(f"{tree.name}-{SUFFIX}", path, stamp)


def _build(tree: Tree, objs: list, key: str, final: Path) -> None:
    t0, name = time.monotonic(), f"{tree.name}-{SUFFIX}"
    print(f"build: {name}: compiling {len(objs)} objects of the DNN code with gcov's "
          "instrumentation (once per tree)", flush=True)
    with atomic_dir(final) as tmp:
        src = tmp / "src"
        copy_tree(tree.src, src)
        git(src, "update-index", "-q", "--refresh", check=False)  # the copy has new inodes
        for o in objs:
            for junk in (src / o, (src / o).with_suffix(".gcno"), (src / o).with_suffix(".gcda")):
                junk.unlink(missing_ok=True)
        count, own = make(name, src, tmp / "build.log", coverage=True)
        stamp = {k: v for k, v in tree.stamp.items() if k not in ("twin", "coverage")}
        stamp.update({
            "tree": name, "key": key, "parent": tree.key,
            "variant": {"of": tree.name, "coverage": objs, "recipe": RECIPE},
            "coverage": {"build_src": str(src), "objects": sorted(own)},
            "objects_compiled": count,
            "libraries": library_files(src),
            "seconds": {"compile": round(time.monotonic() - t0, 1),
                        "total": round(time.monotonic() - t0, 1)}})
        missing = sorted(set(objs) - set(own))
        if missing:
            raise BuildError(f"[{name}] make did not compile {', '.join(missing)} again")
        (tmp / "stamp.json").write_text(json.dumps(stamp, indent=1) + "\n")
