"""The diff's reports (harness/judge/diff.py): the markdown a PR comment takes, with the
verdict, every site that changed and the command that reruns it, and the JSON (with a
`schema` field) that has every site; the page is harness/judge/diff_html.py."""

from collections import Counter

from harness.errors import ExitStatus
from harness.judge.envelope import ENVELOPE, envelope
from harness.judge.diff import Change, Diff, Pair, Side
from harness.judge.leaknote import leak_note
from harness.judge.sweep import leaks_of

SCHEMA = ENVELOPE  # the diff's JSON is the command envelope (judge/envelope.py) around it
WORDS = {ExitStatus.OK: "PASS", ExitStatus.FAIL: "FAIL", ExitStatus.BLIND: "BLIND"}


def lines_line(d: Diff) -> str:
    """changed lines executed under a fault: k of n (the change's tree counted them)."""
    c = d.coverage
    if c is None:
        return ""
    if not c:
        return "; changed lines of code: none instrumented"
    return (f"; changed lines executed under a fault: {c['executed']} of {c['changed']}"
            + (f" (branches on them taken: {c['branches_taken']} of {c['branches']})"
               if c["branches"] else ""))


def seen_line(d: Diff) -> str:
    """judged / blind / total, of every site and of those the change's code runs in."""
    t = d.tally()
    out = f"judged {t['judged']} / blind {t['blind']} / total {t['total']} sites"
    if t["not_judged"]:
        out += f" ({t['not_judged']} not judged: ERROR or flaky)"
    if not d.touched.known:
        return out + "; what the change touches could not be read"
    k = t["touched"]
    if not d.touched.paths:
        return out + "; the trees' sources are the same"
    if not k["total"]:
        return out + "; no site's stack runs through the change" + lines_line(d)
    return (out + f"; through the change: judged {k['judged']} / blind {k['blind']} / "
            f"total {k['total']}" + lines_line(d))


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
    if d.output_changes:
        n = len(d.output_changes)
        parts.append(f"the output with no fault changed in {n} graph{'s' * (n != 1)}"
                     + (" (--output-may-change)" if d.output_may_change else ""))
    word = WORDS[d.exit_status]
    focused = (f" (focused: the {d.focus[0]} of {d.focus[1]} sites whose stack runs through "
               "the change" + (f", in the {d.focus[2]} of {d.focus[3]} groups whose graphs "
                               "can run it" if len(d.focus) > 2 else "")
               + ", no other site run)" if d.focus else "")
    return f"**{word}**{focused}: {seen_line(d)}: " + ", ".join(parts)


def blind_lines(d: Diff) -> list:
    """Why a BLIND verdict is one, and the blind sites per route and family."""
    out = []
    c = d.coverage
    if d.exit_status == ExitStatus.BLIND and c and c["changed"] and not c["executed"]:
        out.append(f"Not a pass: none of the {c['changed']} changed lines of code ran under "
                   "any fault, so what the change does was not seen "
                   f"(exit {ExitStatus.BLIND:d}).")
    elif d.exit_status == ExitStatus.BLIND:
        t = d.tally()["touched"]
        why = (f"every one of the {t['total']} sites whose stack runs through the change "
               "hung or crashed in both trees" if t["total"] else
               "no site's stack runs through the change" if d.touched.known else
               "no site was judged")
        out.append(f"Not a pass: {why}, so what the change does there was not seen "
                   f"(exit {ExitStatus.BLIND:d}).")
    groups = d.blind_groups()
    if groups:
        out.append("Blind (HANG or CRASH in both trees): " + ", ".join(
            f"{route} / `{family}` {b} of {n}" for route, family, b, n in groups) + ".")
    return out


def output_lines(d: Diff) -> list:
    """The groups whose output with no fault (their censuses' frames) changed, and those
    whose output was not steady enough to compare."""
    how = "said, not failed: --output-may-change" if d.output_may_change else "a regression"
    out = [f"The output with no fault changed ({how}): {line}" for line in d.output_changes]
    unsteady = list(dict.fromkeys(g.graph for g in d.groups if g.unsteady))
    if unsteady:
        out.append("The output with no fault differed run to run, not compared: "
                   + ", ".join(f"`{k}`" for k in unsteady))
    return out


def _cls(s, seen) -> str:
    """The class, or every class the site showed when it was run again."""
    if s is None:
        return "—"
    return s.cls.value if len(set(seen)) == 1 else "/".join(c.value for c in seen)


def _left(p: Pair, i: int) -> str:
    """A leak regression's cell: the most blocks the side's runs left behind."""
    if not p.leak:
        return ""
    n = p.leaked[i] if p.sites[i] is not None else []
    return f", leaks {max(n)}" if n else ""


