"""`python -m harness unchanged`: the ffmpeg program's output on each tree, the identity models'
MD5s, a whole clip and trained models over real photographs."""

from harness.commands import common
from harness.errors import ExitStatus


def add_parser(sub) -> None:
    p = sub.add_parser("unchanged", help="ffmpeg CLI output, before against after")
    p.add_argument("--build", help="comma list of trees (default: the two the case compares)")
    p.add_argument("--short", action="store_true", help="a 2 s 320x180 clip instead of 24 s 720p")
    common.add_build_options(p)
    p.set_defaults(func=run, check=common.check_builds)


def run(args) -> int:
    from harness.experiments import unchanged as runs
    from harness.judge import unchanged as u
    from harness.run import matrix
    plan = common.plan(args, names=common.tree_names(args))
    trees = [matrix.resolve_tree(b, plan) for b in common.builds(args)]
    identity, rows = runs.plan_rows(trees[0].backends)
    runs.run_rows(trees, identity, rows,
                  runs.clip(trees[0], runs.SHORT_CLIP if args.short else runs.CLIP))
    print()
    print(u.markdown(identity, rows, [t.name for t in trees]))
    want = common.case_of(args).identity_md5
    for row in identity if want else ():
        got = next(iter(row.runs.values())).md5
        same = "reproduces" if got == want else "differs from"
        print(f"- {row.backend}: identity MD5 {got} {same} case {args.case}'s {want}")
    bad = u.problems(identity, rows)
    from harness.experiments import trained
    from harness.judge.trained import report
    tp = trained.plan(trees[0].backends, trees[0], args.short, common.case_of(args).trained_rows)
    trained.run(trees, tp)
    text, more = report(tp, [t.name for t in trees], args.short,
                        common.case_of(args).trained_conversion)
    print()
    print(text)
    for p in bad + more:
        print(f"- {p}")
    return ExitStatus.FAIL if bad or more else ExitStatus.OK
