"""python -m harness: sub-commands, and the one place exceptions become exit statuses."""

import argparse
import signal
import sys

from harness import inputs
from harness.caseload import DEFAULT as DEFAULT_CASE
from harness.compile.families import sweep_fault
from harness.errors import HarnessError
from harness.paths import write_file


class UsageError(HarnessError):
    """The parser refused the command line: one line, the usage stays under --help."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        command = self.prog.removeprefix("python -m harness").strip()
        raise UsageError(f"{command + ': ' if command else ''}{message} (see --help)")


def _case(args):
    """The case the command judges against (cases/; --case, default caseload.DEFAULT)."""
    from harness import caseload
    return caseload.load(args.case)


def _builds(args) -> list:
    """--build's trees, or the two the case compares (its PAIR)."""
    return [b for b in (args.build or ",".join(_case(args).PAIR)).split(",") if b]


def _plan(args, need=(), names=()):
    """The trees' plan: the case's LAYOUT (cases/), or the refs of --git-dir (named as the
    case's PAIR). With no --backend and no FFDNN_BACKENDS, the built backend set that
    covers `need` for the trees `names` (the case's PAIR when empty, all the layout's when
    None; harness/obtain/builtsets.py)."""
    from harness.obtain.builtsets import backend_set
    from harness.obtain.trees import Plan
    case = _case(args)
    layout = case.LAYOUT
    names = case.PAIR if names == () else names
    refs = {}
    if args.git_dir:
        refs = dict(zip(case.PAIR, (args.from_ref, args.to_ref)))
        names = tuple(refs)
    backend = backend_set(args.backend, set(need), names or layout.names, layout)
    return Plan(backend, layout, source_file=args.source, repo=args.git_dir, refs=refs,
                release=args.release)


def _tree_names(args) -> tuple:
    """The tree names in --build that are trees of the case's layout (paths are not
    looked up by backend set)."""
    case = _case(args)
    return tuple(b for b in _builds(args) if b in case.LAYOUT.names) or case.PAIR


def _write_reports(args, results, markdown: str) -> None:
    from harness.judge import report
    if getattr(args, "json", None):
        write_file("--json", args.json, report.to_json(results))
    if getattr(args, "junit", None):
        write_file("--junit", args.junit, report.junit(results))
    if getattr(args, "markdown", None):
        write_file("--markdown", args.markdown, markdown)


def cmd_build(args) -> int:
    from harness.compile import ffi_build
    if args.sanitizer:  # a variant's backend set is the one its claim needs
        from harness.judge import sanitizer
        plan = sanitizer.plan(args.sanitizer, _case(args).LAYOUT, source_file=args.source,
                              repo=args.git_dir)
    else:
        plan = _plan(args, names=(args.tree,) if args.tree else None)
    # each tree's cffi module compiles while the next tree builds (a variant runs only its
    # ffmpeg_g: no module)
    built, modules = [], []
    try:
        for name in ([args.tree] if args.tree else plan.names):
            built.append(plan.get(name))
            if not args.sanitizer:
                modules.append(ffi_build.start(built[-1]))
        for process in modules:
            ffi_build.finish(process)
    finally:  # a build that failed or was interrupted: the compiles end too, cleaning up
        for process in modules:
            if process and process.poll() is None:
                process.send_signal(signal.SIGINT)
                process.wait()
    for tree in built:
        s = tree.stamp
        print(f"{tree.name}: {tree.path} ({s['warning_count']} warning lines, "
              f"series {len(s['series'])} patches, built in {s['seconds']['total']} s)")
    from harness.judge import series
    needs = getattr(_case(args), "TABLE_NEEDS", {})
    first = _case(args).LAYOUT.names[0]  # the release itself: no patch of the series
    for line in series.notes([t for t in built if t.name.split("-")[0] != first], needs):
        print(f"- {line}")
    return 0


