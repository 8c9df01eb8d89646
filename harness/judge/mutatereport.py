"""`harness mutate`'s reports: Markdown (stdout) and the JSON (docs/schema/mutate.json)."""

from harness.judge import mutate as m
from harness.judge.mutants import OPERATORS, squeeze


def _row(name: str, score: "m.Score", fates) -> str:
    n, r = score.count(fates), score.rate(fates)
    return (f"| {name} | {len(fates)} | {n[m.KILLED]} | {n[m.SURVIVED]} | {n[m.BLIND]} | "
            f"{n[m.EQUIV]} | {n[m.UNCOMPILED]} | {n[m.UNBUILT] + n[m.ERROR]} | {r['score']}% |")


def _what(f: "m.Fate") -> str:
    x = f.mutant
    return (f"`{x.path}:{x.line}` {x.function}(): {x.operator}: `{squeeze(x.before)}` -> "
            f"`{squeeze(x.after) or '(deleted)'}`")


def headline(s: "m.Score") -> str:
    r, n = s.rate(), s.count()
    drawn = ""
    if s.sample:
        within = s.interval()
        drawn = (f"a random sample of {len(s.fates)} of {s.sample[0]} mutants (seed "
                 f"{s.sample[1]})" + (f", the score of all of them within {within[0]}-"
                                      f"{within[1]}% (95%)" if within else "") + ": ")
    return (f"{drawn}**{r['killed']} of {r['scored']} mutants killed ({r['score']}%)**, "
            f"{r['of_judged']}% of those the diff judged (killed or survived); "
            f"{n[m.EQUIV]} equivalent, each explained (`{s.data_file}`), "
            f"{n[m.UNCOMPILED]} on lines the compiler does not see")


def markdown(s: "m.Score") -> str:
    head = ("| {} | mutants | killed | survived | blind | equivalent | not compiled | "
            "did not build or run | killed of killed + survived + blind |")
    out = [f"## Mutation score of the gate: {s.tree.name}", "", headline(s) + ".", "",
           head.format("file"), "|---" * 9 + "|"]
    files = {}
    for f in s.fates:
        files.setdefault(f.mutant.path, []).append(f)
    out += [_row(f"`{p}`", s, fs) for p, fs in files.items()]
    out += ["", head.format("operator"), "|---" * 9 + "|"]
    out += [_row(op, s, [f for f in s.fates if f.mutant.operator == op]) for op in OPERATORS]
    for title, fate in (("Survived", m.SURVIVED), ("Blind", m.BLIND),
                        ("Did not build", m.UNBUILT), ("Could not run", m.ERROR),
                        ("Equivalent", m.EQUIV), ("Killed", m.KILLED)):
        picked = [f for f in s.fates if f.fate == fate]
        if picked:
            out += ["", f"### {title} ({len(picked)})", ""]
            out += [f"- {_what(f)}: " + (f.regressions[0] + (f" (+{len(f.regressions) - 1})"
                                                            if len(f.regressions) > 1 else "")
                                         if fate == m.KILLED and f.regressions else f.why)
                    for f in picked]
    out += ["", f"{len(s.fates)} mutants in {s.seconds:.0f} s; {s.reused} runs of "
                f"{s.tree.name} taken from a diff before (a mutant's, or one kept in the "
                f"cache), not run again."]
    return "\n".join(out) + "\n"


def to_json(s: "m.Score") -> dict:
    files = {}
    for f in s.fates:
        files.setdefault(f.mutant.path, []).append(f)
    return {
        "summary": {**s.rate(), **{k: v for k, v in s.count().items()}},
        "files": [{"path": p, **s.rate(fs), "counts": dict(s.count(fs))}
                  for p, fs in files.items()],
        "by_operator": {op: {**s.rate(fs), "counts": dict(s.count(fs))}
                      for op in OPERATORS
                      for fs in [[f for f in s.fates if f.mutant.operator == op]]},
        "mutants": [{"path": f.mutant.path, "function": f.mutant.function,
                     "line": f.mutant.line, "operator": f.mutant.operator,
                     "before": f.mutant.before, "after": f.mutant.after, "key": f.mutant.key,
                     "fate": f.fate, "why": f.why, "groups": f.groups, "runs": f.runs,
                     "seconds": f.seconds, "regressions": f.regressions} for f in s.fates],
        "data_file": s.data_file, "seconds": s.seconds, "reused_runs": s.reused,
        "sample": ({"of": s.sample[0], "seed": s.sample[1],
                    "interval": list(within) if (within := s.interval()) else None}
                   if s.sample else None),
    }
