"""`python -m harness run`: the case's rows (or the faults given) on one backend and filter,
and their table."""

from harness import inputs
from harness.commands import common, options
from harness.errors import HarnessError
from harness.run import routes


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run the case's rows on one backend and filter and print "
                                   "their table")
    p.add_argument("--build", help="comma list of tree names of the case's layout or "
                   "built-tree paths (default: the two trees the case compares)")
    p.add_argument("--backend-name", "--dnn-backend", default="onnx", dest="backend_name",
                   help="the DNN backend the filter uses (default onnx)")
    p.add_argument("--filter", default="dnn_processing",
                   help="dnn_processing, dnn_detect or dnn_classify, or another graph of "
                        "one (dnn_detect.yolo)")
    p.add_argument("--route", default="flush", choices=tuple(routes.ROUTES),
                   help="flush: the stand-in flush at EOF; frame: fail the backend's "
                        "own thread start for the last frame; sweep: armed from the first "
                        "frame on; setup: armed while the graph is made")
    p.add_argument("--fault", action="append",
                   help="pthread_create=ENAME, flush=AVERROR(ENAME) or none; repeatable "
                        "(default: the case's faults)")
    p.add_argument("--model", help="model file (default: a generated identity model)")
    p.add_argument("--expect", default="", metavar="TREE",
                   help="judge every build against the expectations of this tree of the two "
                        "the case compares")
    p.add_argument("--injector", default="preload", choices=("preload", "wrap"))
    p.add_argument("--frames", type=inputs.frames, default=2,
                   help=f"frames pushed (default 2; 1 to {inputs.MAX_FRAMES})")
    common.add_report_options(p)
    common.add_build_options(p)
    p.set_defaults(func=run, check=check)


def check(args) -> None:
    case = common.check_builds(args)
    if args.expect and args.expect not in case.pair:
        raise HarnessError(f"--expect: unknown tree '{args.expect}' (the trees case "
                           f"{args.case} compares: {', '.join(case.pair)})")
    backends, filters = options.graph_names(args.backend_name, args.filter)
    if len(backends) > 1 or len(filters) > 1:
        raise HarnessError("run takes one --backend-name and one --filter (sweep and diff "
                           "take lists)")
    options.has_graph(backends, filters)
    check_faults(args.fault, args.injector)
    common.check_report_options(args)
    if args.model is not None:
        from harness.run import modelfile
        modelfile.check(inputs.input_file("--model", args.model), args.backend_name)


def check_faults(specs, injector: str) -> None:
    """--fault specs, each one a fault of the harness; with --injector wrap, each one a
    wrapper links (not a family only an LD_PRELOAD interposer makes)."""
    from harness.compile.families import FAMILIES
    from harness.run import faults
    parsed = [faults.parse(s) for s in specs or ()]
    if injector != "wrap":
        return
    bad = [f for f in parsed if f.kind in FAMILIES and not FAMILIES[f.kind].link_time
           and "wrap" not in FAMILIES[f.kind].stanza.variants]
    if bad:
        linked = [n for n, f in FAMILIES.items() if "wrap" in f.stanza.variants]
        raise HarnessError(f"--injector wrap links only the {', '.join(linked)} wrapper: "
                           f"'{bad[0].spec}' needs the {bad[0].kind} interposer "
                           "(--injector preload)")


def run(args) -> int:
    from harness.run import chains as graphs, matrix, runner
    from harness.judge import report
    case = common.case_of(args)
    need = graphs.needs(args.backend_name, args.filter) \
        if (args.backend_name, args.filter) in graphs.GRAPHS else {args.backend_name}
    plan = common.plan(args, need, common.tree_names(args))
    trees = [matrix.resolve_tree(b, plan) for b in common.builds(args)]
    scs = matrix.scenarios(trees, args.backend_name, args.filter, args.fault or
                           list(case.part("faults")), model=args.model, expect=args.expect,
                           injector=args.injector, timeout=args.timeout, route=args.route,
                           frames=args.frames)
    preload = matrix.preload_library()

    results = runner.run(scs, preload, jobs=args.jobs, progress=runner.progress,
                         results=args.results or None, expect=case.expect)
    title = f"{args.backend_name} / {args.filter}" + (" / frame route" if args.route == "frame" else "")
    if args.expect:
        title += f" (judged against the {args.expect} expectations)"
    text = report.markdown(results, title)
    print(text)
    status = common.judged_status(results, args.measure)
    common.write_reports(args, results, text + "\n", "run", trees, status)
    return status