def cmd_probe(args) -> int:
    """What each tree has, read from the tree (harness/obtain/probe.py)."""
    from harness.obtain import probe
    from harness.run import chains, matrix
    if args.releases:
        from harness.judge import releasetable
        print(releasetable.markdown(_case(args)))
        return 0
    plan = _plan(args)
    pairs = [(b, f) for b in chains.BACKENDS for f in chains.FILTERS]
    for name in _builds(args):
        tree = matrix.resolve_tree(name, plan, build=False)
        print(f"## {tree.name}: {tree.path}")
        for line in probe.facts(tree.src).describe(pairs):
            print(f"- {line}")
    return 0


def judged_status(results, measure: bool) -> int:
    """The exit status of a command that runs scenarios (harness/run/outcome.py), with a line
    on stderr for each run that no expectation judged, when that is what fails it."""
    from harness.run.outcome import exit_status, unjudged
    if not measure:
        for r in unjudged(results):
            print(f"not judged: {r.scenario.id}: {r.outcome.value}: no expectation for this "
                  "build and fault (--measure for a measurement only)", file=sys.stderr)
    return exit_status(results, measure)


def cmd_run(args) -> int:
    from harness.run import chains as graphs, matrix, runner
    from harness.judge import report
    case = _case(args)
    need = graphs.needs(args.backend_name, args.filter) \
        if (args.backend_name, args.filter) in graphs.GRAPHS else {args.backend_name}
    plan = _plan(args, need, _tree_names(args))
    trees = [matrix.resolve_tree(b, plan) for b in _builds(args)]
    scs = matrix.scenarios(trees, args.backend_name, args.filter, args.fault or
                           list(case.FAULTS), model=args.model, expect=args.expect,
                           injector=args.injector, timeout=args.timeout, route=args.route,
                           frames=args.frames)
    preload = matrix.preload_library()

    results = runner.run(scs, preload, jobs=args.jobs, progress=runner.progress,
                         results=args.results or None, expect=case.EXPECT)
    title = f"{args.backend_name} / {args.filter}" + (" / frame route" if args.route == "frame" else "")
    if args.expect:
        title += f" (judged against the {args.expect} expectations)"
    text = report.markdown(results, title)
    print(text)
    _write_reports(args, results, text + "\n")
    return judged_status(results, args.measure)


def cmd_table(args) -> int:
    from harness.run import chains as graphs, matrix, runner
    from harness.judge import report, series
    case = _case(args)
    plan = _plan(args)  # no need: every table of every backend built
    trees = [matrix.resolve_tree(b, plan) for b in case.PAIR]
    have = {b["name"] for b in trees[0].stamp["backends"]}
    groups, notes = [], series.notes(trees, getattr(case, "TABLE_NEEDS", {}))
    for title, table in case.TABLES.items():
        route, faults = table.route, list(table.faults or case.FAULTS)
        for backend, filt in table.pairs:
            key = f"{backend} / {filt}"
            why = graphs.not_on_trees(trees, backend, filt)
            if why:
                notes.append(f"{title}: {key}: {why}")
            elif (backend, filt) not in graphs.GRAPHS:
                notes.append(f"{title}: {key}: the harness has no graph for it yet "
                             "(harness/run/chains.py)")
            elif not graphs.needs(backend, filt) <= have:
                notes.append(f"{title}: {key}: not built (backends: {', '.join(sorted(have))})")
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
                            expect=case.EXPECT, pool=pool)
            results += rs
            tables.append(report.markdown(rs, title))
            print(tables[-1], flush=True)
    if notes:
        print("\n".join(f"- {n}" for n in notes))
    text = "\n".join(tables + [f"- {n}" for n in notes])
    _write_reports(args, results, text + "\n")
    return judged_status(results, args.measure)


