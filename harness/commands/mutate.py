"""`python -m harness mutate`: the gate's mutation score over FFmpeg's error handling
(harness/experiments/mutate.py): mutants of the files a change touches (`--from TREE --patch
FILE`: the change's tree is what is mutated), of named files (`--file`) or of every file
of the DNN code (`--all`), each diffed against the tree it mutates."""

import contextlib
import sys

from harness import inputs
from harness.errors import ExitStatus, HarnessError


def add_parser(sub) -> None:
    from harness.commands.coverage import add_report_options, add_sweep_options
    from harness.judge import mutants
    p = sub.add_parser("mutate", help="the gate's mutation score: mutants of FFmpeg's error "
                                      "handling, each diffed; killed / survived / blind")
    p.add_argument("--from", dest="from_tree", metavar="TREE",
                   help="the tree to mutate, of the case's layout (default: the case's "
                        "change, as after + the follow-ups for --case followups, else the "
                        "second tree the case compares)")
    p.add_argument("--patch", action="append", default=[], metavar="FILE",
                   help="a change on --from (repeatable): its tree is mutated, in the files "
                        "it touches")
    p.add_argument("--file", action="append", default=[], metavar="PATH",
                   help="a file of the tree to mutate (repeatable; a repository path)")
    p.add_argument("--all", action="store_true",
                   help="every file of the DNN code (libavfilter/dnn/, vf_dnn_*.c): many "
                        "hours on 2 cores")
    p.add_argument("--operator", metavar="LIST",
                   help=f"operators, comma-separated (default all: {', '.join(mutants.OPERATORS)})")
    p.add_argument("--function", metavar="LIST", help="only the mutants of these functions")
    p.add_argument("--limit", type=inputs.limit, metavar="N",
                   help="the first N mutants of each file")
    p.add_argument("--sample", type=inputs.sample, metavar="N",
                   help="N of the mutants, drawn at random (after --operator, --function and "
                        "--limit): the score of them all estimated, with its 95%% interval, "
                        "in the time of N mutants")
    p.add_argument("--seed", type=inputs.seed, default=1, metavar="S",
                   help="the draw of --sample (default 1: the same mutants every time)")
    p.add_argument("--values", default="changed", metavar="MODE",
                   help="which values of each site's fault profile its diff fails it with "
                        "(as diff's --values; default changed: every value at "
                        "the sites through the mutant, as the gate's own diff)")
    p.add_argument("--confirm", type=inputs.confirm, default=2, metavar="N",
                   help="runs more of both sides of a site whose class changed (default 2)")
    p.add_argument("--lines", metavar="JSON",
                   help="harness coverage --json of the same tree: a mutant on a line no "
                        "fault of its sweep ran is blind without a build")
    p.add_argument("--keep", action="store_true",
                   help="keep each mutant's tree in the cache (default: removed once judged)")
    p.add_argument("--fresh", action="store_true",
                   help="run every run of the mutated tree again: none taken from those an "
                        "earlier diff against it kept in the cache (what it runs is kept)")
    p.add_argument("--equivalent", metavar="FILE",
                   help="the equivalent mutants, each explained (default "
                        "builds/equivalent-mutants.txt)")
    add_sweep_options(p)
    add_report_options(p, "of the scored mutants were killed")
    p.set_defaults(func=run, check=check)


def check(args) -> None:
    from harness.commands import common, options
    case = options.tree_source(args.backend, args.release, args.case, args.source)
    options.trees("--from", args.from_tree, case.part("layout"), one=True)
    common.check_sweep_options(args, json=args.json, markdown=args.markdown)


def patched_files(patches) -> list:
    """The C and C++ files the patches change, by repository path."""
    import re
    out = []
    for p in patches:
        for m in re.finditer(r"^diff --git a/(\S+) b/(\S+)$", p.read_text(errors="replace"), re.M):
            if m.group(2).endswith((".c", ".cpp")) and m.group(2) not in out:
                out.append(m.group(2))
    return out


