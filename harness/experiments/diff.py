"""What a change does under faults, run: the sweep (harness/experiments/sweep.py) of each family
on two trees, the sites paired by where they are in FFmpeg's code, each site run on both
sides and its class before -> after judged (harness/judge/diff.py), the sites whose verdict
more runs could change run again.

A site is one call of a family in a clean run (the census), failed with one value of its
function's fault profile (harness/judge/profiles.py: every value where the site's stack
runs through the change, the first elsewhere, by default). Sites pair by the place the
census names (the first frames of FFmpeg's own code, function and file, line numbers
left out, so a patch that moves code does not unpair them), by their order among the
calls made there (the n-th allocation in `fill_model_input_onnx` pairs with the n-th)
and by the value.
"""

import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from harness.compile import families as registry
from harness.experiments import sweep
from harness.judge import coverage as lines_run, profiles, reach
from harness.judge.diff import (Diff, Group, Pair, change, judged, output_change,
                                output_judged, with_what_ran, worth_rerunning)
from harness.judge.pairing import pair_plan
from harness.judge.sweep import Site, classify, leaks_of
from harness.judge.touched import UNKNOWN, Touched
from harness.run import matrix
from harness.run.outcome import Outcome
from harness.experiments.batch import Batch, Memo
from harness.run.runner import NOTHING, servers

CONFIRM = 4  # runs more of each side of a site whose class changed


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


def _function(group: Group, named: list) -> str:
    """Which of the family's functions a paired call is: the census's name (the from-tree's
    first), a per-function family's own, else the family's first."""
    fam = registry.of_site(group.family)
    if fam.per_function:
        return group.family.partition(":")[2]
    return next((f for f in named if f), fam.functions[0])


@dataclass(frozen=True)
class Planned:
    """One site to run on each side that makes its call."""
    group: int        # the group's index
    pair: int         # the pair's index among the group's pairs
    place: str
    nth: int
    calls: list       # per side: the call's index, or None
    value: str        # what the call fails with, as the spec writes it
    value_index: int  # its index in the profile
    mark: str         # its stack runs through a "function" or only a "file" the change touches


def run(sides: list, groups: list, preload: str, jobs: int = 2, expect=NOTHING,
        progress=None, results=None, confirm: int = CONFIRM, pool=None,
        touched: Touched = UNKNOWN, shard=None, values: str = profiles.DEFAULT,
        focus: bool = False, only=None, memo: Memo = None) -> Diff:
    """Every group's census on both sides in one batch; the sites paired by where the
    censuses found them; then every site of every pair failed in turn in a second batch,
    with each value `values` asks for (profiles.chosen()) (jobs at a time, through the
    fork servers: `pool`'s, left running, or the diff's own, the same for every batch),
    the longest first; then each side of every site whose verdict more runs could change
    `confirm` times more (judged()). `touched`: what the change touches, which marks the
    sites whose stacks run through it; `focus`: only those sites run (a known change), of
    the groups whose graphs can run it.
    `shard` (K, N): only the pairs harness.judge.shard gives shard K of N (the censuses run
    in every shard). `only`: a predicate on a pair's mark ("function", "file" or "") that
    keeps the pairs to run (harness/experiments/mutate.py: the sites through a mutant's
    function); None keeps every pair. `memo`: the runs of one side's tree, taken from it
    when a diff before made them and kept for the next (the reruns are always new)."""
    focus = focus and touched.known
    asked = len(groups)
    if focus:  # only the groups whose graphs can run the change's code
        groups = reachable(sides, groups, touched)
        if progress and len(groups) < asked:
            print(f"focus: {len(groups)} of {asked} groups' graphs can run the change's code "
                  "(the trees' Makefiles); the others are not run", file=sys.stderr, flush=True)
    with servers(pool) as pool, tempfile.TemporaryDirectory(prefix="ffdnn-lines-") as cov:
        want = lines_run.request(sides[1].tree, Path(cov))
        d = _run(sides, groups, Batch(preload, jobs, expect, pool, progress, results, memo),
                 confirm=confirm, shard=shard, touched=touched, values=values, counting=want,
                 focus=focus, only=only)
        if want is not None and touched.known:
            d.coverage = lines_run.changed_lines(touched, lines_run.read(
                sides[1].tree, Path(cov), [path for path, _ in touched.lines]))
    d.touched, d.values = touched, values
    if focus:
        d.focus += (len(groups), asked)
    return d


def reachable(sides: list, groups: list, touched: Touched) -> list:
    """The groups whose graphs can run the change's code (harness/judge/reach.py)."""
    graph = [matrix.scenarios([sides[0].tree], g.backend, g.filter, [g.fault],
                              route=sweep.ROUTES[g.route])[0].description for g in groups]
    can = reach.can_run(graph, touched, [side.tree.src for side in sides])
    return [g for g, ok in zip(groups, can) if ok]