def cmd_sweep(args) -> int:
    import json

    from harness.run import chains as graphs, matrix, runner
    from harness.judge import sweep
    case = _case(args)
    need = set().union(*(graphs.needs(b, f) for b in args.backend_name.split(",")
                         for f in args.filter.split(",") if (b, f) in graphs.GRAPHS))
    plan = _plan(args, need, _tree_names(args))
    trees = [matrix.resolve_tree(b, plan) for b in _builds(args)]
    fault = sweep_fault(args.fault)
    routes = sweep.route_names(args.route)
    have = {b["name"] for b in trees[0].stamp["backends"]}
    found, bad, pairs, skipped = {}, [], [], []
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
    for backend, filt in pairs:
        for route in routes:
            name = sweep.ROUTE_NAMES[route]
            scs = matrix.scenarios(trees, backend, filt, [fault], route=route)
            key = backend if filt == "dnn_processing" else f"{backend}/{filt}"
            key += "" if name == "frames" else f"/{name}"
            found[key] = sweep.sweep(scs, matrix.preload_library(), args.jobs,
                                     runner.progress, args.limit,
                                     results=args.results or None, expect=case.EXPECT)
            print(sweep.markdown(found[key], f"{backend} / {filt} / {name} route: every "
                                 f"site of `{scs[0].fault.spec}` failed in turn"))
            # the case's SWEEP_SITES (each call's class) or SWEEP (one class for every
            # site, None for a family with no site); the frames route is keyed
            # (backend, filter, family), another route adds its name
            family = (backend, filt, scs[0].fault.site) + (() if name == "frames" else (name,))
            want = getattr(case, "SWEEP_SITES", {}).get(family,
                                                        case.SWEEP.get(family, (...,))[0])
            bad += [f"{backend} / {filt} / {name}: {p}"
                    for p in sweep.problems(found[key], want)]
    if args.json:
        write_file("--json", args.json, json.dumps({
            be: {b: {"sites": n, "runs": [{"call": s.index + 1, "class": s.cls.value,
                                            "where": s.where, "reproduce": s.command,
                                            **s.result.to_dict()}
                                           for s in sites]}
                 for b, (n, sites) in f.items()} for be, f in found.items()}, indent=1))
    for p in bad:
        print(f"- {p}", file=sys.stderr)
    return 1 if bad else 0


def cmd_unchanged(args) -> int:
    from harness.run import matrix
    from harness.judge import unchanged as u
    plan = _plan(args, names=_tree_names(args))
    trees = [matrix.resolve_tree(b, plan) for b in _builds(args)]
    identity, rows = u.plan_rows({b["name"] for b in trees[0].stamp["backends"]})
    u.run_rows(trees, identity, rows, u.clip(trees[0], u.SHORT_CLIP if args.short else u.CLIP))
    print()
    print(u.markdown(identity, rows, [t.name for t in trees]))
    want = getattr(_case(args), "IDENTITY_MD5", None)
    for row in identity if want else ():
        got = next(iter(row.runs.values())).md5
        same = "reproduces" if got == want else "differs from"
        print(f"- {row.backend}: identity MD5 {got} {same} case {args.case}'s {want}")
    bad = u.problems(identity, rows)
    from harness.judge import trained
    tp = trained.plan({b["name"] for b in trees[0].stamp["backends"]}, trees[0], args.short,
                      getattr(_case(args), "TRAINED_ROWS", ()))
    trained.run(trees, tp)
    text, more = trained.report(tp, [t.name for t in trees], args.short)
    print()
    print(text)
    for p in bad + more:
        print(f"- {p}")
    return 1 if bad or more else 0


def cmd_claims(args) -> int:
    import json

    from harness.judge import claims
    from harness.run import matrix
    known = claims.known_commits(_case(args))
    unknown = sorted(set(args.commit or ()) - set(known))
    if unknown:
        raise HarnessError(f"no claims for commit {', '.join(map(str, unknown))} "
                           f"(known: {', '.join(map(str, known))})")
    pair = _case(args).CLAIMS_PAIR
    plan = _plan(args, names=pair)
    trees = {b: matrix.resolve_tree(b, plan) for b in pair}
    ctx = claims.Context(_case(args), trees, matrix.preload_library(),
                         set(args.commit or ()) or None)
    rows = claims.rows(ctx)
    print(claims.markdown(rows, pair))
    if args.json:
        write_file("--json", args.json, json.dumps(rows, indent=1))
    bad = [r for r in rows if not claims.as_expected(r)]
    for r in bad:
        what = ("not judged" if claims.skipped(r) else "not measured" if claims.unmeasured(r)
                else "unexpected verdict")
        print(f"- {what} for {r['id']}: {r['verdict']}", file=sys.stderr)
    return claims.exit_status(rows)


