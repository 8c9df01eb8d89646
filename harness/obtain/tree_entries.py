"""The cache's trees/ entries as `harness cache` sees them: what names each, why nothing
names the others, and each one's check.

A tree is named when this checkout would look for it:
- a tree of a case's layout, for a backend set, sanitizer and release some tree in the
  cache was built with, under the key this checkout computes (so a changed recipe,
  configure line or patch names a new entry and the old one is no longer named);
- the user's trees: a tree made from a named tree (a --patch, a derived test tree, a
  twin) and a clone's refs (--git-dir), built by this recipe and compiler.
The cases are given, the default first (a case is of a later stage: the command loads
them, harness/caseload.py); each is read for its name, layout, series and `on`.
"""

import contextlib
import io
import json
from pathlib import Path

from harness.errors import HarnessError
from harness.obtain import debian, derived, releases, source
from harness.obtain.build import compiler
from harness.obtain.builtsets import _installed_versions
from harness.obtain.patched import PatchedPlan
from harness.obtain.recipe import RECIPE
from harness.obtain.tree import Tree, check_libraries, check_stamp, read_stamp
from harness.obtain.trees import Plan
from harness.paths import Entry

KIND = "tree"


def stamps(root: Path) -> dict:
    """Each tree entry -> its stamp.json (None: it does not parse)."""
    out = {}
    for d in sorted((root / "trees").glob("*")):
        if d.name.startswith(".tmp-") or not d.is_dir():
            continue
        try:
            out[d] = json.loads((d / "stamp.json").read_text())
        except (OSError, ValueError):
            out[d] = None
    return out


def plans(stamps: dict, cases: list):
    """(plan, what) for every case's layout x (backend set, sanitizer, release) some tree
    of the cache was built with, whose backends are installed and whose release's
    configure script is cached (nothing is fetched to find out)."""
    have, combos = _installed_versions(), set()
    for s in stamps.values():
        if not isinstance(s, dict) or s.get("source", {}).get("kind") != "release":
            continue
        if all(b.get("versions") in have for b in s.get("backends", [])):
            src = s["source"]  # a Debian suite's tree is named by its suite
            combos.add((",".join(sorted(b["name"] for b in s["backends"])), s.get("sanitizer"),
                        f"{debian.PREFIX}{src['debian']['suite']}"
                        if src.get("debian") else src.get("version")))
    for case in cases:
        layout = case.layout
        for backends, sanitizer, version in sorted(combos, key=str):
            rel = releases.find(version)
            if layout is None or not backends or rel is None or not (
                    source.cached_path(rel).with_suffix(".configure").is_file()):
                continue
            if sanitizer and not layout.sanitizer_trees:
                continue
            what = f"case {case.name} ({backends}{', ' + sanitizer if sanitizer else ''}, " \
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


def named(stamps: dict, cases: list) -> dict:
    """Tree entry's name -> what names it."""
    out = {}
    with contextlib.redirect_stderr(io.StringIO()):  # a plan's notes are not the report's
        for plan, what in plans(stamps, cases):
            try:
                for n in plan.names:
                    out.setdefault(plan.path(n).name, f"{what}: {plan.label(n)}")
            except HarnessError:
                continue
    keys = {s["key"]: d.name for d, s in stamps.items() if isinstance(s, dict) and
            d.name in out and "key" in s}
    cc, have, grew = compiler(), _installed_versions(), True
    while grew:  # the user's trees: made from a named tree, or a clone's, by this recipe
        grew = False
        for d, s in stamps.items():
            if d.name in out or not isinstance(s, dict):
                continue
            same = s.get("recipe") == RECIPE and s.get("compiler") == cc and all(
                b.get("versions") in have for b in s.get("backends", []))
            if "derived" in s:
                same = same and s["derived"].get("recipe") == derived.RECIPE
            parent = s.get("parent")
            kind = s.get("source", {}).get("kind")
            if same and (parent in keys or (parent is None and kind == "git")):
                out[d.name] = (f"yours: from {keys[parent]}" if parent in keys
                               else f"yours: {s['source'].get('repo', 'a clone')}")
                keys[s["key"]] = d.name
                grew = True
    return out


def not_named(stamp) -> str:
    """Why nothing names a tree of this stamp."""
    if not isinstance(stamp, dict):
        return "its stamp.json does not parse"
    if stamp.get("recipe") != RECIPE:
        return f"recipe {stamp.get('recipe')} (now {RECIPE})"
    if stamp.get("compiler") != compiler():
        return "another compiler"
    have = _installed_versions()
    if not all(b.get("versions") in have for b in stamp.get("backends", [])):
        return "a backend version no longer installed"
    return "no case, release or tree of yours names its key (an older configure or patch)"


def entries(root: Path, cases: list) -> list:
    """Every tree entry of the cache at `root`, with what names it or why nothing does."""
    found = stamps(root)
    by = named(found, cases)
    return [Entry(d, KIND, by.get(d.name, ""), "" if d.name in by else not_named(s))
            for d, s in found.items()]


def verify(path: Path) -> None:
    """A tree entry's stamp and libraries (their sizes, and sha256 where the stamp has
    them): a cache error if one fails."""
    stamp = read_stamp(path)
    tree = Tree(stamp.get("tree", path.name), path, stamp)
    check_stamp(tree)
    check_libraries(tree, hashes=True)
