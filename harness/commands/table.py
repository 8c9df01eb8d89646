"""`python -m harness table`: every table of the case, on every backend and filter built."""

from harness.commands import common


def add_parser(sub) -> None:
    p = sub.add_parser("table", help="the case's tables on every backend and filter built")
    p.add_argument("--all", action="store_true", help="every table (the default)")
    common.add_report_options(p)
    common.add_build_options(p)
    p.set_defaults(func=run, check=check)


def check(args) -> None:
    common.check_build_options(args)
    common.check_report_options(args)


def run(args) -> int:
    from harness.run import chains as graphs, matrix, runner
    from harness.judge import report, series
    case = common.case_of(args)
    plan = common.plan(args)  # no need: every table of every backend built
    trees = [matrix.resolve_tree(b, plan) for b in case.pair]
    have = trees[0].backends
    groups, notes = [], series.notes(trees, case.table_needs)
    for title, table in case.part("tables").items():
        route, faults = table.route, list(table.faults or case.part("faults"))
        for backend, filt in table.pairs:
            key = f"{backend} / {filt}"
            why = graphs.not_on_trees(trees, backend, filt)
            if why:
                notes.append(f"{title}: {key}: {why}")
            elif (backend, filt) not in graphs.GRAPHS:
                notes.append(f"{title}: {key}: the harness has no graph for it yet "
                             "(harness/run/chains.py)")
            elif not graphs.needs(backend, filt) <= have:
                why = "; ".join(f"without {n}: {plan.left_out[n]}" for n in
                                sorted(graphs.needs(backend, filt) - have) if n in plan.left_out)
                notes.append(f"{title}: {key}: not built (backends: {', '.join(sorted(have))}"
                             f"{'; ' + why if why else ''})")
            else:
                timeout = min(args.timeout, table.timeout or args.timeout)
                groups.append((f"{title}: {key}", backend, filt, faults, timeout, route))
    # each table is printed as soon as its rows ran, the first (ONNX Runtime's) before the
    # others' models are even made (LibTorch's is compiled: about a minute, cold)
    preload, results, tables = matrix.preload_library(), [], []
    with runner.servers() as pool:
        for title, backend, filt, faults, timeout, route in groups:
            scs = matrix.scenarios(trees, backend, filt, faults, timeout=timeout, route=route)
            rs = runner.run(scs, preload, jobs=args.jobs, results=args.results or None,
                            expect=case.expect, pool=pool)
            results += rs
            tables.append(report.markdown(rs, title))
            print(tables[-1], flush=True)
    if notes:
        print("\n".join(f"- {n}" for n in notes))
    text = "\n".join(tables + [f"- {n}" for n in notes])
    status = common.judged_status(results, args.measure)
    common.write_reports(args, results, text + "\n", "table", trees, status)
    return status