def add_report_options(p) -> None:
    """What a command that runs scenarios takes: parallelism, timeout, report files."""
    p.add_argument("--jobs", "-j", type=inputs.jobs, default=2, help="scenarios at a time "
                   f"(1 to {inputs.max_jobs()})")
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


def add_results_option(p) -> None:
    p.add_argument("--results", metavar="DIR", default="results",
                   help="where a CRASH or HANG leaves its artifacts, DIR/<scenario id>/ "
                        "(default results/; '' keeps none)")


def add_build_options(p) -> None:
    p.add_argument("--backend", default=None,
                   help="backends to configure: onnx, openvino, tf, torch, a comma list, "
                        "'default' (onnx) or 'all' (default: FFDNN_BACKENDS, else the "
                        "built set that covers the command, as `make` built it)")
    p.add_argument("--case", default=DEFAULT_CASE,
                   help=f"the case whose claims a run is judged against (cases/; default "
                        f"{DEFAULT_CASE})")
    p.add_argument("--source", metavar="TARBALL",
                   help="FFmpeg release tarball to use (checked against the pinned sha256)")
    p.add_argument("--release", metavar="VERSION",
                   help="another FFmpeg release, fetched like the pinned one and checked "
                        "against its recorded sha256 (harness/obtain/releases.py); each patch "
                        "of the series is tried with git am -3, those that do not apply are "
                        "left out and named")
    p.add_argument("--git-dir", metavar="DIR",
                   help="bring your own tree: an FFmpeg git clone; builds before/after from refs")
    p.add_argument("--from-ref", "--before-ref", dest="from_ref", default="HEAD~1",
                   help="with --git-dir: the ref before the change (--before-ref is an alias)")
    p.add_argument("--to-ref", "--after-ref", dest="to_ref", default="HEAD",
                   help="with --git-dir: the ref after it (--after-ref is an alias)")


