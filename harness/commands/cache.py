"""`python -m harness cache list|verify|gc`: the cache's entries, what names each, whether
each passes its check, and the removal of what nothing names any more.

An entry is named when this checkout would look for it; the stage that makes each kind of
entry says what names one of its own, why nothing does, and how it is checked, and this
command only asks:
- trees of the cases' layouts and the user's trees: harness/obtain/tree_entries.py;
- a tree's cffi modules, named with their tree: harness/compile/module_entries.py;
- the injectors of these sources: harness/compile/injector_entries.py;
- a tree's runs a diff kept for the next, named with their tree:
  harness/experiments/kept.py;
- downloads (sources, backends, packages, models, clips), listed, never collected:
  harness/obtain/downloads.py;
- a `.tmp-*` whose process is gone, always collected: harness/paths.py's temporaries().
"""

import shutil
import subprocess
import sys
from pathlib import Path

from harness.errors import ExitStatus, HarnessError
from harness.paths import cache_root, temporaries


def _kinds():
    """The stages' modules that each answer for one kind of entry, in the listing's order:
    trees (trees/), modules (ext/), injectors, kept runs (runs/), downloads; temporaries
    are paths.py's."""
    from harness.compile import injector_entries, module_entries
    from harness.experiments import kept
    from harness.obtain import downloads, tree_entries
    return tree_entries, module_entries, injector_entries, kept, downloads


def entries(root: Path = None) -> list:
    """Every entry of the cache, each kind asked what names its own: a module is named
    when its tree is."""
    from harness import caseload
    trees, modules, injectors, runs, downloads = _kinds()
    root = root or cache_root()
    cases = [caseload.load(n) for n in
             sorted(caseload.names(), key=lambda n: n != caseload.default())]
    found = trees.entries(root, cases)
    named = {e.path.name for e in found if e.named}
    return [*found, *modules.entries(root, named), *injectors.entries(root),
            *runs.entries(root, named), *downloads.entries(root), *temporaries(root)]


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
    """Every entry's check, its kind's verify(): a tree's stamp and libraries (sizes and
    sha256 where the stamp has them), a module's sha256 and a real import, the injectors'
    manifest; downloads and temporaries have none."""
    checks = {k.KIND: k.verify for k in _kinds() if hasattr(k, "verify")}
    bad = 0
    for e in entries():
        if e.kind not in checks:
            continue
        try:
            checks[e.kind](e.path)
            print(f"ok    {e.path.relative_to(cache_root())}")
        except HarnessError as err:
            bad += 1
            print(f"BAD   {e.path.relative_to(cache_root())}: {err}")
    if bad:
        raise HarnessError(f"{bad} cache entr{'y fails its' if bad == 1 else 'ies fail their'} "
                           "check (listed above)")
    return ExitStatus.OK


def check(args) -> None:
    """Nothing to check before the work: the verbs take no value (gc's --dry-run is a flag)."""


def add_parser(sub) -> None:
    p = sub.add_parser("cache", help="the build cache: list its entries, verify them, "
                                     "collect what nothing names (gc)")
    p.set_defaults(check=check)
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
