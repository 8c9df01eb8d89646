"""`python -m harness claims`: the case's commit claims, on the two trees its claims compare."""

import sys

from harness import inputs
from harness.commands import common, options
from harness.errors import HarnessError
from harness.paths import write_file


def add_parser(sub) -> None:
    p = sub.add_parser("claims", help="the case's commit claims, on the two trees its claims "
                                      "compare")
    p.add_argument("--commit", type=inputs.commit, action="append", metavar="N",
                   help="only this commit's claims; repeatable")
    p.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    common.add_build_options(p)
    p.set_defaults(func=run, check=check)


def check(args) -> None:
    common.check_build_options(args)
    options.report_files(json=args.json)


def run(args) -> int:
    import json

    from harness.experiments import claims as sources
    from harness.judge import claims
    from harness.run import matrix
    known = sources.known_commits(common.case_of(args))
    unknown = sorted(set(args.commit or ()) - set(known))
    if unknown:
        raise HarnessError(f"no claims for commit {', '.join(map(str, unknown))} "
                           f"(known: {', '.join(map(str, known))})")
    case, commits = common.case_of(args), set(args.commit or ()) or None
    pair = case.part("claims_pair")
    resolved = {}

    def resolve(names) -> dict:  # a pair of the case's trees, built (or found) once
        if tuple(names) not in resolved:
            plan = common.plan(args, names=tuple(names))
            resolved[tuple(names)] = {n: matrix.resolve_tree(n, plan) for n in names}
        return resolved[tuple(names)]
    # by name only, unless a source that runs reads them
    trees = resolve(pair) if "claims_pair" in sources.pairs_read(case, commits) \
        else dict.fromkeys(pair)
    ctx = sources.Context(case, trees, matrix.preload_library(), commits, resolve=resolve)
    rows = sources.rows(ctx)
    status = claims.exit_status(rows)
    print(claims.markdown(rows, pair))
    if args.json:
        from harness.judge import envelope
        every = {**trees, **{n: t for p in resolved.values() for n, t in p.items()}}
        named = [t or {"name": n, "key": None, "path": None} for n, t in every.items()]
        write_file("--json", args.json, json.dumps(envelope.envelope(
            "claims", named, status, case=case.name, rows=rows), indent=1) + "\n")
    bad = [r for r in rows if not claims.as_expected(r)]
    for r in bad:
        what = ("not judged" if claims.skipped(r) else "not measured" if claims.unmeasured(r)
                else "unexpected verdict")
        print(f"- {what} for {r['id']}: {r['verdict']}", file=sys.stderr)
    return status
