"""`python -m harness probe`: what each tree has, lacks and cannot express, read from the tree
(harness/obtain/probe.py), or every pinned release side by side."""

from harness.commands import common
from harness.errors import ExitStatus


def add_parser(sub) -> None:
    p = sub.add_parser("probe", help="what each built tree has, lacks and cannot express")
    p.add_argument("--build", help="comma list of tree names of the case's layout or "
                   "built-tree paths (default: the two trees the case compares)")
    p.add_argument("--releases", action="store_true",
                   help="every pinned release side by side (harness/obtain/releases.py): "
                        "what each has, the patches its built trees took, and each row of "
                        "the case's tables, expressible or why not")
    common.add_build_options(p)
    p.set_defaults(func=run, check=common.check_builds)


def run(args) -> int:
    """What each tree has, read from the tree (harness/obtain/probe.py)."""
    from harness.obtain import probe
    from harness.run import chains, matrix
    if args.releases:
        from harness.judge import releasetable
        print(releasetable.markdown(common.case_of(args)))
        return ExitStatus.OK
    plan = common.plan(args)
    pairs = [(b, f) for b in chains.BACKENDS for f in chains.FILTERS]
    for name in common.builds(args):
        tree = matrix.resolve_tree(name, plan, build=False)
        print(f"## {tree.name}: {tree.path}")
        for line in probe.facts(tree.src).describe(pairs):
            print(f"- {line}")
    return ExitStatus.OK
