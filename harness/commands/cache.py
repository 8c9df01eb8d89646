"""`python -m harness cache list|verify|gc`: the cache's entries, what names each, whether
each passes its check, and the removal of what nothing names any more.

An entry is named when this checkout would look for it:
- a tree of a case's layout (harness/cases/), for a backend set, sanitizer and release some tree
  in the cache was built with, under the key this checkout computes (so a changed recipe,
  configure line or patch names a new entry and the old one is no longer named);
- the user's trees: a tree made from a named tree (a --patch, a derived test tree, a
  twin) and a clone's refs (--git-dir), built by this recipe and compiler;
- a tree's cffi module of this checkout's declarations, the injectors of these sources.
Downloads (sources, backends, packages, models, clips) are listed, never collected.
A `.tmp-*` whose process is gone is always collected.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from harness.errors import ExitStatus, HarnessError
from harness.paths import Entry, cache_root, temporaries

def entries(root: Path = None) -> list:
    from harness import caseload
    from harness.compile import ffi_build, injector_build
    from harness.obtain import downloads, tree_entries
    root = root or cache_root()
    cases = [caseload.load(n) for n in
             sorted(caseload.names(), key=lambda n: n != caseload.default())]
    out = tree_entries.entries(root, cases)
    named = {e.path.name for e in out if e.named}
    cdef = ffi_build.cdef_hash()
    for d in sorted((root / "ext").glob("*")) if (root / "ext").is_dir() else ():
        if d.name.startswith(".tmp-"):
            continue
        tree, _, rest = d.name.rpartition("-")  # <tree entry>-<variant>-<cdef>
        tree, _, variant = tree.rpartition("-")
        if rest != cdef:
            out.append(Entry(d, "module", why="older declarations (cdef hash)"))
        elif tree not in named:
            out.append(Entry(d, "module", why=f"its tree {tree} is not named"))
        else:
            out.append(Entry(d, "module", f"{variant} module of trees/{tree}"))
    current = f"injectors-{injector_build._digest(injector_build.SRC_DIR, injector_build.CC)}"
    for d in sorted(root.glob("injectors-*")):
        out.append(Entry(d, "injectors", "these injector sources" if d.name == current else "",
                         "" if d.name == current else "older injector sources"))
    return out + downloads.entries(root) + temporaries(root)


def size(paths: list) -> dict:
    """Bytes under each path (du, in one call), links not followed."""
    if not paths:
        return {}
    r = subprocess.run(["du", "-s", "-B1", "--", *map(str, paths)], capture_output=True,
                       text=True)
    out = {}
    for line in r.stdout.splitlines():
        n, _, p = line.partition("\t")
        out[p] = int(n)
    return out


def human(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def cmd_list(args) -> int:
    es = entries()
    sizes = size([e.path for e in es])
    for e in es:
        rel = e.path.relative_to(cache_root()) if e.path.is_relative_to(cache_root()) else e.path
        print(f"{human(sizes.get(str(e.path), 0)):>9}  {e.kind:9}  {rel}  "
              f"{e.named or 'NOT NAMED: ' + e.why}")
    total = sum(sizes.get(str(e.path), 0) for e in es)
    stale = sum(sizes.get(str(e.path), 0) for e in es if not e.named)
    print(f"{human(total)} in {len(es)} entries; {human(stale)} named by nothing "
          "(python -m harness cache gc)")
    return ExitStatus.OK


def cmd_gc(args) -> int:
    gone = [e for e in entries() if not e.named]
    sizes = size([e.path for e in gone])
    for e in gone:
        print(f"{'would remove' if args.dry_run else 'remove'} "
              f"{e.path.relative_to(cache_root())} ({human(sizes.get(str(e.path), 0))}): {e.why}")
        if not args.dry_run:
            if e.path.is_dir() and not e.path.is_symlink():
                shutil.rmtree(e.path, ignore_errors=True)
            else:
                e.path.unlink(missing_ok=True)
    print(f"{'would free' if args.dry_run else 'freed'} "
          f"{human(sum(sizes.values()))} in {len(gone)} entries", file=sys.stderr)
    return ExitStatus.OK


def cmd_verify(args) -> int:
    """Every entry's check: a tree's stamp and libraries (sizes and sha256 where the stamp
    has them), a module's sha256 and a real import, the injectors' manifest."""
    from harness.compile import ffi_build, injector_build
    from harness.obtain import tree_entries
    from harness.obtain.tree import Tree
    bad = 0
    for e in entries():
        try:
            if e.kind == "tree":
                tree_entries.verify(e.path)
            elif e.kind == "module":
                so = ffi_build.check_module(e.path)
                info = json.loads((e.path / "stamp.json").read_text())
                tree = Tree(e.path.name, e.path, info.get("tree", {}))
                ffi_build.try_import(so, info["stamp"], tree)
            elif e.kind == "injectors":
                injector_build.check(e.path, record=False)
            else:
                continue
            print(f"ok    {e.path.relative_to(cache_root())}")
        except HarnessError as err:
            bad += 1
            print(f"BAD   {e.path.relative_to(cache_root())}: {err}")
    if bad:
        raise HarnessError(f"{bad} cache entr{'y fails its' if bad == 1 else 'ies fail their'} "
                           "check (listed above)")
    return ExitStatus.OK


def add_parser(sub) -> None:
    p = sub.add_parser("cache", help="the build cache: list its entries, verify them, "
                                     "collect what nothing names (gc)")
    verbs = p.add_subparsers(dest="verb", required=True)
    v = verbs.add_parser("list", help="each entry, its size and what names it")
    v.set_defaults(func=cmd_list)
    v = verbs.add_parser("verify", help="stamps, libraries' hashes, modules' import, "
                                        "injectors' manifests")
    v.set_defaults(func=cmd_verify)
    v = verbs.add_parser("gc", help="remove the trees, modules and injectors this checkout "
                                    "no longer names, and temporaries of processes gone")
    v.add_argument("--dry-run", action="store_true", help="list them, remove nothing")
    v.set_defaults(func=cmd_gc)
