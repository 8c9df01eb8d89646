"""The unchanged-output rows with a trained model over real footage (issue 19), run: the
clip made, the models fetched, each row's program run on each tree (what their counts
show: harness/judge/trained.py). A row whose package cannot be fetched is skipped with a
reason naming it, never run on something else.
"""

from dataclasses import dataclass, field

from harness.experiments import unchanged
from harness.judge import unchanged as u
from harness.obtain import footage, packages
from harness.run import chains


@dataclass
class Plan:
    rows: list = field(default_factory=list)    # (TrainedRow, u.Row)
    skipped: list = field(default_factory=list)  # one line each: row and reason
    clip: object = None


def plan(backends: set, tree, short: bool = False, rows=()) -> Plan:
    """The rows (a case's trained_rows) this build can run; the clip, or every row
    skipped with the reason."""
    p = Plan()
    try:
        p.clip = footage.clip(tree, unchanged.ffmpeg, footage.SHORT if short else footage.FULL)
    except packages.PackageError as e:
        p.skipped = [f"{r.label} ({r.what}): skipped, no real footage: {e}" for r in rows]
        return p
    for r in rows:
        if not r.needs <= set(backends):
            p.skipped.append(f"{r.label} ({r.what}): skipped, the build has no "
                             f"{', '.join(sorted(r.needs - set(backends)))}")
            continue
        try:
            for name in r.packages:
                packages.fetch(name)
            paths = {k: chains.cached_model(m) for k, m in r.models.items()}
        except packages.PackageError as e:
            p.skipped.append(f"{r.label} ({r.what}): skipped: {e}")
            continue
        p.rows.append((r, u.Row(r.label, r.what, r.chain.format(**paths))))
    return p


def run(trees, p: Plan) -> None:
    unchanged.run_rows(trees, [], [row for _, row in p.rows], p.clip)
