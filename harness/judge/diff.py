"""What a change does under faults: the sweep (harness/judge/sweep.py) of each family on
two trees, the sites paired by where they are in FFmpeg's code, each site's class
before -> after, and a verdict a CI gate can use.

A site is one call of a family in a clean run (the census), failed with one value of its
function's fault profile (harness/judge/profiles.py: every value where the site's stack
runs through the change, the first elsewhere, by default). Sites pair by the place the
census names (the first frames of FFmpeg's own code, function and file, line numbers
left out, so a patch that moves code does not unpair them), by their order among the
calls made there (the n-th allocation in `fill_model_input_onnx` pairs with the n-th)
and by the value.
"""

import enum
import re
import sys
import tempfile
import time
from pathlib import Path
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from harness.compile import families as registry
from harness.errors import ExitStatus
from harness.judge import coverage as lines_run, profiles, sweep
from harness.judge.sweep import Class, Site
from harness.judge.touched import UNKNOWN, Touched
from harness.run import matrix
from harness.run.outcome import Outcome
from harness.run.runner import NOTHING, run as run_all, servers

GOOD = frozenset({Class.SURFACED, Class.CLEAN})  # the failure was reported, or did no harm
BAD = frozenset({Class.LOST, Class.DROPPED, Class.ALTERED, Class.HANG, Class.CRASH})
# a run that ends so shows nothing of what the code after the failed call does: a site
# that ends so in both trees is blind to the change
BLINDING = frozenset({Class.HANG, Class.CRASH})



class Change(str, enum.Enum):
    REGRESSION = "regression"  # SURFACED or CLEAN -> LOST, DROPPED, ALTERED, HANG or CRASH;
                               # anything else -> CRASH; a call only the to-tree makes that
                               # fails badly
    FIX = "fix"                # the other way
    CHANGED = "changed"        # another class, neither better nor worse by that rule
    SAME = "same"
    ONLY_FROM = "only-from"    # a call the to-tree no longer makes there
    ONLY_TO = "only-to"        # a call only the to-tree makes, that did no harm
    ERROR = "error"            # a run that could not run on either side: not judged
    FLAKY = "flaky"            # run again, both trees showed a class the other has: not judged


def change(a, b) -> Change:
    """The verdict on one site: its class in the from-tree `a`, in the to-tree `b`
    (None: the tree makes no such call). Worse is worse: a site that crashes where it did
    not is a regression whatever it did before (a HANG turned into a segfault), and a call
    only the to-tree makes is judged against the classes that do no harm (a new
    allocation whose failure hangs, crashes, drops the frame or loses the error is a
    regression)."""
    if b is Class.ERROR or a is Class.ERROR:
        return Change.ERROR
    if a is None:
        return Change.REGRESSION if b in BAD else Change.ONLY_TO
    if b is None:
        return Change.ONLY_FROM
    if a == b:
        return Change.SAME
    if a in GOOD and b in BAD or b is Class.CRASH:
        return Change.REGRESSION
    if a in BAD and b in GOOD:
        return Change.FIX
    return Change.CHANGED


def judged(seen_a: list, seen_b: list) -> Change:
    """The verdict on a site whose class changed, once each tree ran it again: every class
    each tree showed. A tree that never failed badly against one that did (even once) is a
    regression, the other way a fix; both trees unsteady is flaky."""
    a, b = set(seen_a), set(seen_b)
    if Class.ERROR in a | b:
        return Change.ERROR
    if a <= GOOD and b & BAD or Class.CRASH in b - a:
        return Change.REGRESSION
    if a & BAD and b <= GOOD:
        return Change.FIX
    if len(a) > 1 or len(b) > 1:
        return Change.FLAKY
    return change(seen_a[0] if seen_a else None, seen_b[0] if seen_b else None)


ANY = "ANY"  # a case's diff: a from-tree class it does not fix (read from memory the
             # failed call left unset: SURFACED, CLEAN or CRASH run by run)


