"""`python -m harness sweep`: every site of a family failed in turn, on each backend, filter
and route asked for, classified and held to what the case expects."""

import sys

from harness import inputs
from harness.commands import common, options
from harness.compile.families import sweep_fault
from harness.errors import ExitStatus, HarnessError
from harness.paths import write_file


def add_parser(sub) -> None:
    p = sub.add_parser("sweep", help="fail every call of a family in turn, classify each run")
    p.add_argument("--build", help="comma list of trees (default: the two the case compares)")
    p.add_argument("--backend-name", default="tf", dest="backend_name",
                   help="comma list of the backends the filter uses (default tf)")
    p.add_argument("--filter", default="dnn_processing",
                   help="comma list; pairs with no graph on the trees' release are skipped "
                        "with the reason")
    p.add_argument("--fault", default="pthread_create",
                   help="the family, with the failing term: pthread_create, malloc, "
                        "wrap:<ff_symbol>, or e.g. 'malloc=1*return(ENOMEM),caller=_ffdnn.'")
    common.add_route_option(p, "frames")
    p.add_argument("--limit", type=inputs.limit,
                   help="fail only the first N sites of each build (N at least 1)")
    common.add_jobs_option(p, "runs")
    p.add_argument("--json", metavar="FILE", help="write the sweeps as JSON")
    common.add_shard_option(p)
    common.add_results_option(p)
    common.add_build_options(p)
    p.set_defaults(func=run, check=check)


def check(args) -> None:
    from harness.run import faults
    common.check_builds(args)
    options.has_graph(*options.graph_names(args.backend_name, args.filter))
    faults.parse(sweep_fault(args.fault))
    options.report_files(json=args.json)
    inputs.results_dir(args.results)
    options.route(args.route)


def expected(case, backend: str, filt: str, family: str, route: str):
    """What the case says of a sweep: its sweep_sites (each call's class) or sweep (one
    class for every site, None for a family with no site), `...` for nothing said. The
    frames route is keyed (backend, filter, family); another route adds its name."""
    key = (backend, filt, family) + (() if route == "frames" else (route,))
    if key in case.sweep_sites:
        return case.sweep_sites[key]
    # a case that says nothing of sweeps lacks a part the command needs (bad input)
    sweeps = case.sweep if case.sweep is not None or case.sweep_sites else case.part("sweep")
    return (sweeps or {}).get(key, (...,))[0]


def problems(case, groups: dict, found: dict) -> list:
    """Every problem of every sweep, each line naming its backend, filter and route."""
    from harness.judge import sweep
    return [f"{g['backend']} / {g['filter']} / {g['route']}: {p}"
            for key, g in groups.items()
            for p in sweep.problems(found[key], expected(case, g["backend"], g["filter"],
                                                         g["family"], g["route"]))]


def to_json(found: dict, groups: dict) -> dict:
    """The sweeps' data for the envelope: each group with, per build, its count, its census
    and the runs (the sites this run failed: all, or a shard's)."""
    def census(r):
        leaks = r.record.leaks.to_dict() if r is not None and r.record.leaks is not None else None
        return {"outcome": r.outcome.value, "reason": r.reason,
                "injector": bool(r.record.injector),
                **({"leaks": leaks} if leaks is not None else {})} if r is not None else None
    return {key: {**g, "builds": {b: {"sites": n, "census": census(f.census),
                                      "runs": [{"call": s.index + 1, "class": s.cls.value,
                                                "where": s.where, "reproduce": s.command,
                                                **s.result.to_dict()} for s in sites]}
                                  for b, f in found[key].items() for n, sites in [f]}}
            for key, g in groups.items()}


def run(args) -> int:
    from harness.experiments import sweep as sweeps
    from harness.judge import shard as sharding, sweep
    from harness.run import chains as graphs, matrix, runner
    case = common.case_of(args)
    shard = sharding.parse(args.shard)
    if shard and not args.json:
        raise HarnessError("--shard needs --json FILE: the merge reads each shard's JSON")
    need = set().union(*(graphs.needs(b, f) for b in args.backend_name.split(",")
                         for f in args.filter.split(",") if (b, f) in graphs.GRAPHS))
    plan = common.plan(args, need, common.tree_names(args))
    trees = [matrix.resolve_tree(b, plan) for b in common.builds(args)]
    fault = sweep_fault(args.fault)
    routes = sweeps.route_names(args.route)
    have = trees[0].backends
    pairs, skipped = [], []
    for backend in args.backend_name.split(","):
        for filt in args.filter.split(","):
            why = graphs.not_on_trees(trees, backend, filt)
            if why or (backend, filt) not in graphs.GRAPHS \
                    or not graphs.needs(backend, filt) <= have:
                skipped.append(f"{backend} / {filt}: skipped: {why or 'not in the built trees'}")
            else:
                pairs.append((backend, filt))
    if not pairs:  # nothing to sweep is bad input, not a sweep that found nothing
        raise HarnessError(f"nothing to sweep: {'; '.join(skipped)}")
    for line in skipped:
        print(f"- {line}")
    scenarios, groups = {}, {}
    for backend, filt in pairs:
        for route in routes:
            name = sweeps.ROUTE_NAMES[route]
            scs = matrix.scenarios(trees, backend, filt, [fault], route=route)
            key = backend if filt == "dnn_processing" else f"{backend}/{filt}"
            key += "" if name == "frames" else f"/{name}"
            scenarios[key] = scs
            groups[key] = {"backend": backend, "filter": filt, "route": name,
                           "family": scs[0].fault.site, "fault": scs[0].fault.spec,
                           "title": f"{backend} / {filt} / {name} route: every site of "
                                    f"`{scs[0].fault.spec}` failed in turn"}
    found = sweeps.sweep_many(scenarios, matrix.preload_library(), args.jobs, runner.progress,
                              args.limit, results=args.results or None, expect=case.expect,
                              shard=shard)
    bad = problems(case, groups, found)
    status = ExitStatus.FAIL if bad and not shard else ExitStatus.OK  # a shard's: the merge's
    for key, g in groups.items():
        print(sweep.markdown(found[key], g["title"]))
    publish(args.json, trees, status, case.name, shard,
            {"fault": fault, "routes": [sweeps.ROUTE_NAMES[r] for r in routes],
             "pairs": [list(p) for p in pairs], "limit": args.limit},
            skipped, bad, found, groups)
    return status


def publish(path, trees: list, status: int, case: str, shard, inputs: dict, skipped: list,
            bad: list, found: dict, groups: dict) -> None:
    """A sweep's --json (the command envelope around its sweeps), and its problems on
    stderr; a sweep and the merge of its shards both end here."""
    import json

    from harness.judge import envelope
    if path:
        write_file("--json", path, json.dumps(envelope.envelope(
            "sweep", trees, status, case=case, shard=list(shard) if shard else None,
            inputs=inputs, skipped=skipped, problems=bad, sweeps=to_json(found, groups)),
            indent=1) + "\n")
    for p in bad:
        print(f"- {p}", file=sys.stderr)
