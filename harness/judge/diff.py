"""What a change does under faults: the sweep (harness/judge/sweep.py) of each family on
two trees, the sites paired by where they are in FFmpeg's code, each site's class
before -> after, and a verdict a CI gate can use.

A site is one call of a family in a clean run (the census). Sites pair by the place the
census names (the first frames of FFmpeg's own code, function and file, line numbers
left out, so a patch that moves code does not unpair them) and by their order among the
calls made there (the n-th allocation in `fill_model_input_onnx` pairs with the n-th).
"""

import enum
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from harness.judge import sweep
from harness.judge.sweep import Class, Site
from harness.run import matrix
from harness.run.outcome import Outcome
from harness.run.runner import NOTHING, run as run_all

SCHEMA = 1
GOOD = frozenset({Class.SURFACED, Class.CLEAN})  # the failure was reported, or did no harm
BAD = frozenset({Class.LOST, Class.DROPPED, Class.ALTERED, Class.HANG, Class.CRASH})


class Change(str, enum.Enum):
    REGRESSION = "regression"  # SURFACED or CLEAN -> LOST, DROPPED, ALTERED, HANG or CRASH
    FIX = "fix"                # the other way
    CHANGED = "changed"        # another class, neither better nor worse by that rule
    SAME = "same"
    ONLY_FROM = "only-from"    # a call the to-tree no longer makes there
    ONLY_TO = "only-to"        # a call only the to-tree makes
    ERROR = "error"            # a run that could not run on either side: not judged


def change(a, b) -> Change:
    """The verdict on one site: its class in the from-tree `a`, in the to-tree `b`
    (None: the tree makes no such call)."""
    if a is None or b is None:
        return Change.ONLY_TO if a is None else Change.ONLY_FROM
    if Class.ERROR in (a, b):
        return Change.ERROR
    if a == b:
        return Change.SAME
    if a in GOOD and b in BAD:
        return Change.REGRESSION
    if a in BAD and b in GOOD:
        return Change.FIX
    return Change.CHANGED


def place(where: str) -> str:
    """A census's `f (file.c:12) < g (file.c:34)` without its line numbers."""
    return re.sub(r":\d+\)", ")", where or "") or "?"


@dataclass(frozen=True)
class Side:
    label: str   # what the report calls the tree: after, HEAD~1, after+fix
    tree: object  # harness.obtain.trees.Tree


@dataclass
class Group:
    """One family on one backend/filter pair: the census of each side."""
    backend: str
    filter: str
    fault: str                                  # the spec each site's run arms
    family: str                                 # pthread_create, malloc, wrap:<symbol>
    sites: list = field(default_factory=list)   # per side: number of calls, None if no census
    errors: list = field(default_factory=list)  # per side: why the census did not run, or ""

    @property
    def key(self) -> str:
        return f"{self.backend} / {self.filter} / {self.family}"


@dataclass
class Pair:
    group: Group
    place: str
    nth: int                  # its order among the calls made at `place` (0-based)
    sites: list               # per side: the Site, or None
    change: Change

    @property
    def where(self) -> str:
        """The from-tree's text (with line numbers), else the to-tree's."""
        return next((s.where for s in self.sites if s is not None and s.where), self.place)


@dataclass
class Diff:
    sides: list
    groups: list
    pairs: list
    seconds: dict             # census, sites, total (wall)
    runs: int                 # scenarios run, censuses included
    hang_seconds: float = 0.0  # the sites' runs that hung: their seconds, summed over jobs
    ended: tuple = (0, 0.0)   # the sites' runs that did not hang: how many, their seconds

    def count(self) -> Counter:
        return Counter(p.change for p in self.pairs)

    @property
    def census_errors(self) -> list:
        return [f"{g.key}: {self.sides[i].label}: census {e}" for g in self.groups
                for i, e in enumerate(g.errors) if e]

    @property
    def exit_status(self) -> int:
        """1 on any regression, or on anything that could not be judged (a census or
        a site that could not run); 0 otherwise."""
        c = self.count()
        return 1 if c[Change.REGRESSION] or c[Change.ERROR] or self.census_errors else 0


def plan_groups(pairs: list, families: list) -> list:
    """One Group per (backend, filter) pair and family spec, in that order."""
    from harness.run import faults
    out = []
    for backend, filt in pairs:
        for spec in families:
            out.append(Group(backend, filt, spec, faults.parse(spec).site))
    return out