def against(d: "Diff", expected: dict) -> list:
    """What differs from a case's diff ({group key: {(from class, to class): sites}}): one
    line each; [] when every group the case names changed so. A row (ANY, to class): n
    lets n of the group's sites going to that class come from any class, the named ones
    included: the named rows then hold at least their count, and each to class its
    total."""
    out = []
    for key, want in expected.items():
        got = {}
        for p in d.pairs:
            if p.group.key == key:
                cls = tuple(s.cls.value if s is not None else None for s in p.sites)
                got[cls] = got.get(cls, 0) + 1
        if not any(g.key == key for g in d.groups):
            out.append(f"{key}: not run")
        elif not _as_said(got, want):
            out.append(f"{key}: got {_changes(got)}, the case says {_changes(want)}")
    return out


def _as_said(got: dict, want: dict) -> bool:
    """Each to class has the sites the case gives it, and each named row at least its own
    (exactly its own where the class has no ANY row)."""
    for to in {b for _, b in got} | {b for _, b in want}:
        if sum(n for (_, b), n in got.items() if b == to) != \
                sum(n for (_, b), n in want.items() if b == to):
            return False
    return all(got.get(row, 0) >= n for row, n in want.items() if row[0] != ANY)


def _changes(counts: dict) -> str:
    return ", ".join(f"{n} {a} -> {b}" for (a, b), n in sorted(counts.items(), key=str)) \
        or "no site"


def place(where: str) -> str:
    """A census's `f (file.c:12) < g (file.c:34)` without its line numbers."""
    return re.sub(r":\d+\)", ")", where or "") or "?"


@dataclass(frozen=True)
class Side:
    label: str   # what the report calls the tree: after, HEAD~1, after+fix
    tree: object  # harness.obtain.tree.Tree


@dataclass
class Group:
    """One family on one backend/filter pair and one route of the sweep: the census of
    each side."""
    backend: str
    filter: str
    fault: str                                  # the spec each site's run arms
    family: str                                 # pthread_create, malloc, wrap:<symbol>
    sites: list = field(default_factory=list)   # per side: number of calls, None if no census
    errors: list = field(default_factory=list)  # per side: why the census did not run, or ""
    route: str = "frames"                       # the sweep's route (ROUTES of harness/judge/sweep.py)

    @property
    def key(self) -> str:
        return f"{self.backend} / {self.filter} / {self.route} / {self.family}"


@dataclass
class Pair:
    group: Group
    place: str
    nth: int                  # its order among the calls made at `place` (0-based)
    sites: list               # per side: the Site, or None
    change: Change
    seen: list = field(default_factory=list)  # per side: its class in every run (reruns too)
    touched: str = ""  # its stack runs through a "function" or only a "file" the change touches
    order: tuple = (0, 0, 0)  # (group index, index among the group's pairs, value's index
                              # in the profile): the report's order
    value: str = ""   # what the call failed with, as the spec writes it (EINVAL, ORT_FAIL)

    # the verdict's properties are plain functions wrapped by property() (not @property),
    # so that the mutation tool (`make mutants`), which leaves decorated functions alone,
    # mutates them
    def _blind(self) -> bool:
        """Every run of the site, in each tree that makes the call, hung or crashed: what
        the code after the failed call does cannot show."""
        seen = [c for cs in self.seen for c in cs]
        return bool(seen) and set(seen) <= BLINDING

    blind = property(_blind)

    def _judged(self) -> bool:
        """Neither blind nor left unjudged (ERROR, FLAKY)."""
        return not self.blind and self.change not in (Change.ERROR, Change.FLAKY)

    judged = property(_judged)

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
    touched: Touched = UNKNOWN  # what the change touches (harness/judge/touched.py)
    shard: tuple | None = None  # (K, N): the pairs of shard K of N only (harness/judge/shard.py)
    values: str = profiles.DEFAULT  # which values of each profile the sites were failed with
    coverage: dict | None = None  # the change's lines executed under a fault
                                  # (harness/judge/coverage.py); None: not measured
    focus: tuple | None = None    # (sites run, sites the censuses found): `--focus`, only the
                                  # sites whose stack runs through the change were run

    def count(self) -> Counter:
        return Counter(p.change for p in self.pairs)

    def _census_errors(self) -> list:
        return [f"{g.key}: {self.sides[i].label}: census {e}" for g in self.groups
                for i, e in enumerate(g.errors) if e]

    census_errors = property(_census_errors)  # a plain function: mutated (Pair._blind)

    def tally(self) -> dict:
        """judged / blind / not judged / total sites, and the same of the sites whose
        stack runs through the change (touched)."""
        def of(pairs):
            return {"judged": sum(p.judged for p in pairs), "blind": sum(p.blind for p in pairs),
                    "not_judged": sum(not p.judged and not p.blind for p in pairs),
                    "total": len(pairs)}
        return {**of(self.pairs), "touched": of([p for p in self.pairs if p.touched])}

    def blind_groups(self) -> list:
        """(route, family, blind sites, sites) for every route and family with a blind site."""
        out = {}
        for p in self.pairs:
            k = (p.group.route, p.group.family)
            n = out.setdefault(k, [0, 0])
            n[0] += p.blind
            n[1] += 1
        return [(r, f, b, n) for (r, f), (b, n) in out.items() if b]

    def _exit_status(self) -> ExitStatus:
        """FAIL on any regression, or on anything that could not be judged (a census or
        a site that could not run); else BLIND when no site whose stack runs through the
        change was judged (or, when the change could not be read, no site at all); else
        OK (the diff's PASS)."""
        c = self.count()
        if c[Change.REGRESSION] or c[Change.ERROR] or self.census_errors:
            return ExitStatus.FAIL
        if self.coverage and self.coverage["changed"] and not self.coverage["executed"]:
            return ExitStatus.BLIND  # not one changed line of code ran under any fault
        t = self.tally()
        seen = t["touched"]["judged"] if self.touched.known else t["judged"]
        return ExitStatus.OK if seen else ExitStatus.BLIND

    exit_status = property(_exit_status)  # a plain function: mutated (Pair._blind)


