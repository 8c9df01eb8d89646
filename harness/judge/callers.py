"""The PR's "Callers" paragraph from real runs: on every backend and filter built, the
census of the calls of one family (the case's paragraph names it: pthread_create for the
PR's) FFmpeg's own code makes (run by harness/experiments/callers.py), each call named by
its stack; checked against a case's paragraph (its callers)."""

from dataclasses import dataclass, field
from types import SimpleNamespace

from harness.judge import sweep
from harness.run import chains as graphs
from harness.run.outcome import Outcome, functions


@dataclass
class Census:
    build: str
    backend: str
    filter: str
    result: object                      # the census run's runner.Result
    calls: int = 0                      # eligible calls of the family
    stacks: list = field(default_factory=list)  # "f (file:line) < g ..." per call


def pairs(have: set) -> list:
    """Every (backend, filter) with a graph on this base whose backends are built."""
    return [k for k in graphs.GRAPHS if graphs.needs(*k) <= have]


def diffs(c: Census, want: dict) -> list:
    """What one census shows against the paragraph `want` ({"family": the calls' family,
    "creates": function, "reached_from": {backend: (functions,)}}): every call made in
    `creates`, from a function of the backends the graph uses, and none from a graph
    whose backends have no such function; the run itself must have run clean, injector
    loaded."""
    r, out = c.result, []
    if r.outcome not in (Outcome.PASS, Outcome.MEASURED):
        return [f"the census run ended {r.outcome.value}: {r.reason}"]
    if not r.record.injector:
        return ["the census run had no injector loaded"]
    frames = r.record.frames or []
    if len(frames) != sweep.FRAMES:
        out.append(f"{len(frames)} frames out of {sweep.FRAMES}: the run did not go through")
    callers = {f for b in graphs.needs(c.backend, c.filter)
               for f in want["reached_from"][b]}
    if not callers and c.calls:
        out.append(f"{c.calls} {want['family']}() calls, expected none: {c.stacks[:1]}")
    if callers and not c.calls:
        out.append(f"no {want['family']}() call, expected some from "
                   f"{', '.join(sorted(callers))}")
    if len(c.stacks) != c.calls:
        out.append(f"{len(c.stacks)} stacks named for {c.calls} calls")
    for i, where in enumerate(c.stacks):
        fs = functions(where)
        if fs[:1] != [want["creates"]] or len(fs) < 2 or fs[1] not in callers:
            out.append(f"call {i + 1}: {where}, expected {want['creates']} < "
                       f"{' or '.join(sorted(callers)) or '(no caller)'}")
    return out


def row(want: dict, names: list, censuses: list) -> dict:
    """The paragraph's row of the claims table (harness/judge/claims.py): on each tree of
    `names`, its calls over the graphs and where they are made, and the verdict of every
    census against the paragraph `want`."""
    from harness.judge import claims
    cells, found = {}, {}
    for name in names:
        mine = [c for c in censuses if c.build == name]
        found[name] = [f"{c.backend} / {c.filter}: {d}" for c in mine
                       for d in diffs(c, want)]
        calls = sum(c.calls for c in mine)
        where = sorted({" < ".join(functions(w)[:2]) for c in mine for w in c.stacks})
        cells[name] = (f"{calls} calls over {len(mine)} graphs"
                       + (f", each {' or '.join(where)}" if where else ""))
    paragraph = SimpleNamespace(commit=want["commit"], id="callers", claim=want["cites"],
                                not_expressible="")
    return claims.row_of(paragraph, cells, claims.verdict(paragraph, found))
