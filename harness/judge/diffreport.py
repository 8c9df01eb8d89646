"""The diff's reports (harness/judge/diff.py): the markdown a PR comment takes, with the
verdict, every site that changed and the command that reruns it, and the JSON (with a
`schema` field) that has every site; the page is harness/judge/diff_html.py."""

from collections import Counter

from harness.judge.diff import Change, Diff, Pair, Side

SCHEMA = 1


def verdict_line(d: Diff) -> str:
    c = d.count()
    a, b = (s.label for s in d.sides)
    parts = [f"{c[Change.REGRESSION]} regression{'s' * (c[Change.REGRESSION] != 1)}",
             f"{c[Change.FIX]} fix{'es' * (c[Change.FIX] != 1)}",
             f"{c[Change.CHANGED]} changed otherwise", f"{c[Change.SAME]} the same"]
    if c[Change.FLAKY]:
        parts.append(f"{c[Change.FLAKY]} flaky (not judged)")
    if c[Change.ONLY_FROM] or c[Change.ONLY_TO]:
        parts.append(f"{c[Change.ONLY_FROM]} only in {a}, {c[Change.ONLY_TO]} only in {b}")
    if c[Change.ERROR] or d.census_errors:
        parts.append(f"{c[Change.ERROR] + len(d.census_errors)} not judged (ERROR)")
    word = "FAIL" if d.exit_status else "PASS"
    return f"**{word}**: {len(d.pairs)} sites: " + ", ".join(parts)


def _cls(s, seen) -> str:
    """The class, or every class the site showed when it was run again."""
    if s is None:
        return "—"
    return s.cls.value if len(set(seen)) == 1 else "/".join(c.value for c in seen)


def _row(p: Pair) -> str:
    a, b = p.sites
    repro = (b or a).command
    nth = f" #{p.nth + 1}" if p.nth else ""
    return (f"| {p.group.backend} / {p.group.filter} | `{p.group.family}` | `{p.where}`{nth} "
            f"| {_cls(a, p.seen[0])} | {_cls(b, p.seen[1])} | `{repro}` |")


SECTIONS = ((Change.REGRESSION, "Regressions"), (Change.ERROR, "Not judged (ERROR)"),
            (Change.FIX, "Fixes"), (Change.FLAKY, "Flaky (not judged)"),
            (Change.CHANGED, "Changed otherwise"),
            (Change.ONLY_FROM, "Only in {a}"), (Change.ONLY_TO, "Only in {b}"))


def markdown(d: Diff) -> str:
    """A PR comment: the verdict, every site that is not the same (with the command that
    reruns it in the to-tree), and per group how many sites each class has."""
    a, b = (s.label for s in d.sides)
    lines = [f"## Fault sweep diff: {a} -> {b}", ""]
    mine = d.sides[1].tree.stamp["source"].get("patches")
    if mine:  # a tree built with --patch
        lines += [f"{b}: " + ("the patch " if len(mine) == 1 else "the patches ")
                  + ", ".join(f"`{p}`" for p in mine), ""]
    lines += [verdict_line(d), ""]
    for e in d.census_errors:
        lines.append(f"- {e}")
    for ch, title in SECTIONS:
        rows = [p for p in d.pairs if p.change is ch]
        if not rows:
            continue
        lines += ["", f"### {title.format(a=a, b=b)} ({len(rows)})", "",
                  f"| backend / filter | family | where | {a} | {b} | reproduce |",
                  "|---|---|---|---|---|---|"] + [_row(p) for p in rows]
    lines += ["", "### Every family", "",
              f"| backend / filter | family | sites {a} | sites {b} | {a} | {b} |",
              "|---|---|---|---|---|---|"]
    none = [g.key for g in d.groups if g.sites == [0, 0]]  # said once, below the table
    for g in d.groups:
        if g.sites == [0, 0]:
            continue
        mine = [p for p in d.pairs if p.group is g]
        tally = [", ".join(f"{n} {c}" for c, n in sorted(Counter(
            p.sites[i].cls.value for p in mine if p.sites[i] is not None).items())) or "—"
            for i in (0, 1)]
        counts = ["—" if n is None else str(n) for n in g.sites]
        lines.append(f"| {g.backend} / {g.filter} | `{g.family}` | {counts[0]} | {counts[1]} "
                     f"| {tally[0]} | {tally[1]} |")
    if none:
        lines += ["", "No calls in either tree: " + ", ".join(f"`{k}`" for k in none) + "."]
    lines += ["", timing(d), ""]
    return "\n".join(lines)


def timing(d: Diff) -> str:
    n, secs = d.ended
    each = f"{secs / n:.2f} s each" if n else "none"
    return (f"{d.runs} runs in {d.seconds['total']:.1f} s ({rate(d):.2f} runs/s): censuses "
            f"{d.seconds['census']:.1f} s, sites {d.seconds['sites']:.1f} s, reruns of changed "
            f"sites {d.seconds['confirm']:.1f} s; runs that "
            f"ended: {n}, {each}; runs that hung: {d.hang_seconds:.1f} s of run time")


def rate(d: Diff) -> float:
    return d.runs / d.seconds["total"] if d.seconds["total"] else 0.0


def _site_json(s) -> dict | None:
    if s is None:
        return None
    return {"call": s.index + 1, "class": s.cls.value, "where": s.where,
            "reproduce": s.command, "outcome": s.result.outcome.value,
            "reason": s.result.reason, "seconds": round(s.result.seconds, 3)}


def to_json(d: Diff) -> dict:
    c = d.count()
    return {
        "schema": SCHEMA,
        "from": _side_json(d.sides[0]), "to": _side_json(d.sides[1]),
        "exit_status": d.exit_status,
        "verdict": {ch.value: c[ch] for ch in Change},
        "census_errors": d.census_errors,
        "groups": [{"backend": g.backend, "filter": g.filter, "family": g.family,
                    "fault": g.fault, "sites": {"from": g.sites[0], "to": g.sites[1]},
                    "errors": {"from": g.errors[0], "to": g.errors[1]}} for g in d.groups],
        "sites": [{"backend": p.group.backend, "filter": p.group.filter,
                   "family": p.group.family, "place": p.place, "nth": p.nth,
                   "change": p.change.value,
                   "seen": {"from": [c.value for c in p.seen[0]],
                            "to": [c.value for c in p.seen[1]]},
                   "from": _site_json(p.sites[0]),
                   "to": _site_json(p.sites[1])} for p in d.pairs],
        "timing": {**{f"{k}_seconds": v for k, v in d.seconds.items()}, "runs": d.runs,
                   "runs_per_second": round(rate(d), 3),
                   "hang_seconds": d.hang_seconds, "ended_runs": d.ended[0],
                   "ended_seconds": d.ended[1]},
    }


def _side_json(s: Side) -> dict:
    st = s.tree.stamp
    return {"label": s.label, "tree": s.tree.name, "path": str(s.tree.path), "key": st["key"],
            "source": st["source"], "series": st["series"]}