def plan_groups(pairs: list, families: list, routes=("sweep",)) -> list:
    """One Group per (backend, filter) pair, route (the worker's: sweep.ROUTES) and family
    spec, in that order."""
    from harness.run import faults
    out = []
    from harness.run import chains as graphs
    for backend, filt in pairs:
        for route in routes:
            for spec in families:
                site = faults.parse(spec).site
                of = registry.of_site(site)
                if of is not None and of.backend and of.backend not in graphs.needs(backend, filt):
                    continue  # a backend's API family runs only where the graph uses it
                out.append(Group(backend, filt, spec, site, route=sweep.ROUTE_NAMES[route]))
    return out


def innermost(place_text: str) -> str:
    """A place's innermost frame, `f (file.c)`: where the call is made, whatever inlining
    or a new function between it and its callers did to the frames above."""
    return place_text.split(" < ")[0]


def pair_plan(per_side: list, mapped=None) -> list:
    """Pair the calls of two sides: per_side is, for each side, its calls' (index, where)
    in call order; the result (place, nth, [index or None per side]), grouped by place in
    the order the from-tree, then the to-tree, reaches them. A from-tree call pairs, in
    turn: with the to-tree's call at the same lines once `mapped` (Touched.map_where) has
    moved them through the change (so a call the change adds beside another shifts
    nothing); then by place (lines left out: code the change moved) and order there;
    then by innermost frame and order (a change of inlining, or a function put between a
    call and its callers, changes the frames above the call, not where it is made)."""
    frm, to = per_side
    partner, taken = {}, set()
    keys = (lambda w: (mapped or (lambda x: x))(w) if w and w != "?" else None,
            place, lambda w: innermost(place(w)))
    for stage, key in enumerate(keys):
        left = defaultdict(list)
        for index, where in to:
            k = where if stage == 0 else key(where)
            if index not in taken and k:
                left[k].append(index)
        for index, where in frm:
            k = key(where)
            if index not in partner and k and left.get(k):
                partner[index] = left[k].pop(0)
                taken.add(partner[index])
    order, rows = {}, defaultdict(list)
    for index, where in frm:
        rows[order.setdefault(place(where), place(where))].append([index, partner.get(index)])
    for index, where in to:
        if index not in taken:
            rows[order.setdefault(place(where), place(where))].append([None, index])
    return [(p, n, idx) for p in order for n, idx in enumerate(rows[p])]


def _function(group: Group, named: list) -> str:
    """Which of the family's functions a paired call is: the census's name (the from-tree's
    first), a per-function family's own, else the family's first."""
    fam = registry.of_site(group.family)
    if fam.per_function:
        return group.family.partition(":")[2]
    return next((f for f in named if f), fam.functions[0])


CONFIRM = 4  # runs more of each side of a site whose class changed