def _run(sides, groups, batch: Batch, *, confirm, shard, touched=UNKNOWN,
         values=profiles.DEFAULT, counting=None, focus=False, only=None) -> Diff:
    from harness.judge import shard as sharding
    base = {}  # (group index, side index) -> the scenario a site's run derives from
    for gi, g in enumerate(groups):  # compiles each tree's module the first time
        for si, side in enumerate(sides):
            (sc,) = matrix.scenarios([side.tree], g.backend, g.filter, [g.fault],
                                     route=sweep.ROUTES[g.route])
            base[(gi, si)] = sc
    t0, memo_before = time.monotonic(), batch.memo.reused if batch.memo else 0
    reference, calls, function = _censuses(groups, len(sides), base, batch)
    again = _outputs(groups, base, reference, batch, confirm)
    t1 = time.monotonic()
    where = {k: dict(c) for k, c in calls.items()}  # (group, side) -> call index -> where
    planned = _plan(groups, sides, base, calls, where, function, touched, values)
    found = len(planned)
    if focus:  # only the sites whose stack runs through the change
        planned = [item for item in planned if item.mark]
    if only is not None:
        planned = [item for item in planned if only(item.mark)]

    def site_scenario(gi, si, i, value):
        sc = sweep.census(base[(gi, si)])
        if si == 1 and counting is not None:  # the change's tree counts the lines it runs
            sc = replace(sc, extra={**sc.extra, "coverage": counting})
        return replace(sc, fault=registry.failing(replace(base[(gi, si)].fault, skip=i, count=1),
                                                  value))

    costs = [sum(sharding.cost(site_scenario(item.group, si, i, item.value), batch.expect)
                 for si, i in enumerate(item.calls) if i is not None)
             for item in planned]
    names = [(f"{groups[item.group].key}\0{item.place}", item.nth + item.value_index)
             for item in planned]  # a site's own, whatever else its census counted
    mine = sharding.mine(names, shard) if shard else list(range(len(planned)))
    plans = [((item.group, si), site_scenario(item.group, si, i, item.value), k)
             for k in sorted(mine, key=lambda k: (-costs[k], k))  # the longest first
             for item in [planned[k]]
             for si, i in enumerate(item.calls) if i is not None]
    if batch.progress:
        print(f"census: {len(base)} runs in {t1 - t0:.1f} s; {len(plans)} site runs, each "
              f"call failed with {'every value of its profile' if values == 'all' else 'the first value of its profile' if values == 'one' else 'every value of its profile where it runs through the change, the first elsewhere'}"
              + (f" (shard {shard[0]}/{shard[1]} of {sum(len([i for i in p.calls if i is not None]) for p in planned)})"
                 if shard else "")
              + f" ({', '.join(f'{g.key} {g.sites}' for g in groups if any(g.sites))})",
              file=sys.stderr, flush=True)
    runs = batch.run([sc for _, sc, _ in plans], progress=True, results=True)
    t2 = time.monotonic()
    got = {}  # (planned index, side index) -> Site
    for (k, sc, pk), r in zip(plans, runs):
        i = sc.fault.skip
        got[(pk, k[1])] = Site(sc.build, i, classify(r, reference[k]), r,
                               sweep.reproducer(sc), where[k][i])
    pairs = []
    for k in sorted(mine):
        item = planned[k]
        sites = [got.get((k, si)) for si in range(len(item.calls))]
        pair = Pair(groups[item.group], item.place, item.nth, sites,
                    change(*(s.cls if s is not None else None for s in sites)),
                    [[s.cls] if s is not None else [] for s in sites], item.mark,
                    (item.group, item.pair, item.value_index), item.value,
                    [left_behind([s.result] if s is not None else []) for s in sites],
                    [said([s.result]) if s is not None else [] for s in sites])
        pair.change = with_what_ran(pair.change, pair)
        pairs.append(pair)
    reruns = _confirm(pairs, groups, reference, batch, confirm)
    t3 = time.monotonic()
    taken = batch.memo.reused - memo_before if batch.memo else 0
    every = [r for r in runs + reruns if not batch.memo or batch.memo.made(r)]
    hung = sum(r.seconds for r in every if r.outcome is Outcome.HANG)
    ended = [r.seconds for r in every if r.outcome is not Outcome.HANG]
    return Diff(sides, groups, pairs,
                {"census": round(t1 - t0, 2), "sites": round(t2 - t1, 2),
                 "confirm": round(t3 - t2, 2), "total": round(t3 - t0, 2)},
                len(base) + again + len(runs) + len(reruns) - taken, round(hung, 2),
                (len(ended), round(sum(ended), 2)), shard=shard,
                focus=(len(planned), found) if focus else None, taken=taken)