def _dropped(p: Pair) -> str:
    """A dropped error's cell: the first line the to-tree logged and did not return."""
    if not p.dropped:
        return ""
    return f", an error logged and not returned: \"{p.said[1][0][0].strip()}\""


def _row(p: Pair) -> str:
    a, b = p.sites
    repro = (b or a).command
    nth = f" #{p.nth + 1}" if p.nth else ""
    mark = {"function": " (touched)", "file": " (touched file)"}.get(p.touched, "")
    return (f"| {p.group.backend} / {p.group.filter} | {p.group.route} | `{p.group.family}` "
            f"| `{p.value}` | `{p.where}`{nth}{mark} | {_cls(a, p.seen[0])}{_left(p, 0)} "
            f"| {_cls(b, p.seen[1])}{_left(p, 1)}{_dropped(p)} | `{repro}` |")


SECTIONS = ((Change.REGRESSION, "Regressions"), (Change.ERROR, "Not judged (ERROR)"),
            (Change.FIX, "Fixes"), (Change.FLAKY, "Flaky (not judged)"),
            (Change.CHANGED, "Changed otherwise"),
            (Change.ONLY_FROM, "Only in {a}"), (Change.ONLY_TO, "Only in {b}"))
HEADER = "| backend / filter | route | family | value | where | {a} | {b} | reproduce |"
RULE = "|---|---|---|---|---|---|---|---|"
BLIND_ROWS = 20  # blind sites through the change listed in the markdown (the JSON has all)


def markdown(d: Diff) -> str:
    """A PR comment: the verdict, every site that is not the same (with the command that
    reruns it in the to-tree), and per group how many sites each class has."""
    a, b = (s.label for s in d.sides)
    lines = [f"## Fault sweep diff: {a} -> {b}", ""]
    mine = d.sides[1].tree.source.get("patches")
    if mine:  # a tree built with --patch
        lines += [f"{b}: " + ("the patch " if len(mine) == 1 else "the patches ")
                  + ", ".join(f"`{p}`" for p in mine), ""]
    lines += [verdict_line(d), ""]
    lines += [f"- {line}" for line in blind_lines(d)]
    if d.touched.known and d.touched.paths:
        fn = ", ".join(f"`{f}`" for f in d.touched.names()) or "none"
        lines.append(f"- The change touches {len(d.touched.paths)} file"
                     f"{'s' * (len(d.touched.paths) != 1)} "
                     f"({', '.join(f'`{x}`' for x in d.touched.paths[:8])}"
                     f"{', ...' if len(d.touched.paths) > 8 else ''}); functions: {fn}.")
    if d.coverage:
        unrun = [f"`{path}:{n}`" for path, f in d.coverage["files"].items()
                 for n in f["changed"] if n not in f["executed"]]
        if unrun:
            lines.append(f"- Changed lines no fault reached ({len(unrun)}): "
                         + ", ".join(unrun[:BLIND_ROWS]) + (", ..." if len(unrun) > BLIND_ROWS
                                                             else "") + ".")
        partly = [f"`{path}:{n}`" for path, f in d.coverage["files"].items()
                  for n in f["not_taken"] if n in f["executed"]]
        if partly:
            lines.append(f"- Changed lines with a branch no fault took ({len(partly)}): "
                         + ", ".join(partly[:BLIND_ROWS]) + ".")
    for e in d.census_errors:
        lines.append(f"- {e}")
    lines += [f"- {line}" for line in output_lines(d)]
    for ch, title in SECTIONS:
        rows = [p for p in d.pairs if p.change is ch]
        if not rows:
            continue
        lines += ["", f"### {title.format(a=a, b=b)} ({len(rows)})", "",
                  HEADER.format(a=a, b=b), RULE] + [_row(p) for p in rows]
        notes = [(p, leak_note(p, a, b)) for p in rows]
        if any(n for _, n in notes):  # a leak: more of FFmpeg's blocks left behind
            lines.append("")
            lines += [f"- `{p.where}`{f' #{p.nth + 1}' if p.nth else ''} (`{p.value}`, "
                      f"{p.group.route}): {n}" for p, n in notes if n]
    blind = [p for p in d.pairs if p.blind and p.touched]
    if blind:
        lines += ["", f"### Blind sites through the change ({len(blind)})", "",
                  HEADER.format(a=a, b=b), RULE]
        lines += [_row(p) for p in blind[:BLIND_ROWS]]
        if len(blind) > BLIND_ROWS:
            lines += ["", f"... and {len(blind) - BLIND_ROWS} more (`--json` lists every site)."]
    lines += ["", "### Every family", "",
              f"| backend / filter | route | family | sites {a} | sites {b} | {a} | {b} | blind |",
              "|---|---|---|---|---|---|---|---|"]
    none = [g.key for g in d.groups if g.sites == [0, 0]]  # said once, below the table
    for g in d.groups:
        if g.sites == [0, 0]:
            continue
        mine = [p for p in d.pairs if p.group is g]
        tally = [", ".join(f"{n} {c}" for c, n in sorted(Counter(
            p.sites[i].cls.value for p in mine if p.sites[i] is not None).items())) or "—"
            for i in (0, 1)]
        counts = ["—" if n is None else str(n) for n in g.sites]
        lines.append(f"| {g.backend} / {g.filter} | {g.route} | `{g.family}` | {counts[0]} "
                     f"| {counts[1]} | {tally[0]} | {tally[1]} | {sum(p.blind for p in mine)} |")
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
            f"ended: {n}, {each}; runs that hung: {d.hang_seconds:.1f} s of run time"
            + (f"; {d.taken} runs of the from-tree taken from an earlier diff's, kept in the "
               "cache (--fresh runs them again)" if d.taken else ""))