def parser() -> argparse.ArgumentParser:
    from harness import __version__
    ap = Parser(prog="python -m harness", description=__doc__)
    ap.add_argument("--version", action="version", version=f"ffmpeg-dnn-fault-harness {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("build", help="build (or find in the cache) the base/before/after trees")
    p.add_argument("--tree", help="only this tree (and its parents)")
    p.add_argument("--sanitizer", choices=("asan", "tsan"),
                   help="a sanitizer variant of base and before (FFmpeg's gcc-asan or "
                        "gcc-tsan toolchain) with the backends its claim needs")
    add_build_options(p)
    p.set_defaults(func=cmd_build)
    p = sub.add_parser("probe", help="what each built tree has, lacks and cannot express")
    p.add_argument("--build", help="comma list of tree names of the case's layout or "
                   "built-tree paths (default: the two trees the case compares)")
    p.add_argument("--releases", action="store_true",
                   help="every pinned release side by side (harness/obtain/releases.py): "
                        "what each has, the patches its built trees took, and each row of "
                        "the case's tables, expressible or why not")
    add_build_options(p)
    p.set_defaults(func=cmd_probe)
    p = sub.add_parser("run", help="run the case's rows on one backend and filter and print "
                                   "their table")
    p.add_argument("--build", help="comma list of tree names of the case's layout or "
                   "built-tree paths (default: the two trees the case compares)")
    p.add_argument("--backend-name", "--dnn-backend", default="onnx", dest="backend_name",
                   help="the DNN backend the filter uses (default onnx)")
    p.add_argument("--filter", default="dnn_processing",
                   help="dnn_processing, dnn_detect or dnn_classify")
    p.add_argument("--route", default="flush", choices=("flush", "frame", "sweep"),
                   help="flush: the PR's stand-in flush at EOF; frame: fail the backend's "
                        "own thread start for the last frame")
    p.add_argument("--fault", action="append",
                   help="pthread_create=ENAME, flush=AVERROR(ENAME) or none; repeatable "
                        "(default: the case's FAULTS)")
    p.add_argument("--model", help="model file (default: a generated identity model)")
    p.add_argument("--expect", default="", metavar="TREE",
                   help="judge every build against the expectations of this tree of the two "
                        "the case compares")
    p.add_argument("--injector", default="preload", choices=("preload", "wrap"))
    p.add_argument("--frames", type=inputs.frames, default=2,
                   help=f"frames pushed (default 2, as the PR; 1 to {inputs.MAX_FRAMES})")
    add_report_options(p)
    add_build_options(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("table", help="the case's tables on every backend and filter built")
    p.add_argument("--all", action="store_true", help="every table (the default)")
    add_report_options(p)
    add_build_options(p)
    p.set_defaults(func=cmd_table)

    p = sub.add_parser("sweep", help="fail every call of a family in turn, classify each run")
    p.add_argument("--build", help="comma list of trees (default: the two the case compares)")
    p.add_argument("--backend-name", default="tf", dest="backend_name",
                   help="comma list of the backends the filter uses (default tf)")
    p.add_argument("--filter", default="dnn_processing",
                   help="comma list; pairs with no graph on 9.0.2 are skipped with the reason")
    p.add_argument("--fault", default="pthread_create",
                   help="the family, with the failing term: pthread_create, malloc, "
                        "wrap:<ff_symbol>, or e.g. 'malloc=1*return(ENOMEM),caller=_ffdnn.'")
    p.add_argument("--route", metavar="LIST", default="frames",
                   help="frames (the fault armed before the first frame: the backend's own "
                        "code throughout), flush (armed once the frames came out: the PR's "
                        "stand-in flush at EOF), or both, comma-separated (default frames)")
    p.add_argument("--limit", type=inputs.limit,
                   help="fail only the first N sites of each build (N at least 1)")
    p.add_argument("--jobs", "-j", type=inputs.jobs, default=2,
                   help=f"runs at a time (1 to {inputs.max_jobs()})")
    p.add_argument("--json", metavar="FILE")
    add_results_option(p)
    add_build_options(p)
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("diff", help="what a change does under faults: every site's class, "
                                    "from-tree -> to-tree; exit 1 on a regression")
    from harness.judge import diffcmd
    diffcmd.add_arguments(p)
    p.add_argument("--case", default=DEFAULT_CASE,
                   help=f"the case that names known hangs (cases/; default {DEFAULT_CASE})")
    add_results_option(p)
    p.set_defaults(func=diffcmd.cmd)

    p = sub.add_parser("merge", help="the shards of a diff (diff --shard K/N --json) as one "
                                     "diff: its report, verdict and exit status")
    from harness.judge import merge
    merge.add_arguments(p)
    p.set_defaults(func=merge.cmd)

    p = sub.add_parser("claims", help="the case's commit claims, on the two trees its claims "
                                      "compare")
    p.add_argument("--commit", type=inputs.commit, action="append", metavar="N",
                   help="only this commit's claims; repeatable")
    p.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    add_build_options(p)
    p.set_defaults(func=cmd_claims)

    from harness import cachecmd
    cachecmd.add_parser(sub)

    p = sub.add_parser("unchanged", help="ffmpeg CLI output, before against after")
    p.add_argument("--build", help="comma list of trees (default: the two the case compares)")
    p.add_argument("--short", action="store_true", help="a 2 s 320x180 clip instead of 24 s 720p")
    add_build_options(p)
    p.set_defaults(func=cmd_unchanged)
    return ap


def main(argv=None) -> int:
    from harness import precheck, reaper
    try:
        with reaper.installed():  # SIGTERM, SIGINT: what the command started ends with it
            args = parser().parse_args(argv)
            precheck.check(args)  # every option, before any work
            return args.func(args)
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt:
        sig = reaper.signalled() or signal.SIGINT
        print(f"error: interrupted ({signal.Signals(sig).name}); its processes ended, nothing "
              "half-built was kept", file=sys.stderr)
        return 128 + sig
