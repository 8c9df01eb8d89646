"""The two trees a diff compares (`python -m harness diff`), from its options: any source
the harness knows: a case's trees (`--from TREE --to TREE`, trees of its layout, or a built
tree's path), two refs of the user's clone (`--git-dir CLONE --from-ref A --to-ref B`,
built as `run --git-dir` builds them), and either of those plus `--patch FILE`
(repeatable), applied with `git am` on top of the to-tree's source and built from its
objects (harness/obtain/patched.py); and what the diff says when the change's tree does not
build.
"""

import sys

from harness import inputs
from harness.errors import ExitStatus, HarnessError


def _trees(args, case):
    """The plan (the trees of the case's layout, or of --git-dir's refs, named as the
    case's pair) and the two tree names, from the options; bad combinations are bad input."""
    from harness.obtain.builtsets import backend_set
    from harness.obtain.patched import PatchedPlan
    from harness.obtain.trees import Plan
    from harness.run import chains as graphs
    check_combinations(args)
    layout, (first, second) = case.part("layout"), case.pair
    need = set()
    for b in (args.backend_name.split(",") if args.backend_name else ()):
        filters = args.filter.split(",") if args.filter else graphs.NAMES
        need |= set().union(*(graphs.needs(b, f) for f in filters if (b, f) in graphs.GRAPHS)) \
            or {b}
    known = [n for n in (args.from_tree, args.to_tree) if n in layout.names]
    backend = backend_set(args.backend, need, tuple(known) or layout.names[-2:], layout)
    if args.git_dir:
        a = args.from_ref or "HEAD~1"
        b = args.to_ref or (a if args.patch else "HEAD")
        refs = {first: a} if (args.patch and b == a) else {first: a, second: b}
        kw = dict(source_file=args.source, repo=args.git_dir, refs=refs, release=args.release)
        names, labels = [first, second if second in refs else first], [a, b]
    else:
        a = args.from_tree or first
        b = args.to_tree or (a if args.patch else second)
        kw = dict(source_file=args.source, release=args.release)
        names, labels = [a, b], [a, b]
    if args.patch:  # on a tree of the plan, not a built tree's path
        plan = PatchedPlan(backend, layout, on=names[1], patches=args.patch, **kw)
        names[1] = plan.patched
        ps = plan.user_patches
        labels[1] += f"+{ps[0].name}" if len(ps) == 1 else f"+{len(ps)} patches"

    else:
        plan = Plan(backend, layout, **kw)
    return plan, names, labels


class ChangeDoesNotBuild(Exception):
    """The to-tree (the change) does not compile: the gate's verdict on it, not bad input."""

    def __init__(self, labels: list, from_tree, error):
        super().__init__(str(error))
        self.labels, self.from_tree, self.error = labels, from_tree, error


def sides(args, case) -> list:
    from harness.errors import CompileError
    from harness.judge.diff import Side
    from harness.run import matrix
    plan, names, labels = _trees(args, case)
    if args.patch:  # refused before any tree is copied, when the tree they go on is built
        plan.check_if_built()
    if labels[0] == labels[1]:
        labels = [f"{labels[0]} (from)", f"{labels[1]} (to)"]
    first = matrix.resolve_tree(names[0], plan)
    try:
        second = matrix.resolve_tree(names[1], plan)
    except CompileError as e:  # the change's own code does not compile
        raise ChangeDoesNotBuild(labels, first, e) from None
    return [Side(label, t) for label, t in zip(labels, (first, second))]


def does_not_build(args, e: ChangeDoesNotBuild) -> int:
    """A change that does not compile: FAIL (exit 1), with the compiler's first error in
    the report and the JSON."""
    import json

    from harness.judge.envelope import envelope
    from harness.paths import write_file
    a, b = e.labels
    text = (f"## Fault sweep diff: {a} -> {b}\n\n**FAIL**: {b} does not build, so no site "
            f"of it could run: `{e.error.first}`\n")
    print(text)
    if args.markdown:
        write_file("--markdown", args.markdown, text)
    if args.json:
        write_file("--json", args.json, json.dumps(
            {**envelope("diff", [e.from_tree], ExitStatus.FAIL), "word": "FAIL",
             "build_error": {"tree": b, "first_error": e.error.first, "message": str(e.error)}},
            indent=1) + "\n")
    print(f"diff: {b} does not build: {e.error}", file=sys.stderr)
    return ExitStatus.FAIL


def check_combinations(args) -> None:
    """Options that do not go together, and a --git-dir that is not a clone."""
    if args.git_dir:
        if args.from_tree or args.to_tree:
            raise HarnessError("with --git-dir, name refs of your clone: --from-ref/--to-ref")
        inputs.git_dir(args.git_dir)
    elif args.from_ref or args.to_ref:
        raise HarnessError("--from-ref/--to-ref name refs of a clone: give --git-dir")


def same_refs(args) -> str | None:
    """With --git-dir and no --patch: a line saying the two refs have the same sources
    (the same ref twice, or refs whose trees are equal), None when they differ. A ref
    that does not resolve is bad input."""
    import subprocess
    if not args.git_dir or args.patch:
        return None
    refs = [args.from_ref or "HEAD~1", args.to_ref or "HEAD"]
    ids = []
    for ref in refs:
        r = subprocess.run(["git", "-C", args.git_dir, "rev-parse", "--verify", "-q",
                            f"{ref}^{{tree}}"], capture_output=True, text=True)
        if r.returncode != 0:
            raise HarnessError(f"{args.git_dir}: no such ref '{ref}'")
        ids.append(r.stdout.strip())
    if ids[0] != ids[1]:
        return None
    return (f"{refs[0]} and {refs[1]} have the same sources (tree {ids[0][:12]}): "
            "no change to diff")
