"""Sweep every site of a family (pthread_create, malloc, wrap:<ff_symbol>): count the calls FFmpeg's own
code makes in a clean run, then fail each one in turn, one scenario per call, and
classify what each run did (harness/judge/sweep.py).
After LFI and wiredtiger's faultinject: enumerate the sites, then fail each."""

import shlex
from dataclasses import replace

from harness.errors import HarnessError
from harness.judge.sweep import FRAMES, Found, Site, classify
from harness.run.outcome import Outcome
from harness.run.record import Counters
from harness.run.runner import NOTHING, run as run_all, servers
from harness.run.spec import FOREVER

TIMEOUT = 10.0
# The routes a sweep runs, by the name a report gives them -> the worker's route
# (harness/run/worker.py): "frames" arms the window before the first frame, so every call
# of the backend's own code is a site, its own flush at EOF included; "flush" arms it
# once the frames came out clean and replaces the backend's flush with the PR's stand-in,
# which starts an inference thread through ff_dnn_start_inference_async() at EOF, as
# dnn_flush_th() -> execute_model_th() does for a partial batch.
# "setup" arms it while the graph is made (the filters' init and config, the model's
# loading) and runs the frames and EOF unarmed.
ROUTES = {"frames": "sweep", "flush": "flush", "setup": "setup"}
ROUTE_NAMES = {v: k for k, v in ROUTES.items()}
DEFAULT_ROUTES = ",".join(ROUTES)  # what a diff and coverage run unless told


def route_names(text: str | None) -> list:
    """`frames,flush,setup` -> the worker's routes, in that order; bad names are bad
    input."""
    names = [t.strip() for t in (text or DEFAULT_ROUTES).split(",") if t.strip()]
    bad = [n for n in names if n not in ROUTES]
    if bad or not names:
        raise HarnessError(f"unknown sweep route '{bad[0] if bad else text}' "
                           f"(known: {', '.join(ROUTES)})")
    return [ROUTES[n] for n in dict.fromkeys(names)]


def census(scenario) -> object:
    """A clean run with the injector armed but letting every call through: its
    eligible counter is the number of sites. The scenario's route is the sweep's
    ("sweep", armed from the first frame, "flush", armed at EOF, or "setup", armed
    while the graph is made: ROUTES)."""
    route = scenario.route if scenario.route in ROUTE_NAMES else "sweep"
    return replace(scenario, fault=replace(scenario.fault, skip=FOREVER, count=1),
                   route=route, frames=FRAMES, timeout=TIMEOUT)


def census_calls(r) -> list:
    """[(call index, where)] of the calls a clean census run counted that are sites of
    its route: every one, or on a route whose sites are the DNN code's (the setup's), or of
    a family whose are (`sites dnn`: libavfilter's calls the rest of FFmpeg makes too),
    those made with it on their stack: a failed allocation of libavfilter's graph parser,
    a frame the sink takes, are not the DNN code's to handle."""
    from pathlib import Path
    from harness.compile import families
    from harness.obtain.tree import Tree
    from harness.run import routes, sites
    n = (r.record.counters or Counters()).eligible or 0
    where = {s.call - 1: s.where for s in r.record.sites or []}
    calls = [(i, where.get(i, "")) for i in range(n)]
    family = families.of_site(r.scenario.fault.site)
    if not (routes.of(r.scenario.route).dnn_sites_only
            or (family is not None and family.dnn_sites_only)):
        return calls
    src = Tree("census", Path(r.scenario.tree), {}).src
    return [(i, w) for i, w in calls if sites.in_dnn_code(w, src)]


def census_functions(r) -> dict:
    """{call index: the function of the family it was a call of} of a clean census run
    (the value profile each site is failed with is that function's)."""
    return {s.call - 1: s.function or "" for s in r.record.sites or []}


def reproducer(sc) -> str:
    return shlex.join(["python", "-m", "harness", "run", "--build", sc.tree,
                       "--backend-name", sc.backend, "--filter", sc.filter, "--route", sc.route,
                       "--fault", sc.fault.spec, "--frames", str(sc.frames),
                       "--timeout", f"{sc.timeout:g}", "--measure"])