def _pair(group: Group, per_side: list) -> list:
    """Pair the sites of two sides by place and order there."""
    at = [defaultdict(list) for _ in per_side]
    order = {}  # the places in the order the from-tree, then the to-tree, reaches them
    for i, sites in enumerate(per_side):
        for s in sites:
            p = place(s.where)
            order.setdefault(p, None)
            at[i][p].append(s)
    out = []
    for p in order:
        for n in range(max(len(at[0][p]), len(at[1][p]))):
            pair = [at[i][p][n] if n < len(at[i][p]) else None for i in (0, 1)]
            out.append(Pair(group, p, n, pair,
                            change(*(s.cls if s is not None else None for s in pair))))
    return out


def run(sides: list, groups: list, preload: str, jobs: int = 2, expect=NOTHING,
        progress=None, results=None) -> Diff:
    """Every group's census on both sides in one batch, then every site of every group
    failed in turn in a second batch (jobs at a time, through the fork servers)."""
    base = {}  # (group index, side index) -> the scenario a site's run derives from
    for gi, g in enumerate(groups):  # compiles each tree's module the first time
        for si, side in enumerate(sides):
            (sc,) = matrix.scenarios([side.tree], g.backend, g.filter, [g.fault], route="sweep")
            base[(gi, si)] = sc
    t0 = time.monotonic()
    keys = list(base)
    clean = run_all([sweep.census(base[k]) for k in keys], preload, jobs=jobs, expect=expect)
    t1 = time.monotonic()
    plans, reference, where = [], {}, {}
    for g in groups:
        g.sites, g.errors = [None] * len(sides), [""] * len(sides)
    for (gi, si), r in zip(keys, clean):
        g = groups[gi]
        if r.outcome not in (Outcome.PASS, Outcome.MEASURED):
            g.errors[si] = f"{r.outcome.value}: {r.reason or 'the clean run failed'}"
            continue
        n = r.data.get("counters", {}).get("eligible", 0)
        g.sites[si] = n
        reference[(gi, si)] = [f["md5"] for f in r.data.get("frames", [])]
        where[(gi, si)] = {s["call"] - 1: s["where"] for s in r.data.get("sites", [])}
        sc = sweep.census(base[(gi, si)])
        plans += [((gi, si), replace(sc, fault=replace(base[(gi, si)].fault, skip=i, count=1)))
                  for i in range(n)]
    runs = run_all([sc for _, sc in plans], preload, jobs=jobs, progress=progress,
                   results=results, expect=expect)
    t2 = time.monotonic()
    found = defaultdict(list)
    for (k, sc), r in zip(plans, runs):
        i = sc.fault.skip
        found[k].append(Site(sc.build, i, sweep.classify(r, reference[k]), r,
                             sweep.reproducer(sc), where[k].get(i, "")))
    hung = sum(r.seconds for r in runs if r.outcome is Outcome.HANG)
    ended = [r.seconds for r in runs if r.outcome is not Outcome.HANG]
    pairs = []
    for gi, g in enumerate(groups):
        if all(e == "" for e in g.errors):
            pairs += _pair(g, [found[(gi, si)] for si in range(len(sides))])
    return Diff(sides, groups, pairs,
                {"census": round(t1 - t0, 2), "sites": round(t2 - t1, 2),
                 "total": round(t2 - t0, 2)},
                len(keys) + len(plans), round(hung, 2), (len(ended), round(sum(ended), 2)))


def verdict_line(d: Diff) -> str:
    c = d.count()
    a, b = (s.label for s in d.sides)
    parts = [f"{c[Change.REGRESSION]} regression{'s' * (c[Change.REGRESSION] != 1)}",
             f"{c[Change.FIX]} fix{'es' * (c[Change.FIX] != 1)}",
             f"{c[Change.CHANGED]} changed otherwise", f"{c[Change.SAME]} the same"]
    if c[Change.ONLY_FROM] or c[Change.ONLY_TO]:
        parts.append(f"{c[Change.ONLY_FROM]} only in {a}, {c[Change.ONLY_TO]} only in {b}")
    if c[Change.ERROR] or d.census_errors:
        parts.append(f"{c[Change.ERROR] + len(d.census_errors)} not judged (ERROR)")
    word = "FAIL" if d.exit_status else "PASS"
    return f"**{word}**: {len(d.pairs)} sites: " + ", ".join(parts)


def _cls(s) -> str:
    return s.cls.value if s is not None else "—"


def _row(p: Pair) -> str:
    a, b = p.sites
    repro = (b or a).command
    nth = f" #{p.nth + 1}" if p.nth else ""
    return (f"| {p.group.backend} / {p.group.filter} | `{p.group.family}` | `{p.where}`{nth} "
            f"| {_cls(a)} | {_cls(b)} | `{repro}` |")