def rate(d: Diff) -> float:
    return d.runs / d.seconds["total"] if d.seconds["total"] else 0.0


def _site_json(s) -> dict | None:
    if s is None:
        return None
    leaks = leaks_of(s.result)
    leaks = leaks.to_dict() if leaks is not None else None
    return {"call": s.index + 1, "class": s.cls.value, "where": s.where,
            "reproduce": s.command, "outcome": s.result.outcome.value,
            "reason": s.result.reason, "seconds": round(s.result.seconds, 3),
            **({"leaks": leaks} if leaks is not None else {})}


def to_json(d: Diff) -> dict:
    c = d.count()
    return {
        **envelope("diff", [s.tree for s in d.sides], d.exit_status),
        "from": _side_json(d.sides[0]), "to": _side_json(d.sides[1]),
        "word": WORDS[d.exit_status],
        "verdict": {ch.value: c[ch] for ch in Change},
        "counts": d.tally(),
        "blind": [{"route": r, "family": f, "blind": b, "sites": n}
                  for r, f, b, n in d.blind_groups()],
        "touched": d.touched.to_json(),
        "coverage": d.coverage,
        "focus": ({"run": d.focus[0], "found": d.focus[1]}
                  | ({"groups_run": d.focus[2], "groups": d.focus[3]} if len(d.focus) > 2
                     else {})) if d.focus else None,
        "census_errors": d.census_errors,
        "output_changes": d.output_changes, "output_may_change": d.output_may_change,
        "groups": [{"backend": g.backend, "filter": g.filter, "route": g.route,
                    "family": g.family,
                    "fault": g.fault, "sites": {"from": g.sites[0], "to": g.sites[1]},
                    "errors": {"from": g.errors[0], "to": g.errors[1]},
                    "left": {"from": g.left[0], "to": g.left[1]},
                    "output": {"changed": g.output, "unsteady": g.unsteady}}
                   for g in d.groups],
        "shard": list(d.shard) if d.shard else None,
        "inputs": inputs(d),
        "sites": [{"order": list(p.order), "backend": p.group.backend, "filter": p.group.filter,
                   "route": p.group.route, "family": p.group.family, "place": p.place,
                   "nth": p.nth, "value": p.value, "change": p.change.value, "blind": p.blind,
                   "judged": p.judged, "touched": p.touched,
                   "seen": {"from": [c.value for c in p.seen[0]],
                            "to": [c.value for c in p.seen[1]]},
                   "leaked": {"from": p.leaked[0], "to": p.leaked[1]}, "leak": p.leak,
                   "said": {"from": p.said[0], "to": p.said[1]}, "dropped_error": p.dropped,
                   "from": _site_json(p.sites[0]),
                   "to": _site_json(p.sites[1])} for p in d.pairs],
        "timing": {**{f"{k}_seconds": v for k, v in d.seconds.items()}, "runs": d.runs,
                   "runs_per_second": round(rate(d), 3),
                   "hang_seconds": d.hang_seconds, "ended_runs": d.ended[0],
                   "ended_seconds": d.ended[1], "kept_runs": d.taken},
    }


def inputs(d: Diff) -> dict:
    """What makes two diffs (or two shards of one) the same diff: the trees, by key, and
    the groups, each with its spec and what the censuses counted."""
    return {"from": d.sides[0].tree.key, "to": d.sides[1].tree.key, "values": d.values,
            "focus": bool(d.focus),
            "groups": [[g.key, g.fault, g.sites, [bool(e) for e in g.errors]] for g in d.groups]}


def _side_json(s: Side) -> dict:
    t = s.tree
    return {"label": s.label, "tree": t.name, "path": str(t.path), "key": t.key,
            "source": t.source, "series": t.series}
