"""`python -m harness diff`: which two trees (harness/commands/difftrees.py: a case's trees,
two refs of the user's clone, either plus `--patch FILE`), which families and pairs, and
the reports.
"""

import contextlib
import sys

from harness import inputs
from harness.commands.difftrees import (ChangeDoesNotBuild, check_combinations,
                                        does_not_build, same_refs, sides)
from harness.errors import ExitStatus, HarnessError

CONFIRM = 4  # as harness.experiments.diff.CONFIRM, without importing the runner for --help

def add_parser(sub) -> None:
    from harness import caseload
    from harness.commands import common
    p = sub.add_parser("diff", help="what a change does under faults: every site's class, "
                                    "from-tree -> to-tree; exit 1 on a regression")
    add_arguments(p)
    p.add_argument("--case", default=caseload.default(),
                   help=f"the case that names known hangs (harness/cases/; default {caseload.default()})")
    common.add_results_option(p)
    p.set_defaults(func=run, check=check)


def check(args) -> None:
    """Every option, in the order the first that fails is said: how the trees are got,
    which two (the series' or the clone's, not both), the names, files, patches, routes."""
    from harness.commands import common, options
    case = options.tree_source(args.backend, args.release, args.case, args.source)
    check_combinations(args)
    options.clone(args.git_dir, args.release, from_ref=args.from_ref, to_ref=args.to_ref)
    if args.git_dir is None:
        options.trees("--from", args.from_tree, case.part("layout"), one=True)
        options.trees("--to", args.to_tree, case.part("layout"), one=True)
    common.check_sweep_options(args, json=args.json, junit=args.junit,
                               markdown=args.markdown, html=args.html)


def add_arguments(p) -> None:
    from harness.commands import common
    p.add_argument("--from", dest="from_tree", metavar="TREE",
                   help="the tree before the change: a tree of the case's layout or a "
                        "built tree's path (default: the first of the two the case compares)")
    p.add_argument("--to", dest="to_tree", metavar="TREE",
                   help="the tree after it (default: the second the case compares; with "
                        "--patch, --from)")
    p.add_argument("--patch", action="append", default=[], metavar="FILE",
                   help="a git am-able patch applied on top of the to-tree; repeatable")
    p.add_argument("--git-dir", metavar="CLONE", help="your FFmpeg clone: diff two of its refs")
    p.add_argument("--from-ref", "--before-ref", dest="from_ref",
                   help="with --git-dir: the ref before (default HEAD~1; --before-ref is an "
                        "alias)")
    p.add_argument("--to-ref", "--after-ref", dest="to_ref",
                   help="with --git-dir: the ref after (default HEAD; with --patch, "
                        "--from-ref; --after-ref is an alias)")
    p.add_argument("--fault", action="append", metavar="FAMILY",
                   help="families, comma-separated or repeated (injectors/*.fi): "
                        "pthread_create, malloc, wrap (every wrapped helper) or "
                        "wrap:<ff_symbol>, a backend's API, or a spec (default: every family)")
    common.add_route_option(p, None)
    p.add_argument("--values", default="changed", metavar="MODE",
                   help="which values of each call's fault profile it is failed with: all, "
                        "changed (every value where the call's stack runs through the "
                        "change, the first elsewhere; the default) or one (the first)")
    p.add_argument("--focus", action="store_true",
                   help="run the censuses, then only the sites (and values) whose stack runs "
                        "through the change: a quick answer, said to be focused")
    p.add_argument("--output-may-change", dest="output_may_change", action="store_true",
                   help="a change of a graph's output with no fault (its censuses' frames) "
                        "is said, not failed: for a patch meant to change what a filter "
                        "gives (default: a regression)")
    p.add_argument("--fresh", action="store_true",
                   help="run every run of the from-tree again, none taken from those an "
                        "earlier diff against it kept in the cache (what it runs is kept)")
    p.add_argument("--backend-name", dest="backend_name", metavar="LIST",
                   help="backends the filter uses (default: every one both trees have)")
    p.add_argument("--filter", metavar="LIST",
                   help="graphs: a filter's own (dnn_detect) or another of its "
                        "(dnn_detect.yolo), comma-separated (default: every graph)")
    p.add_argument("--json", metavar="FILE", help="write the diff as JSON (with a schema field)")
    common.add_diff_report_options(p)
    common.add_shard_option(p)
    p.add_argument("--confirm", type=inputs.confirm, default=CONFIRM, metavar="N",
                   help="runs more of both sides of a site whose class changed; a site "
                        f"unsteady in both trees is flaky, not judged (default {CONFIRM})")
    common.add_tree_options(p, "the built set that covers the diff")


