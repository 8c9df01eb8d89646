"""What the sub-commands share: the case a command judges against, its trees, the option
groups and their checks (of the pieces in harness/commands/options.py), the report files
and the exit status of a command that runs scenarios."""

import sys

from harness import inputs
from harness.paths import write_file


def case_of(args):
    """The case the command judges against (harness/cases/; --case, default caseload.default())."""
    from harness import caseload
    return caseload.load(args.case)


def builds(args) -> list:
    """--build's trees, or the two the case compares (its pair)."""
    return [b for b in (args.build or ",".join(case_of(args).pair)).split(",") if b]


def plan(args, need=(), names=()):
    """The trees' plan: the case's layout (harness/cases/), or the refs of --git-dir (named as the
    case's pair). With no --backend and no FFDNN_BACKENDS, the built backend set that
    covers `need` for the trees `names` (the case's pair when empty, all the layout's when
    None; harness/obtain/builtsets.py)."""
    from harness.obtain.builtsets import backend_set
    from harness.obtain.trees import Plan
    case = case_of(args)
    layout = case.part("layout")
    names = case.pair if names == () else names
    refs = {}
    if args.git_dir:
        refs = dict(zip(case.pair, (args.from_ref, args.to_ref)))
        names = tuple(refs)
    backend = backend_set(args.backend, set(need), names or layout.names, layout)
    return Plan(backend, layout, source_file=args.source, repo=args.git_dir, refs=refs,
                release=args.release)


def tree_names(args) -> tuple:
    """The tree names in --build that are trees of the case's layout (paths are not
    looked up by backend set)."""
    case = case_of(args)
    return tuple(b for b in builds(args) if b in case.part("layout").names) or case.pair


def write_reports(args, results, markdown: str, command: str, trees: list,
                  status: int) -> None:
    """--json (the command envelope around the runs), --junit and --markdown."""
    import json
    import platform

    from harness.judge import envelope, report
    if getattr(args, "json", None):
        write_file("--json", args.json, json.dumps(envelope.envelope(
            command, trees, status, platform=platform.platform(),
            results=[r.to_dict() for r in results]), indent=1) + "\n")
    if getattr(args, "junit", None):
        write_file("--junit", args.junit, report.junit(results))
    if getattr(args, "markdown", None):
        write_file("--markdown", args.markdown, markdown)


def judged_status(results, measure: bool) -> int:
    """The exit status of a command that runs scenarios (harness/run/outcome.py), with a line
    on stderr for each run that no expectation judged, when that is what fails it."""
    from harness.run.outcome import exit_status, unjudged
    if not measure:
        for r in unjudged(results):
            print(f"not judged: {r.scenario.id}: {r.outcome.value}: no expectation for this "
                  "build and fault (--measure for a measurement only)", file=sys.stderr)
    return exit_status(results, measure)


def add_jobs_option(p, what: str) -> None:
    """--jobs: how many `what` (scenarios, runs) at a time."""
    n = inputs.default_jobs()
    p.add_argument("--jobs", "-j", type=inputs.jobs, default=n,
                   help=f"{what} at a time (1 to {inputs.max_jobs()}; default: the CPUs this "
                        f"process may use, plus one: {n})")


def add_report_options(p) -> None:
    """What a command that runs scenarios takes: parallelism, timeout, report files."""
    add_jobs_option(p, "scenarios")
    p.add_argument("--timeout", type=inputs.seconds, default=60.0,
                   help="seconds per scenario (above 0, finite)")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--junit", metavar="FILE", help="write the results as JUnit XML")
    p.add_argument("--measure", action="store_true",
                   help="a measurement only: runs no expectation judges (MEASURED, SKIP) "
                        "do not make the exit status 1 (without it they do)")
    p.add_argument("--markdown", metavar="FILE", help="write the report (what stdout "
                   "shows) as Markdown")
    add_results_option(p)


def check_report_options(args) -> None:
    """What add_report_options adds and no parser type checks: the report files, --results."""
    from harness.commands import options
    options.report_files(json=args.json, junit=args.junit, markdown=args.markdown)
    inputs.results_dir(args.results)


def add_results_option(p) -> None:
    p.add_argument("--results", metavar="DIR", default="results",
                   help="where a CRASH or HANG leaves its artifacts, DIR/<scenario id>/ "
                        "(default results/; '' keeps none)")


def add_tree_options(p, covers: str) -> None:
    """The trees a sweep-based command (diff, coverage, mutate) runs on, and how many runs
    at a time; `covers` says what the default backend set must cover."""
    add_jobs_option(p, "runs")
    p.add_argument("--backend", default=None,
                   help="backends the trees are configured with (as for build; default: "
                        f"FFDNN_BACKENDS, else {covers})")
    p.add_argument("--source", metavar="TARBALL", help="FFmpeg release tarball (as for build)")
    p.add_argument("--release", metavar="VERSION",
                   help="another FFmpeg release's trees (as for build)")


