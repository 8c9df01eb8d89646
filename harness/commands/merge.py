"""`python -m harness merge SHARD.json ...`: the shards of a diff as one diff, with the
verdict, counts, report and exit status the whole diff gives (harness/judge/merge.py)."""

def add_parser(sub) -> None:
    p = sub.add_parser("merge", help="the shards of a diff (diff --shard K/N --json) as one "
                                     "diff: its report, verdict and exit status")
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p) -> None:
    p.add_argument("shards", nargs="+", metavar="SHARD.json",
                   help="the JSON of each shard (diff --shard K/N --json FILE)")
    p.add_argument("--json", metavar="FILE", help="write the merged diff as JSON")
    p.add_argument("--markdown", metavar="FILE", help="write the report as markdown")
    p.add_argument("--html", metavar="FILE", help="write the page")


def run(args) -> int:
    from harness.judge import diff, merge
    from harness import inputs
    from harness.judge import diffreport
    for option in ("json", "markdown", "html"):  # also checked by harness/precheck.py
        inputs.output_file(f"--{option}", getattr(args, option))
    shards = merge.load(args.shards)
    d = merge.merged(shards)
    name, claims = merge.case_claims(shards)
    wrong = diff.against(d, claims) if claims is not None else []
    status = diff.FAIL if wrong else d.exit_status
    text = diffreport.markdown(d)
    walls = ", ".join(f"{k}/{len(d.shard_walls)} {w:.1f} s" for k, w in d.shard_walls)
    text += f"\nShards' walls: {walls}; the longest {max(w for _, w in d.shard_walls):.1f} s.\n"
    diffreport.publish(args, d, text, status, name, wrong,
                       {"case": {"name": name, "wrong": wrong}} if claims is not None else None)
    return status
