"""A change made on purpose to a built tree's source, for the tests that show what the gate
does with it: a clone of the tree's git repository with some lines rewritten and committed,
that commit as a git am-able patch, and a mutant of the tree's error handling diffed as
`harness mutate` diffs it."""

import os
import re
import subprocess

from harness.obtain.recipe import GIT_ID


def commit(tree, tmp_path, path: str, old: str, new: str, subject: str):
    """A clone of `tree`'s source (sharing its objects) with `old` (which must stand once
    in `path`) rewritten as `new` and committed: the clone's directory."""
    repo = tmp_path / "ffmpeg"
    subprocess.run(["git", "clone", "-q", "--shared", str(tree.src), str(repo)], check=True)
    text = (repo / path).read_text()
    assert text.count(old) == 1, f"{tree.name} has the lines once in {path}: {old}"
    (repo / path).write_text(text.replace(old, new))
    subprocess.run(["git", "-C", str(repo), "commit", "-qam", subject], check=True,
                   env={**os.environ, **GIT_ID})
    return repo


def patch(tree, tmp_path, path: str, old: str, new: str, subject: str) -> str:
    """commit()'s change as a patch file (git format-patch): its path."""
    repo = commit(tree, tmp_path, path, old, new, subject)
    out = subprocess.run(["git", "-C", str(repo), "format-patch", "-1", "-o", str(tmp_path)],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, **GIT_ID})
    return out.stdout.strip()


def fate(m, tree, case: str, pair: tuple, family: str, preload, routes=("sweep",)):
    """The mutant `m` of `tree` (harness/judge/mutants.py) built and diffed as `harness
    mutate` does, on `pair`'s graph with `family` failed over `routes` (the worker's:
    "sweep" is the frames route), with the first value of each profile: its Fate."""
    from harness import caseload
    from harness.compile.families import sweep_fault
    from harness.experiments import diff, mutate
    groups = diff.plan_groups([pair], [sweep_fault(family)], routes=routes)
    c = caseload.load(case)
    return mutate.one(m, (tree.src / m.path).read_text(), tree, c.layout, groups, preload, 2,
                      c.expect, "one", 1, False)


def killed_by_a_leak(m, tree, case: str, pair: tuple, family: str, preload,
                     routes=("sweep",)) -> list:
    """fate() of the mutant asserted killed, every regression the error surfaced in both
    trees and the mutant left one block more behind; the regressions."""
    f = fate(m, tree, case, pair, family, preload, routes)
    assert f.fate == "killed", f
    left = [re.search(r"SURFACED -> SURFACED, leaks (\d+) -> (\d+) blocks", r)
            for r in f.regressions]
    assert left and all(x and int(x[2]) == int(x[1]) + 1 for x in left), f.regressions
    return f.regressions