def add_build_options(p) -> None:
    p.add_argument("--backend", default=None,
                   help="backends to configure: onnx, openvino, tf, torch, a comma list, "
                        "'default' (onnx) or 'all' (default: FFDNN_BACKENDS, else the "
                        "built set that covers the command, as `make` built it)")
    from harness import caseload
    p.add_argument("--case", default=caseload.default(),
                   help=f"the case whose claims a run is judged against (harness/cases/; default "
                        f"{caseload.default()})")
    p.add_argument("--source", metavar="TARBALL",
                   help="FFmpeg release tarball to use (checked against the release's "
                        "pinned sha256)")
    p.add_argument("--release", metavar="VERSION",
                   help="another FFmpeg release than the one the case's series was adapted "
                        "to (its layout's), fetched like it and checked against its "
                        "recorded sha256 (harness/obtain/releases.py); each patch "
                        "of the series is tried with git am -3, those that do not apply are "
                        "left out and named; debian:SUITE (bookworm, trixie, sid) is the "
                        "release that suite ships with its source package's patches applied")
    p.add_argument("--git-dir", metavar="DIR",
                   help="bring your own tree: an FFmpeg git clone; builds before/after from refs")
    p.add_argument("--from-ref", "--before-ref", dest="from_ref", default="HEAD~1",
                   help="with --git-dir: the ref before the change (--before-ref is an alias)")
    p.add_argument("--to-ref", "--after-ref", dest="to_ref", default="HEAD",
                   help="with --git-dir: the ref after it (--after-ref is an alias)")


def check_build_options(args, sanitizer=None):
    """What add_build_options adds (and build's --sanitizer, refused with --git-dir),
    checked; the case."""
    from harness.commands import options
    case = options.tree_source(args.backend, args.release, args.case, args.source)
    options.clone(args.git_dir, args.release, sanitizer, args.from_ref, args.to_ref)
    return case


def check_builds(args):
    """The build options, then --build: trees of the case's layout (or built trees' paths)
    unless the trees are a clone's (--git-dir); the case."""
    from harness.commands import options
    case = check_build_options(args)
    if args.git_dir is None:
        options.trees("--build", args.build, case.part("layout"))
    return case


def check_sweep_options(args, **reports) -> None:
    """What the commands that run sweeps on trees of their own share (diff, coverage,
    mutate), after their trees', in this order: the backends and filters, the report
    files (`reports`, as the command names them, in the order said), --results, --patch,
    --route."""
    from harness.commands import options
    options.has_graph(*options.graph_names(args.backend_name, args.filter))
    options.report_files(**reports)
    inputs.results_dir(args.results)
    options.patches(args.patch)
    options.route(args.route)


def add_route_option(p, default: str | None) -> None:
    """--route of a sweep or a diff: which of the sweep's routes it runs."""
    p.add_argument("--route", metavar="LIST", default=default,
                   help="frames (the fault armed before the first frame: the backend's own "
                        "code throughout), flush (armed once the frames came out: the "
                        "stand-in flush at EOF, which starts an inference thread through "
                        "ff_dnn_start_inference_async()), setup (armed while the graph is "
                        "made: the filter's init, the model's loading), comma-separated "
                        f"(default {default or 'all three'})")


def add_diff_report_options(p) -> None:
    """The report files of a diff (diff, and merge of a diff's shards) besides --json."""
    p.add_argument("--markdown", metavar="FILE", help="write the report as markdown")
    p.add_argument("--html", metavar="FILE", help="write a self-contained page (a diff's): "
                                                  "the grid of sites by tree, coloured by class")
    p.add_argument("--junit", metavar="FILE", help="write JUnit XML (a diff's): a testcase per "
                                                   "site, a regression a failure with its "
                                                   "reproduce line")


def add_shard_option(p) -> None:
    """--shard K/N of a sweep or a diff (harness/judge/shard.py)."""
    p.add_argument("--shard", metavar="K/N",
                   help="run the censuses and shard K of N of the sites (a CI matrix job); "
                        "`python -m harness merge` puts the shards' --json back together")


def publish_diff(args, d, text: str, status: int, case: str | None, wrong: list,
                 extra: dict | None = None) -> None:
    """Print a diff's Markdown with the case's word on it (when a case's claims are the
    verdict) and write the files asked for: --markdown, --json (with the exit status the
    command returns), --html, --junit; in CI, the forge's annotations and job summary
    (harness/judge/annotations.py). diff and merge both end here."""
    import json

    from harness.judge import annotations, diff_html, diffreport, junit
    if case is not None:  # the case's claim is the verdict: said where the report is read
        text += "\n" + "\n".join([f"Case {case}: " + ("as it says." if not wrong else
                                   f"not as it says (exit {status}):")]
                                  + [f"- {w}" for w in wrong]) + "\n"
    print(text)
    if args.markdown:
        write_file("--markdown", args.markdown, text)
    if args.json:
        write_file("--json", args.json, json.dumps(
            {**diffreport.to_json(d), "exit_status": status, **(extra or {})}, indent=1) + "\n")
    if args.html:
        write_file("--html", args.html, diff_html.page(d))
    if getattr(args, "junit", None):
        write_file("--junit", args.junit, junit.junit(d, diffreport.WORDS.get(status, "FAIL"),
                                                      wrong, case))
    annotations.publish(d, text)  # in CI: an annotation per regression, the job's summary