def worth_rerunning(p: Pair) -> bool:
    """Whether more runs of the site could change the verdict: a site that went from a
    class that did no harm in the from-tree (a regression, or another change from SURFACED
    or CLEAN), or to a CRASH, or a new call that failed badly, can be, or stop being, a
    regression; one whose from-tree run already failed badly and that did not crash
    (a fix, HANG -> ALTERED) cannot become one."""
    a, b = p.sites
    if p.change is Change.REGRESSION and (a is None or b.cls is Class.CRASH):
        return True
    return (p.change in (Change.REGRESSION, Change.CHANGED) and a is not None
            and a.cls in GOOD)


def run(sides: list, groups: list, preload: str, jobs: int = 2, expect=NOTHING,
        progress=None, results=None, confirm: int = CONFIRM, pool=None,
        touched: Touched = UNKNOWN, shard=None, values: str = profiles.DEFAULT,
        focus: bool = False, only=None) -> Diff:
    """Every group's census on both sides in one batch; the sites paired by where the
    censuses found them; then every site of every pair failed in turn in a second batch,
    with each value `values` asks for (profiles.chosen()) (jobs at a time, through the
    fork servers: `pool`'s, left running, or the diff's own, the same for every batch),
    the longest first; then each side of every site whose verdict more runs could change
    `confirm` times more (judged()). `touched`: what the change touches, which marks the
    sites whose stacks run through it; `focus`: only those sites run (a known change).
    `shard` (K, N): only the pairs harness.judge.shard gives shard K of N (the censuses run
    in every shard). `only`: a predicate on a pair's mark ("function", "file" or "") that
    keeps the pairs to run (harness/experiments/mutate.py: the sites through a mutant's
    function); None keeps every pair."""
    with servers(pool) as pool, tempfile.TemporaryDirectory(prefix="ffdnn-lines-") as cov:
        want = lines_run.request(sides[1].tree, Path(cov))
        d = _run(sides, groups, preload, jobs, expect, progress, results, confirm, pool, shard,
                 touched, values, want, focus and touched.known, only)
        if want is not None and touched.known:
            d.coverage = lines_run.changed_lines(touched, lines_run.read(
                sides[1].tree, Path(cov), [path for path, _ in touched.lines]))
    d.touched, d.values = touched, values
    return d


