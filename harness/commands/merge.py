"""`python -m harness merge SHARD.json ...`: the shards of a diff as one diff, with the
verdict, counts, report and exit status the whole diff gives, or the shards of a sweep as
one sweep (harness/judge/merge.py)."""

def add_parser(sub) -> None:
    p = sub.add_parser("merge", help="the shards of a diff or a sweep (--shard K/N --json) "
                                     "as one: its report, verdict and exit status")
    add_arguments(p)
    p.set_defaults(func=run, check=check)


def add_arguments(p) -> None:
    from harness.commands import common
    p.add_argument("shards", nargs="+", metavar="SHARD.json",
                   help="the JSON of each shard (diff or sweep --shard K/N --json FILE)")
    p.add_argument("--json", metavar="FILE", help="write the merged diff or sweep as JSON")
    common.add_diff_report_options(p)


def check(args) -> None:
    from harness.commands import options
    options.report_files(json=args.json, junit=args.junit, markdown=args.markdown,
                         html=args.html)


def run(args) -> int:
    from harness.commands import common
    from harness.errors import ExitStatus
    from harness.judge import diff, merge
    from harness.judge import diffreport
    shards = merge.load(args.shards)
    if merge.kind_of(shards[0][1]) == "sweep":
        return sweeps(args, shards)
    d = merge.merged(shards)
    name, claims = case_claims(shards)
    wrong = diff.against(d, claims) if claims is not None else []
    status = ExitStatus.FAIL if wrong else d.exit_status
    text = diffreport.markdown(d)
    walls = ", ".join(f"{k}/{len(d.shard_walls)} {w:.1f} s" for k, w in d.shard_walls)
    text += f"\nShards' walls: {walls}; the longest {max(w for _, w in d.shard_walls):.1f} s.\n"
    text += said_varied(shards)
    common.publish_diff(args, d, text, status, name, wrong,
                       {"case": {"name": name, "wrong": wrong}} if claims is not None else None)
    return status


def sweeps(args, shards: list) -> int:
    """A sweep's shards: the tables, problems and exit status of the whole sweep."""
    from harness import caseload
    from harness.commands import sweep as sweepcmd
    from harness.errors import ExitStatus, HarnessError
    from harness.judge import merge, sweep
    from harness.paths import write_file
    if args.html or args.junit:
        raise HarnessError(f"--{'html' if args.html else 'junit'} is a diff's report; a sweep "
                           "has its tables (--markdown)")
    groups, found = merge.merged_sweeps(shards)
    first = shards[0][1]
    bad = sweepcmd.problems(caseload.load(first["case"]), groups, found)
    status = ExitStatus.FAIL if bad else ExitStatus.OK
    text = "".join(f"- {line}\n" for line in first["skipped"])
    text += "\n".join(sweep.markdown(found[key], g["title"]) for key, g in groups.items())
    text += said_varied(shards)
    print(text)
    if args.markdown:
        write_file("--markdown", args.markdown, text)
    sweepcmd.publish(args.json, first["trees"], status, first["case"], None, first["inputs"],
                     first["skipped"], bad, found, groups)
    return status


def said_varied(shards: list) -> str:
    """The censuses that counted differently in different shards, on stderr and as the
    report's last lines (each site was run as its own shard's census found it)."""
    import sys
    from harness.judge import merge
    lines = merge.varied(shards)
    for line in lines:
        print(f"merge: {line}", file=sys.stderr)
    return ("\nCensuses that counted differently in different shards (each site is run as "
            "its own shard's census found it):\n" + "".join(f"- {line}\n" for line in lines)
            if lines else "")


def case_claims(shards: list):
    """The case whose diff the shards were run for (diff --case NAME with its claims), and
    those claims (narrowed as the shards ran them); (None, None) for a plain diff."""
    from harness import caseload
    case = shards[0][1].get("case")
    if not case:
        return None, None
    claims = caseload.load(case["name"]).diff or {}
    return case["name"], {k: v for k, v in claims.items() if k in case["claims"]}