SECTIONS = ((Change.REGRESSION, "Regressions"), (Change.ERROR, "Not judged (ERROR)"),
            (Change.FIX, "Fixes"), (Change.CHANGED, "Changed otherwise"),
            (Change.ONLY_FROM, "Only in {a}"), (Change.ONLY_TO, "Only in {b}"))


def markdown(d: Diff) -> str:
    """A PR comment: the verdict, every site that is not the same (with the command that
    reruns it in the to-tree), and per group how many sites each class has."""
    a, b = (s.label for s in d.sides)
    lines = [f"## Fault sweep diff: {a} -> {b}", ""]
    mine = d.sides[1].tree.stamp["source"].get("patches")
    if mine:  # a tree built with --patch
        lines += [f"{b}: the patches " + ", ".join(f"`{p}`" for p in mine), ""]
    lines += [verdict_line(d), ""]
    for e in d.census_errors:
        lines.append(f"- {e}")
    for ch, title in SECTIONS:
        rows = [p for p in d.pairs if p.change is ch]
        if not rows:
            continue
        lines += ["", f"### {title.format(a=a, b=b)} ({len(rows)})", "",
                  f"| backend / filter | family | where | {a} | {b} | reproduce |",
                  "|---|---|---|---|---|---|"] + [_row(p) for p in rows]
    lines += ["", "### Every family", "",
              f"| backend / filter | family | sites {a} | sites {b} | {a} | {b} |",
              "|---|---|---|---|---|---|"]
    for g in d.groups:
        mine = [p for p in d.pairs if p.group is g]
        tally = [", ".join(f"{n} {c}" for c, n in sorted(Counter(
            p.sites[i].cls.value for p in mine if p.sites[i] is not None).items())) or "—"
            for i in (0, 1)]
        counts = ["—" if n is None else str(n) for n in g.sites]
        lines.append(f"| {g.backend} / {g.filter} | `{g.family}` | {counts[0]} | {counts[1]} "
                     f"| {tally[0]} | {tally[1]} |")
    lines += ["", timing(d), ""]
    return "\n".join(lines)


def timing(d: Diff) -> str:
    n, secs = d.ended
    each = f"{secs / n:.2f} s each" if n else "none"
    return (f"{d.runs} runs in {d.seconds['total']:.1f} s ({rate(d):.2f} runs/s): censuses "
            f"{d.seconds['census']:.1f} s, sites {d.seconds['sites']:.1f} s; runs that "
            f"ended: {n}, {each}; runs that hung: {d.hang_seconds:.1f} s of run time")


def rate(d: Diff) -> float:
    return d.runs / d.seconds["total"] if d.seconds["total"] else 0.0


def _site_json(s) -> dict | None:
    if s is None:
        return None
    return {"call": s.index + 1, "class": s.cls.value, "where": s.where,
            "reproduce": s.command, "outcome": s.result.outcome.value,
            "reason": s.result.reason, "seconds": round(s.result.seconds, 3)}


def to_json(d: Diff) -> dict:
    c = d.count()
    return {
        "schema": SCHEMA,
        "from": _side_json(d.sides[0]), "to": _side_json(d.sides[1]),
        "exit_status": d.exit_status,
        "verdict": {ch.value: c[ch] for ch in Change},
        "census_errors": d.census_errors,
        "groups": [{"backend": g.backend, "filter": g.filter, "family": g.family,
                    "fault": g.fault, "sites": {"from": g.sites[0], "to": g.sites[1]},
                    "errors": {"from": g.errors[0], "to": g.errors[1]}} for g in d.groups],
        "sites": [{"backend": p.group.backend, "filter": p.group.filter,
                   "family": p.group.family, "place": p.place, "nth": p.nth,
                   "change": p.change.value, "from": _site_json(p.sites[0]),
                   "to": _site_json(p.sites[1])} for p in d.pairs],
        "timing": {**{f"{k}_seconds": v for k, v in d.seconds.items()}, "runs": d.runs,
                   "runs_per_second": round(rate(d), 3),
                   "hang_seconds": d.hang_seconds, "ended_runs": d.ended[0],
                   "ended_seconds": d.ended[1]},
    }


def _side_json(s: Side) -> dict:
    st = s.tree.stamp
    return {"label": s.label, "tree": s.tree.name, "path": str(s.tree.path), "key": st["key"],
            "source": st["source"], "series": st["series"]}
