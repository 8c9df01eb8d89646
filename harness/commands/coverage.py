"""`python -m harness coverage`: which error branches of FFmpeg's DNN code the default sweep
of a tree takes (harness/experiments/coverage.py), per file and function, on the tree's
coverage variant (harness/obtain/covered.py): a tree of the case's layout (`--tree`,
default the second tree the case compares), or that tree plus patches (`--patch`,
built as `diff --patch` builds its to-tree)."""

import contextlib
import sys

from harness import inputs
from harness.errors import ExitStatus, HarnessError


def add_parser(sub) -> None:
    p = sub.add_parser("coverage", help="error-branch coverage of FFmpeg's DNN code under "
                                        "a tree's sweep: taken / total per file and function")
    p.add_argument("--tree", metavar="TREE",
                   help="a tree of the case's layout (default: the case's change, as "
                        "after + the follow-ups for --case followups, else the second tree "
                        "the case compares)")
    p.add_argument("--patch", action="append", default=[], metavar="FILE",
                   help="a git am-able patch applied on top of --tree; repeatable")
    add_sweep_options(p)
    p.add_argument("--unreachable", metavar="FILE",
                   help="the branches no fault can reach, each explained (default: "
                        "builds/unreachable-branches.txt)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained page")
    add_report_options(p, "of the branches a fault can reach were taken")
    p.set_defaults(func=run, check=check)


def check(args) -> None:
    from harness.commands import common, options
    case = options.tree_source(args.backend, args.release, args.case, args.source)
    options.tree("--tree", args.tree, case.part("layout"))
    common.check_sweep_options(args, json=args.json, markdown=args.markdown, html=args.html)


def add_report_options(p, under: str) -> None:
    """--fail-under, --json, --markdown, --case, --results (coverage, mutate)."""
    from harness import caseload
    from harness.commands import common
    p.add_argument("--fail-under", dest="fail_under", type=float, metavar="PCT",
                   help=f"exit 1 when fewer than PCT%% {under}")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON")
    p.add_argument("--markdown", metavar="FILE", help="write the report as Markdown")
    p.add_argument("--case", default=caseload.default(),
                   help=f"the case whose layout names the trees (default {caseload.default()})")
    common.add_results_option(p)


def add_sweep_options(p) -> None:
    """Which families, pairs and routes run, and the trees' backends (coverage, mutate)."""
    from harness.commands import common
    p.add_argument("--fault", action="append", metavar="FAMILY",
                   help="families, comma-separated or repeated (default: every family)")
    common.add_route_option(p, None)
    p.add_argument("--backend-name", dest="backend_name", metavar="LIST",
                   help="backends the filter uses (default: every one the tree has)")
    p.add_argument("--filter", metavar="LIST",
                   help="graphs: a filter's own (dnn_detect) or another of its "
                        "(dnn_detect.yolo), comma-separated (default: every graph)")
    common.add_tree_options(p, "the built set")


def tree(args, case, name: str, patches: list):
    """The tree `name` of the case's layout, or it plus `patches` (a change's tree)."""
    from harness.obtain.builtsets import backend_set
    from harness.obtain.patched import PatchedPlan
    from harness.obtain.trees import Plan
    from harness.run import matrix
    layout = case.part("layout")
    if name not in layout.names:
        raise HarnessError(f"--tree: unknown tree '{name}' (known: {', '.join(layout.names)})")
    backend = backend_set(args.backend, set(), (name,), layout)
    kw = dict(source_file=args.source, release=args.release)
    if patches:
        plan = PatchedPlan(backend, layout, on=name, patches=patches, **kw)
        plan.check_if_built()
        return matrix.resolve_tree(plan.patched, plan)
    return matrix.resolve_tree(name, Plan(backend, layout, **kw))


def change_of(args, case, name) -> tuple:
    """(the tree, the patches on it): those named, else the case's change when it is one
    on a tree of its layout (its `on` and `series`: the follow-ups' case is after + the
    follow-ups), else the second tree the case compares."""
    if name or args.patch or case.series is None:
        return name or case.pair[1], list(args.patch)
    return case.on, [str(case.series / n) for n in (case.series / "series").read_text().split()]


def publish(args, command: str, tree, status: int, text: str, data: dict) -> None:
    """The Markdown report on stdout and in --markdown, the JSON (the envelope around
    `data`) in --json (coverage, mutate)."""
    import json

    from harness.judge import envelope
    from harness.paths import write_file
    print(text)
    if args.markdown:
        write_file("--markdown", args.markdown, text)
    if args.json:
        write_file("--json", args.json, json.dumps(
            {**envelope.envelope(command, [tree], status), **data}, indent=1) + "\n")


def checked(args, option: str, given, default):
    """The families, routes, backends and filters asked for checked (bad input is one
    line, exit 2, before anything is built); the data file `option` names, else the
    default one."""
    from pathlib import Path

    from harness.commands.diff import check_names, families
    from harness.experiments import sweep
    families(args.fault)
    sweep.route_names(args.route)
    check_names(args)
    return inputs.input_file(option, given) if given else Path(default)


def groups(args, trees) -> list:
    """Every family's groups on every pair the trees can run, on the routes asked for."""
    from harness.commands.diff import families, pairs
    from harness.experiments import sweep
    from harness.experiments.diff import plan_groups
    return plan_groups(pairs(args, trees), families(args.fault), sweep.route_names(args.route))


def run(args) -> int:
    from harness import caseload
    from harness.experiments.coverage import measure
    from harness.judge import branchcov, branchreport
    from harness.obtain import covered
    from harness.paths import write_file
    from harness.run import matrix, runner
    case = caseload.load(args.case)
    data = checked(args, "--unreachable", args.unreachable, branchcov.UNREACHABLE)
    with contextlib.redirect_stdout(sys.stderr):  # builds say what they do: progress
        t = covered.instrumented(tree(args, case, *change_of(args, case, args.tree)))
        gs = groups(args, [t])
        print(f"coverage: {t.name}: {len(gs)} families x pairs x routes", flush=True)
        r = measure(t, gs, matrix.preload_library(), args.jobs, case.expect, runner.progress,
                    args.results or None, data)
    pct = r.totals()["percent_reachable"]
    # FAIL: a branch the data file says no fault reaches was taken, or a census failed, or
    # (with --fail-under) fewer branches taken than asked
    status = ExitStatus.FAIL if branchreport.problem_lines(r) or (
        args.fail_under is not None and pct < args.fail_under) else ExitStatus.OK
    publish(args, "coverage", t, status, branchreport.markdown(r), branchreport.to_json(r))
    if args.html:
        write_file("--html", args.html, branchreport.page(r))
    print(f"coverage: {r.runs} runs in {r.seconds['total']:.1f} s, "
          f"{pct}% of the reachable error branches taken, exit {status}", file=sys.stderr)
    return status