def files(args, tree, patches) -> list:
    """The files to mutate: --all's (every file of the DNN code the tree compiled), kept
    to --file's when both are given; else --file's; else those the change touches."""
    from harness.obtain import covered
    from harness.obtain.patched import patch_files
    if args.all:
        chosen = [f for f in covered.sources(tree) if not args.file or f in args.file]
    else:
        chosen = list(dict.fromkeys(args.file)) or patched_files(patch_files(patches))
    for f in chosen:
        if not (tree.src / f).is_file():
            raise HarnessError(f"--file {f}: no such file in {tree.name}")
    if not chosen:
        raise HarnessError("no C or C++ file to mutate (the change touches none; --file, --all)")
    return chosen


def coverage_report(path: str) -> dict:
    """--lines: `harness coverage --json` (another document is bad input)."""
    import json

    from harness.judge import schemas
    try:
        doc = json.loads(inputs.input_file("--lines", path).read_text())
    except ValueError as e:
        raise HarnessError(f"--lines {path}: not JSON ({e})") from None
    why = schemas.problem(doc, "coverage.json")
    if why:
        raise HarnessError(f"--lines {path}: not a coverage report ({why})")
    return doc


def not_run(doc: dict, tree, path: str) -> dict:
    """path -> the lines no fault ran, from the coverage report of the tree's own sources
    (another tree's is bad input)."""
    if doc["source_tree"] != tree.stamp.get("source_tree"):
        raise HarnessError(f"--lines {path}: the coverage of other sources than "
                           f"{tree.name}'s")
    return {p: set(ls["not_run"]) for p, ls in doc["lines"].items()}


def run(args) -> int:
    from harness import caseload
    from harness.commands.coverage import change_of, checked, groups, publish, tree
    from harness.experiments import mutate
    from harness.judge import mutatereport, profiles
    from harness.judge.mutants import OPERATORS
    from harness.judge.mutate import EQUIVALENT, ERROR
    from harness.run import matrix
    case = caseload.load(args.case)
    if not (args.all or args.file or args.patch or case.series):
        raise HarnessError("which files to mutate: --patch (the files a change touches), "
                           "--file PATH or --all")
    operators = [o.strip() for o in (args.operator or ",".join(OPERATORS)).split(",") if o.strip()]
    bad = [o for o in operators if o not in OPERATORS]
    if bad or not operators:
        raise HarnessError(f"--operator: unknown operator '{(bad or [args.operator])[0]}' "
                           f"(known: {', '.join(OPERATORS)})")
    values = profiles.mode(args.values)
    data = checked(args, "--equivalent", args.equivalent, EQUIVALENT)
    report = coverage_report(args.lines) if args.lines else None
    with contextlib.redirect_stdout(sys.stderr):  # builds say what they do: progress
        name, patches = change_of(args, case, args.from_tree)
        t = tree(args, case, name, patches)
        chosen = files(args, t, patches)
        unrun = not_run(report, t, args.lines) if args.lines else None
        gs = groups(args, [t])
        print(f"mutate: {t.name}: {', '.join(chosen)}; {len(gs)} families x pairs x routes, "
              "each census once", flush=True)
        s = mutate.run(t, chosen, case.part("layout"), gs, matrix.preload_library(), args.jobs,
                       case.expect, values, max(0, args.confirm), operators, data, args.keep,
                       args.limit, args.function.split(",") if args.function else None,
                       progress=lambda line: print(line, file=sys.stderr, flush=True),
                       not_run=unrun, fresh=args.fresh, sample=args.sample, seed=args.seed)
    r = s.rate()
    status = ExitStatus.FAIL if s.count()[ERROR] or (
        args.fail_under is not None and r["score"] < args.fail_under) else ExitStatus.OK
    publish(args, "mutate", t, status, mutatereport.markdown(s),
            {"values": values, "confirm": args.confirm, "operators": operators,
             "groups": [g.key for g in gs], **mutatereport.to_json(s)})
    within = s.interval()
    print(f"mutate: {len(s.fates)} mutants in {s.seconds:.0f} s, {r['score']}% killed"
          + (f" (a sample of {s.sample[0]}: all of them {within[0]}-{within[1]}%, 95%)"
             if within else "") + f", exit {status}", file=sys.stderr)
    return status