def sweep(base_scenarios, preload: str, jobs: int = 2, progress=None, limit=None,
          results=None, expect=NOTHING, pool=None) -> dict:
    """build -> (number of sites, [Site]) for each scenario (one per build); `limit`
    fails only the first sites; `expect` is the case's word on the runs (runner.Expect).
    The censuses and the sites run through the same fork servers (`pool`'s, left
    running, or the sweep's own)."""
    return sweep_many({None: base_scenarios}, preload, jobs, progress, limit, results,
                      expect, pool)[None]


def sweep_many(groups: dict, preload: str, jobs: int = 2, progress=None, limit=None,
               results=None, expect=NOTHING, pool=None, shard=None, extra=None) -> dict:
    """Several sweeps at once: key -> [scenario, one per build] gives key -> build ->
    Found. Every census runs first, in one batch, then the sites, the longest first (a run
    the case says hangs before the runs that end); with `shard` (K, N) only the sites
    harness/judge/shard.py gives shard K of N (every census runs in every shard), so a
    Found then holds those sites of its build only. `extra` goes into each site's
    scenario, not the censuses' (harness/experiments/coverage.py: count what the faults ran)."""
    with servers(pool) as pool:
        return _sweep(groups, preload, jobs, progress, limit, results, expect, pool, shard,
                      extra)


def _sweep(groups, preload, jobs, progress, limit, results, expect, pool, shard,
           extra=None) -> dict:
    from harness.judge import shard as sharding
    base = [(key, sc) for key, scs in groups.items() for sc in scs]
    clean = run_all([census(sc) for _, sc in base], preload, jobs=jobs, expect=expect,
                    pool=pool)
    out, plans, seen = {key: {} for key in groups}, [], {}
    for (key, sc), r in zip(base, clean):
        ok = r.outcome in (Outcome.PASS, Outcome.MEASURED)
        calls = census_calls(r) if ok else []
        out[key][sc.build] = Found(len(calls), [], r)
        seen[(key, sc.build)] = ((r.record.frames or []) if ok else None,
                                 dict(calls))
        function = census_functions(r)
        plans += [(key, replace(census(sc), fault=first_value(
            replace(sc.fault, skip=i, count=1), function.get(i, ""), sc.tree),
            extra={**sc.extra, **(extra or {})}))
                  for i, _ in (calls if limit is None else calls[:limit])]
    costs = [sharding.cost(sc, expect) for _, sc in plans]
    names = [(f"{key}\0{sc.build}", sc.fault.skip) for key, sc in plans]
    mine = sharding.mine(names, shard) if shard else range(len(plans))
    order = sorted(mine, key=lambda k: (-costs[k], k))  # the longest first
    runs = run_all([plans[k][1] for k in order], preload, jobs=jobs, progress=progress,
                   results=results, expect=expect, pool=pool)
    for k, r in zip(order, runs):
        key, sc = plans[k]
        reference, where = seen[(key, sc.build)]
        i = sc.fault.skip
        out[key][sc.build][1].append(Site(sc.build, i, classify(r, reference), r,
                                          reproducer(sc), where.get(i, "")))
    for found in out.values():
        for _, sites in found.values():
            sites.sort(key=lambda s: s.index)
    return out


def first_value(fault, function: str, tree_path):
    """The fault as the spec gives it where its value is in the failed call's own fault
    profile, else with the first value of that profile (a family's functions fail with
    values of their own: EINVAL is posix_memalign()'s, not malloc()'s;
    ORT_RUNTIME_EXCEPTION is Run()'s); as given where the census did not say which
    function the call was."""
    from pathlib import Path
    from harness.compile import families
    from harness.judge import profiles
    from harness.obtain.tree import Tree
    family = families.FAMILIES.get(fault.kind)
    if family is None or not function or function not in family.functions:
        return fault
    every = profiles.profile(family.name, function, [Tree("sweep", Path(tree_path), {})])
    return fault if fault.value_text in every else families.failing(fault, every[0])