def families(texts) -> list:
    """Fault specs, one per family named (default: every family of the registry, one
    whose stanza has a window per function as one family per function)."""
    from harness.compile.families import FAMILIES, sweep_fault
    names = []
    for text in texts or [",".join(FAMILIES)]:
        names += [text] if "=" in text else [t.strip() for t in text.split(",") if t.strip()]
    out = []
    for n in names:
        fam = FAMILIES.get(n)
        for one in (fam.sites() if fam is not None else [n]):
            spec = sweep_fault(one)
            if spec not in out:
                out.append(spec)
    if not out:
        raise HarnessError("no fault family named")
    return out


def check_names(args) -> None:
    """Backend and filter names, before any tree is built."""
    from harness.run import chains as graphs
    for what, given, known in (("backend", args.backend_name, graphs.BACKENDS),
                               ("filter", args.filter, graphs.NAMES)):
        bad = [x for x in (given or "").split(",") if x and x not in known]
        if bad:
            raise HarnessError(f"unknown {what} '{bad[0]}' (known: {', '.join(known)})")


def pairs(args, trees) -> list:
    """(backend, filter) pairs with a graph whose backends both trees were built with."""
    from harness.run import chains as graphs
    backends = args.backend_name.split(",") if args.backend_name else graphs.BACKENDS
    filters = args.filter.split(",") if args.filter else graphs.NAMES
    have = set.intersection(*(set(t.backends) for t in trees))
    out = []
    for b, f in ((b, f) for b in backends for f in filters):
        if (b, f) not in graphs.GRAPHS or not graphs.needs(b, f) <= have:
            continue
        why = graphs.not_on_trees(trees, b, f)
        if why:  # said, not judged: the trees cannot express the pair
            print(f"diff: {b} / {f}: left out: {why}", file=sys.stderr, flush=True)
        else:
            out.append((b, f))
    if not out:
        raise HarnessError(f"no backend/filter pair both trees can run (their backends: "
                           f"{', '.join(sorted(have)) or 'none'})")
    return out


def _from_case(args, case):
    """A case that claims a diff (its `diff`) gives its trees and patches where the command
    line names none; then its diff is what the diff is judged against, and its groups are
    what runs (narrowed by --fault, --backend-name, --filter and --route)."""
    claims = case.diff
    if claims is None or args.from_tree or args.to_tree or args.git_dir or args.patch:
        return None
    series = case.part("series") / "series"
    args.from_tree = case.part("on")
    args.patch = [str(case.series / n) for n in series.read_text().split()]
    return claims


def case_groups(args, claims: dict, trees) -> list:
    """The groups a case's diff names ("backend / filter / route / family"), those the
    options keep; a group whose pair the trees cannot run is left out (the verdict then
    says "not run")."""
    from harness.judge import diff
    from harness.run import chains as graphs
    have = set.intersection(*(set(t.backends) for t in trees))
    keep = {"backend": args.backend_name, "filter": args.filter, "route": args.route,
            "family": ",".join(args.fault or ())}
    out = []
    for key in claims:
        backend, filt, route, family = key.split(" / ")
        values = {"backend": backend, "filter": filt, "route": route, "family": family}
        if any(v and values[k] not in v.split(",") for k, v in keep.items()):
            continue
        if (backend, filt) in graphs.GRAPHS and graphs.needs(backend, filt) <= have:
            out.append(diff.Group(backend, filt, families([family])[0], family, route=route))
    return out


