"""Error-branch coverage of FFmpeg's DNN code under a tree's sweep (`harness coverage`):
the sweep of every family on every backend/filter pair and route runs on the tree's
coverage variant (harness/obtain/covered.py), each site's run writing what ran from the
fault's arm on into one directory (GCOV_PREFIX; the censuses, clean runs, count
nothing); gcov reads it back (harness/judge/coverage.py), and the judge says which error
branch a fault took (harness/judge/branchcov.py).
"""

import tempfile
import time
from pathlib import Path

from harness.judge import branchcov


def run(tree, groups: list, preload: str, jobs: int, expect, progress, results,
        directory: Path, pool=None) -> dict:
    """The sweep of every group on `tree` (a coverage variant), each site's run counting
    into `directory`: group key -> build -> Found (harness/judge/sweep.py)."""
    from harness.experiments import sweep
    from harness.judge import coverage
    from harness.run import matrix
    want = coverage.request(tree, directory)
    if want is None:
        raise ValueError(f"{tree.name}: not built with gcov's instrumentation")
    scs = {g.key: matrix.scenarios([tree], g.backend, g.filter, [g.fault],
                                   route=sweep.ROUTES[g.route]) for g in groups}
    return sweep.sweep_many(scs, preload, jobs, progress, results=results, expect=expect,
                            pool=pool, extra={"coverage": want})


def measure(tree, groups: list, preload: str, jobs: int = 2, expect=None, progress=None,
            results=None, unreachable_file: Path = branchcov.UNREACHABLE,
            pool=None) -> branchcov.Report:
    """Run the sweep on the coverage variant `tree` and judge every error branch of its
    DNN sources."""
    from harness.judge import coverage
    from harness.obtain import covered
    from harness.run.runner import NOTHING
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ffdnn-branches-") as d:
        found = run(tree, groups, preload, jobs, expect or NOTHING, progress, results, Path(d),
                    pool)
        t1 = time.monotonic()
        paths = covered.sources(tree)
        lines = coverage.gcov_lines(tree, Path(d), paths, unrun=True)
    texts = {p: (tree.src / p).read_text(errors="replace") for p in paths}
    r = branchcov.report(tree, texts, lines, unreachable_file, found)
    r.seconds = {"sweep": round(t1 - t0, 1), "total": round(time.monotonic() - t0, 1)}
    return r