def _run(sides, groups, preload, jobs, expect, progress, results, confirm, pool, shard,
         touched=UNKNOWN, values=profiles.DEFAULT, counting=None, focus=False,
         only=None) -> Diff:
    from harness.judge import shard as sharding
    base = {}  # (group index, side index) -> the scenario a site's run derives from
    for gi, g in enumerate(groups):  # compiles each tree's module the first time
        for si, side in enumerate(sides):
            (sc,) = matrix.scenarios([side.tree], g.backend, g.filter, [g.fault],
                                     route=sweep.ROUTES[g.route])
            base[(gi, si)] = sc
    t0 = time.monotonic()
    keys = list(base)
    clean = run_all([sweep.census(base[k]) for k in keys], preload, jobs=jobs, expect=expect,
                    pool=pool)
    t1 = time.monotonic()
    reference, calls, function = {}, {}, {}
    for g in groups:
        g.sites, g.errors = [None] * len(sides), [""] * len(sides)
    for (gi, si), r in zip(keys, clean):
        g = groups[gi]
        if r.outcome not in (Outcome.PASS, Outcome.MEASURED):
            g.errors[si] = f"{r.outcome.value}: {r.reason or 'the clean run failed'}"
            continue
        calls[(gi, si)] = sweep.census_calls(r)
        g.sites[si] = len(calls[(gi, si)])
        reference[(gi, si)] = [f["md5"] for f in r.data.get("frames", [])]
        function[(gi, si)] = sweep.census_functions(r)
    trees = [side.tree for side in sides]
    where = {k: dict(c) for k, c in calls.items()}  # (group, side) -> call index -> where
    # (group index, pair index, place, nth, [call index or None per side], value, value
    # index, its mark: through a function or a file the change touches)
    planned = []
    for gi, g in enumerate(groups):
        if any(e != "" for e in g.errors):
            continue
        for pi, (p, n, idx) in enumerate(pair_plan([calls[(gi, si)] for si in range(len(sides))],
                                                     touched.map_where)):
            mark = touched.mark(" < ".join(where[(gi, si)][i]
                                           for si, i in enumerate(idx) if i is not None))
            fn = _function(g, [function[(gi, si)].get(i, "") for si, i in enumerate(idx)
                               if i is not None])
            for vi, v in enumerate(profiles.chosen(registry.of_site(g.family).name, fn, trees,
                                                   values, bool(mark),
                                                   base[(gi, 0)].fault.value_text)):
                planned.append((gi, pi, p, n, idx, v, vi, mark))
    found = len(planned)
    if focus:  # only the sites whose stack runs through the change
        planned = [item for item in planned if item[-1]]
    if only is not None:
        planned = [item for item in planned if only(item[7])]

    def site_scenario(gi, si, i, value):
        sc = sweep.census(base[(gi, si)])
        if si == 1 and counting is not None:  # the change's tree counts the lines it runs
            sc = replace(sc, extra={**sc.extra, "coverage": counting})
        return replace(sc, fault=registry.failing(replace(base[(gi, si)].fault, skip=i, count=1),
                                                  value))

    costs = [sum(sharding.cost(site_scenario(gi, si, i, v), expect)
                 for si, i in enumerate(idx) if i is not None)
             for gi, _, _, _, idx, v, _, _ in planned]
    mine = sharding.mine(planned, costs, shard) if shard else list(range(len(planned)))
    plans = [((gi, si), site_scenario(gi, si, i, v), k)
             for k in sorted(mine, key=lambda k: (-costs[k], k))  # the longest first
             for gi, _, _, _, idx, v, _, _ in [planned[k]]
             for si, i in enumerate(idx) if i is not None]
    if progress:
        print(f"census: {len(keys)} runs in {t1 - t0:.1f} s; {len(plans)} site runs, each "
              f"call failed with {'every value of its profile' if values == 'all' else 'the first value of its profile' if values == 'one' else 'every value of its profile where it runs through the change, the first elsewhere'}"
              + (f" (shard {shard[0]}/{shard[1]} of {sum(len([i for i in p[4] if i is not None]) for p in planned)})"
                 if shard else "")
              + f" ({', '.join(f'{g.key} {g.sites}' for g in groups if any(g.sites))})",
              file=sys.stderr, flush=True)
    runs = run_all([sc for _, sc, _ in plans], preload, jobs=jobs, progress=progress,
                   results=results, expect=expect, pool=pool)
    t2 = time.monotonic()
    got = {}  # (planned index, side index) -> Site
    for (k, sc, pk), r in zip(plans, runs):
        i = sc.fault.skip
        got[(pk, k[1])] = Site(sc.build, i, sweep.classify(r, reference[k]), r,
                               sweep.reproducer(sc), where[k][i])
    pairs = []
    for k in sorted(mine):
        gi, pi, p, n, idx, v, vi, mark = planned[k]
        sites = [got.get((k, si)) for si in range(len(idx))]
        pair = Pair(groups[gi], p, n, sites,
                    change(*(s.cls if s is not None else None for s in sites)),
                    [[s.cls] if s is not None else [] for s in sites], mark, (gi, pi, vi), v)
        pairs.append(pair)
    again = [(p, si, s.result.scenario, (groups.index(p.group), si))  # sides side by side:
             for p in pairs if worth_rerunning(p)                      # the same load on both
             for _ in range(confirm) for si, s in enumerate(p.sites) if s is not None]
    reruns = run_all([sc for _, _, sc, _ in again], preload, jobs=jobs, progress=progress,
                     expect=expect, pool=pool) if again else []
    for (p, si, _, k), r in zip(again, reruns):
        p.seen[si].append(sweep.classify(r, reference[k]))
    for p in {id(p): p for p, *_ in again}.values():
        p.change = judged(*p.seen)
    t3 = time.monotonic()
    every = runs + reruns
    hung = sum(r.seconds for r in every if r.outcome is Outcome.HANG)
    ended = [r.seconds for r in every if r.outcome is not Outcome.HANG]
    return Diff(sides, groups, pairs,
                {"census": round(t1 - t0, 2), "sites": round(t2 - t1, 2),
                 "confirm": round(t3 - t2, 2), "total": round(t3 - t0, 2)},
                len(keys) + len(every), round(hung, 2), (len(ended), round(sum(ended), 2)),
                shard=shard, focus=(len(planned), found) if focus else None)