def narrowed(args, claims: dict) -> dict:
    """The case's claims the options keep."""
    keep = (args.backend_name, args.filter, args.route, ",".join(args.fault or ()))
    return {k: v for k, v in claims.items()
            if all(not opt or part in opt.split(",") for part, opt in zip(k.split(" / "), keep))}


def run(args) -> int:
    from harness.commands import common
    import json

    from harness import caseload
    from harness.experiments import diff as experiment, kept, sweep
    from harness.paths import cache_root
    from harness.judge import diff, diffreport, profiles, shard as sharding, touched
    from harness.run import matrix, runner
    case = caseload.load(args.case)
    shard = sharding.parse(args.shard)
    values = profiles.mode(args.values)
    if shard and not args.json:
        raise HarnessError("--shard needs --json FILE: the merge job reads each shard's JSON")
    claims = _from_case(args, case)
    for option in ("json", "markdown", "html", "junit"):
        inputs.output_file(f"--{option}", getattr(args, option))
    specs = families(args.fault)
    routes = sweep.route_names(args.route)
    check_names(args)
    check_combinations(args)
    same = same_refs(args)
    if same:
        print(f"diff: {same}")
        return ExitStatus.OK

    with contextlib.redirect_stdout(sys.stderr):  # builds say what they do: progress
        try:
            two = sides(args, case)
        except ChangeDoesNotBuild as e:
            with contextlib.redirect_stdout(sys.__stdout__):
                return does_not_build(args, e)
        if touched.same_source(two[0].tree, two[1].tree):
            print(f"diff: {two[0].label} and {two[1].label} have the same sources: "
                  "no change to diff", file=sys.__stdout__, flush=True)
            return ExitStatus.OK
        change = touched.between(two[0].tree, two[1].tree)
        if claims is not None:
            claims = narrowed(args, claims)
            groups = case_groups(args, claims, [s.tree for s in two])
        else:
            groups = experiment.plan_groups(pairs(args, [s.tree for s in two]), specs, routes)
        print(f"diff: {two[0].label} -> {two[1].label}: {len(groups)} families x pairs x "
              f"routes; the change touches {len(change.paths)} files, "
              f"{len(change.functions)} functions", flush=True)
        memo = kept.load(two[0].tree, cache_root(), fresh=args.fresh)
        d = experiment.run(two, groups, matrix.preload_library(), args.jobs, case.expect,
                           runner.progress, results=args.results or None,
                           confirm=max(0, args.confirm), touched=change, shard=shard,
                           values=values, focus=args.focus, memo=memo)
        kept.save(memo, two[0].tree, cache_root())
        d.output_may_change = args.output_may_change
    from harness.paths import write_file
    if shard:  # a part: its verdict is the merge's (with the case's claim, if any)
        write_file("--json", args.json, json.dumps(
            {**diffreport.to_json(d),
             **({"case": {"name": args.case, "claims": list(claims)}} if claims is not None
                else {})}, indent=1) + "\n")
        print(f"diff: shard {shard[0]}/{shard[1]}: {len(d.pairs)} sites, {d.runs} runs in "
              f"{d.seconds['total']:.1f} s; the verdict is the merge's: python -m harness "
              f"merge SHARD.json ...", file=sys.stderr)
        return ExitStatus.OK
    wrong = diff.against(d, claims) if claims is not None else []
    status = ExitStatus.FAIL if wrong else d.exit_status
    common.publish_diff(args, d, diffreport.markdown(d), status,
                       args.case if claims is not None else None, wrong,
                       {"case": {"name": args.case, "wrong": wrong}} if claims is not None
                       else None)
    for w in wrong:
        print(f"- not as case {args.case} says: {w}", file=sys.stderr)
    print(f"diff: {d.runs} runs in {d.seconds['total']:.1f} s ({diffreport.rate(d):.2f} runs/s), "
          f"exit {status}", file=sys.stderr)
    return status