def _censuses(groups: list, n_sides: int, base: dict, batch: Batch) -> tuple:
    """Every census in one batch: (its frames, which sweep.classify() holds each site's
    against, its calls' (index, where), each call's function), each keyed (group index,
    side index); a census that did not run clean is its group's error on that side, and
    has none."""
    keys = list(base)
    clean = batch.run([sweep.census(base[k]) for k in keys])
    reference, calls, function = {}, {}, {}
    for g in groups:
        g.sites, g.errors, g.left = [None] * n_sides, [""] * n_sides, [None] * n_sides
    for (gi, si), r in zip(keys, clean):
        g = groups[gi]
        if r.outcome not in (Outcome.PASS, Outcome.MEASURED):
            g.errors[si] = f"{r.outcome.value}: {r.reason or 'the clean run failed'}"
            continue
        calls[(gi, si)] = sweep.census_calls(r)
        g.sites[si] = len(calls[(gi, si)])
        g.left[si] = next(iter(left_behind([r])), None)
        reference[(gi, si)] = r.record.frames or []
        function[(gi, si)] = sweep.census_functions(r)
    return reference, calls, function


def _outputs(groups: list, base: dict, reference: dict, batch: Batch, confirm: int) -> int:
    """Each group's output with no fault compared between the trees (its censuses'
    frames): where they differ, each tree's census of the graph (one per backend, filter
    and route, whichever family counted its calls) run `confirm` times more, and every
    group of that graph given the verdict (output_judged()). The runs it made."""
    graphs = {}  # Group.graph -> the first group index of the graph that differs
    for gi, g in enumerate(groups):
        if (gi, 0) in reference and (gi, 1) in reference and \
                output_change(reference[(gi, 0)], reference[(gi, 1)]):
            graphs.setdefault(g.graph, gi)
    if not graphs:
        return 0
    again = [(key, si) for key, gi in graphs.items() for si in (0, 1) for _ in range(confirm)]
    runs = batch.run([sweep.census(base[(graphs[key], si)]) for key, si in again], fresh=True)
    seen = {(key, si): [reference[(gi, si)]] for key, gi in graphs.items() for si in (0, 1)}
    for (key, si), r in zip(again, runs):
        ok = r.outcome in (Outcome.PASS, Outcome.MEASURED)
        seen[(key, si)].append(r.record.frames or [] if ok else None)
    verdict = {}  # Group.graph -> (how its output changed, unsteady), judged once
    for key in graphs:
        a, b = seen[(key, 0)], seen[(key, 1)]
        # a census that did not run clean again: not steady
        verdict[key] = ("", True) if None in a + b else output_judged(a, b)
    for g in groups:
        if g.graph in verdict:
            g.output, g.unsteady = verdict[g.graph]
    return len(runs)


def _plan(groups: list, sides: list, base: dict, calls: dict, where: dict, function: dict,
          touched: Touched, values: str) -> list:
    """[Planned]: the calls of every group whose censuses ran paired, each pair with every
    value of its function's profile `values` asks for, marked where its stack runs through
    the change."""
    trees = [side.tree for side in sides]
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
                planned.append(Planned(gi, pi, p, n, idx, v, vi, mark))
    return planned


def _confirm(pairs: list, groups: list, reference: dict, batch: Batch, confirm: int) -> list:
    """Each side of every pair whose verdict more runs could change run `confirm` times
    more, and judged on every class it showed (judged()); the reruns."""
    again = [(p, si, s.result.scenario, (groups.index(p.group), si))  # sides side by side:
             for p in pairs if worth_rerunning(p)                      # the same load on both
             for _ in range(confirm) for si, s in enumerate(p.sites) if s is not None]
    reruns = batch.run([sc for _, _, sc, _ in again], progress=True, fresh=True) if again else []
    for (p, si, _, k), r in zip(again, reruns):
        p.seen[si].append(classify(r, reference[k]))
        p.leaked[si] += left_behind([r])
        p.said[si] += said([r])
    for p in {id(p): p for p, *_ in again}.values():
        p.change = with_what_ran(judged(*p.seen), p)
    return reruns


def said(results: list) -> list:
    """Per run, the lines FFmpeg's code logged at AV_LOG_ERROR before EOF."""
    return [list(r.record.errors_logged or []) for r in results if r.record is not None]


def left_behind(results: list) -> list:
    """The blocks each run that freed its graph left behind (harness/run/leaks.py); a run
    that hung, crashed or counted none is left out."""
    return [left.blocks for r in results if (left := leaks_of(r)) is not None]
