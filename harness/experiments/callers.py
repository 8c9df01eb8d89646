"""The census runs of the PR's "Callers" paragraph: on every backend and filter built,
one clean run of a family's calls (harness/experiments/sweep.py's census: a window that never
fails, armed before the first frame) per tree, each call named by its stack; the judge
checks them against the case's paragraph (harness/judge/callers.py)."""

from harness.experiments import sweep
from harness.judge.callers import Census, pairs
from harness.run import matrix
from harness.run.outcome import Outcome
from harness.run.record import Counters
from harness.run.runner import NOTHING, run as run_all


def run(trees, preload: str, family: str, jobs: int = 2, expect=NOTHING,
        pool=None) -> list:
    """One census run of `family`'s calls per tree and pair: [Census]; through `pool`'s
    fork servers, left running, when given (runner.run)."""
    from harness.compile.families import sweep_fault
    have = trees[0].backends
    scs = [sweep.census(sc) for backend, filt in pairs(have)
           for sc in matrix.scenarios(trees, backend, filt, [sweep_fault(family)],
                                      route="sweep")]
    out = []
    for sc, r in zip(scs, run_all(scs, preload, jobs=jobs, expect=expect, pool=pool)):
        c = Census(sc.build, sc.backend, sc.filter, r)
        if r.outcome in (Outcome.PASS, Outcome.MEASURED):
            c.calls = (r.record.counters or Counters()).eligible or 0
            c.stacks = [s.where for s in r.record.sites or []]
        out.append(c)
    return out
