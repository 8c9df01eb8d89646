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

import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

from harness.errors import ExitStatus, HarnessError
from harness.paths import Entry, cache_root, temporaries

DOWNLOADS = ("src", "backends", "apt", "packages", "models", "clips")


def _stamps(root: Path) -> dict:
    out = {}
    for d in sorted((root / "trees").glob("*")):
        if d.name.startswith(".tmp-") or not d.is_dir():
            continue
        try:
            out[d] = json.loads((d / "stamp.json").read_text())
        except (OSError, ValueError):
            out[d] = None
    return out


def _installed() -> list:
    from harness.obtain.builtsets import _installed_versions
    return _installed_versions()


def _plans(stamps: dict):
    """(plan, what) for every case layout x (backend set, sanitizer, release) some tree
    of the cache was built with, whose backends are installed and whose release's
    configure script is cached (nothing is fetched to find out)."""
    from harness import caseload
    from harness.obtain import debian, releases, source
    from harness.obtain.patched import PatchedPlan
    from harness.obtain.trees import Plan
    have, combos = _installed(), set()
    for s in stamps.values():
        if not isinstance(s, dict) or s.get("source", {}).get("kind") != "release":
            continue
        if all(b.get("versions") in have for b in s.get("backends", [])):
            src = s["source"]  # a Debian suite's tree is named by its suite
            combos.add((",".join(sorted(b["name"] for b in s["backends"])), s.get("sanitizer"),
                        f"{debian.PREFIX}{src['debian']['suite']}"
                        if src.get("debian") else src.get("version")))
    for name in sorted(caseload.names(), key=lambda n: n != caseload.default()):
        case = caseload.load(name)
        layout = case.layout
        for backends, sanitizer, version in sorted(combos, key=str):
            rel = releases.find(version)
            if layout is None or not backends or rel is None or not (
                    source.cached_path(rel).with_suffix(".configure").is_file()):
                continue
            if sanitizer and not layout.sanitizer_trees:
                continue
            what = f"case {name} ({backends}{', ' + sanitizer if sanitizer else ''}, " \
                   f"{rel.describe()})"
            try:
                yield Plan(backends, layout, sanitizer=sanitizer, release=version), what
                series = case.series
                if series is not None and not sanitizer and case.on:
                    patches = [str(series / n) for n in (series / "series").read_text().split()]
                    yield PatchedPlan(backends, layout, on=case.on, patches=patches,
                                      release=version), what
            except HarnessError:
                continue


def _named_trees(stamps: dict) -> dict:
    """Tree entry -> what names it."""
    from harness.obtain import derived
    from harness.obtain.build import compiler
    from harness.obtain.recipe import RECIPE
    named = {}
    with contextlib.redirect_stderr(io.StringIO()):  # a plan's notes are not the report's
        for plan, what in _plans(stamps):
            try:
                for n in plan.names:
                    named.setdefault(plan.path(n).name, f"{what}: {plan.label(n)}")
            except HarnessError:
                continue
    keys = {s["key"]: d.name for d, s in stamps.items() if isinstance(s, dict) and
            d.name in named and "key" in s}
    cc, have, grew = compiler(), _installed(), True
    while grew:  # the user's trees: made from a named tree, or a clone's, by this recipe
        grew = False
        for d, s in stamps.items():
            if d.name in named or not isinstance(s, dict):
                continue
            same = s.get("recipe") == RECIPE and s.get("compiler") == cc and all(
                b.get("versions") in have for b in s.get("backends", []))
            if "derived" in s:
                same = same and s["derived"].get("recipe") == derived.RECIPE
            parent = s.get("parent")
            kind = s.get("source", {}).get("kind")
            if same and (parent in keys or (parent is None and kind == "git")):
                named[d.name] = (f"yours: from {keys[parent]}" if parent in keys
                                 else f"yours: {s['source'].get('repo', 'a clone')}")
                keys[s["key"]] = d.name
                grew = True
    return named


def _not_named(stamp) -> str:
    from harness.obtain.build import compiler
    from harness.obtain.recipe import RECIPE
    if not isinstance(stamp, dict):
        return "its stamp.json does not parse"
    if stamp.get("recipe") != RECIPE:
        return f"recipe {stamp.get('recipe')} (now {RECIPE})"
    if stamp.get("compiler") != compiler():
        return "another compiler"
    have = _installed()
    if not all(b.get("versions") in have for b in stamp.get("backends", [])):
        return "a backend version no longer installed"
    return "no case, release or tree of yours names its key (an older configure or patch)"


def entries(root: Path = None) -> list:
    from harness.compile import ffi_build, injector_build
    root = root or cache_root()
    stamps = _stamps(root)
    named = _named_trees(stamps)
    out = [Entry(d, "tree", named.get(d.name, ""), "" if d.name in named else _not_named(s))
           for d, s in stamps.items()]
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
    for part in DOWNLOADS:
        if (root / part).exists():
            out.append(Entry(root / part, "download", "kept (downloads are not collected)"))
    return out + temporaries(root)


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
    from harness.obtain.tree import Tree, check_libraries, check_stamp, read_stamp
    bad = 0
    for e in entries():
        try:
            if e.kind == "tree":
                stamp = read_stamp(e.path)
                tree = Tree(stamp.get("tree", e.path.name), e.path, stamp)
                check_stamp(tree)
                check_libraries(tree, hashes=True)
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
