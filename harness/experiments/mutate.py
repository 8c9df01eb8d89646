"""The gate's own mutation score over FFmpeg's error handling (`harness mutate`): each
mutant of a file's error handling (harness/judge/mutants.py) is a patch on the from-tree,
built as a to-tree of its own (harness/obtain/patched.py OnTree: the from-tree's objects,
the mutated one compiled again, instrumented), and diffed against the from-tree
(harness/experiments/diff.py), small: only the groups (backend / filter / route / family)
whose census, run once on the from-tree, has a site whose stack runs through the mutated
function, and in those only the sites through it (what the diff marks), a few groups at a
time, the rest left once a regression has killed it. Each mutant's fate
is the judge's (harness/judge/mutate.py); one that needs no diff (not compiled,
equivalent, blind) is neither built nor run.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from harness.judge import mutants as ops
from harness.judge import mutate as fates
from harness.judge.mutate import EQUIVALENT, UNBUILT, Fate, Score
from harness.paths import cache_root

CONFIRM = 2  # runs more of a site whose class changed (the diff's default is 4)
RUN_STARTED = int(time.time())  # with the pid, what names this process's mutant trees
PART = 8  # groups a mutant's diff runs at once: once one kills it, the rest are not run


def compiled_lines(tree, path: str) -> set | None:
    """The lines of `path` the tree's compiler sees (what its preprocessor keeps, with the
    object's own command line, read from `make -n`), None when that cannot be read."""
    obj = str(Path(path).with_suffix(".o"))
    # -W: as if the source had changed, so only the object's own recipe is printed (-B
    # would remake the makefiles make includes, .version, in the tree)
    r = subprocess.run(["make", "-n", "-W", path, obj], cwd=tree.src, capture_output=True,
                       text=True)
    cmd = next((l for l in r.stdout.splitlines() if f"-o {obj}" in l and " -c " in l), None)
    if cmd is None:
        return None
    cmd = re.sub(r" -M(MD|D|P)\b| -M[FTQ] \S+", "", cmd).replace(f"-o {obj}", "-o -")
    cmd = cmd.replace(" -c ", " -E ")
    r = subprocess.run(cmd, shell=True, cwd=tree.src, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    lines, current, here = set(), 0, False
    for out in r.stdout.splitlines():
        m = re.match(r'# (\d+) "([^"]+)"', out)
        if m:
            current, here = int(m.group(1)), m.group(2).endswith(path)
            continue
        if here and out.strip():
            lines.add(current)
        current += 1
    return lines


def censuses(tree, groups: list, preload: str, jobs: int, expect, memo=None) -> dict:
    """group key -> the stacks (`where`) of every site of the group's census on `tree`;
    each census kept in `memo`, where a mutant's diff finds it (the same scenario)."""
    from harness.experiments import sweep
    from harness.experiments.batch import Batch
    from harness.run import matrix
    scs = [sweep.census(matrix.scenarios([tree], g.backend, g.filter, [g.fault],
                                         route=sweep.ROUTES[g.route])[0]) for g in groups]
    out = {}
    for g, r in zip(groups, Batch(preload, jobs, expect, None, memo=memo).run(scs)):
        out[g.key] = [s.where for s in r.record.sites or []]
    return out


def one(m: ops.Mutant, text: str, tree, layout, groups: list, preload: str, jobs: int,
        expect, values: str, confirm: int, keep: bool, memo=None) -> Fate:
    """Build the mutant's tree, diff it against `tree` on `groups`, only the sites
    through its function (`tree`'s runs taken from `memo` when a mutant before made
    them); remove its tree and module unless `keep`."""
    from harness.errors import CompileError
    from harness.experiments import diff
    from harness.judge import touched
    from harness.judge.diff import Side
    from harness.obtain.patched import OnTree
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ffdnn-mutant-") as tmp:
        mail = Path(tmp) / f"mutant-{m.name}.patch"
        # kept, a mutant's tree is the cache's, found again by the next run; else it is this
        # run's own, removed once judged while another run may build the same mutant
        mail.write_text(m.mail(text, "" if keep else f"{os.getpid()}-{RUN_STARTED}"))
        plan = OnTree(tree, [mail], layout)
        try:
            mutant = plan.get(plan.patched)
        except CompileError as e:
            return Fate(m, UNBUILT, e.first, seconds=round(time.monotonic() - t0, 1))
    from harness.run import forkclient
    pool, diffs, run = forkclient.Pool(), [], []
    try:
        change = touched.between(tree, mutant)
        for part in parts(groups):  # a part at a time: the first regression kills it
            gs = [replace(g, sites=[], errors=[]) for g in part]
            diffs.append(diff.run([Side(tree.name, tree), Side(m.name, mutant)], gs, preload,
                                  jobs, expect, confirm=confirm, touched=change, pool=pool,
                                  values=values, only=lambda mark: mark == "function",
                                  memo=memo))
            run += part
            if fates.of_diff(m, diffs[-1], part, 0).fate in (fates.KILLED, fates.ERROR):
                break
    finally:
        pool.close()
        if not keep:
            remove(mutant)
    return fates.of_diffs(m, diffs, run, round(time.monotonic() - t0, 1))


def parts(groups: list) -> list:
    """The groups a mutant's diff runs, PART at a time, in order."""
    return [groups[i:i + PART] for i in range(0, len(groups), PART)]


def remove(tree) -> None:
    """A mutant's tree and its modules, out of the cache (each about 270 MB)."""
    for d in [tree.path, *(cache_root() / "ext").glob(f"{tree.path.name}-*")]:
        shutil.rmtree(d, ignore_errors=True)


def run(tree, files: list, layout, groups: list, preload: str, jobs: int = 2, expect=None,
        values: str = "one", confirm: int = CONFIRM, operators=ops.OPERATORS,
        equivalent_file: Path = EQUIVALENT, keep: bool = False, limit=None,
        functions=None, progress=print, not_run=None, fresh: bool = False,
        sample: int | None = None, seed: int = 1) -> Score:
    """Every mutant of `files` (repository paths of `tree`) by `operators`, each judged;
    with `sample`, that many of them drawn at random (`seed`), in the files' order.
    `not_run`: path -> the lines of code no fault ran in the tree's sweep (`harness
    coverage --json` of the same sources): a mutant there is blind without a build (the
    diff would find none of its changed lines run under a fault). The tree's side of every
    mutant's diff is run once, and kept for the next command against it
    (harness/experiments/kept.py; `fresh`: none taken from an earlier one)."""
    from harness.experiments import kept
    from harness.paths import cache_root
    from harness.run.runner import NOTHING
    t0, expect = time.monotonic(), expect or NOTHING
    memo = kept.load(tree, cache_root(), fresh=fresh)
    from harness.judge import branchcov
    equivalent, unreachable = fates.read_equivalent(equivalent_file), \
        branchcov.read_unreachable(branchcov.UNREACHABLE)
    stacks = censuses(tree, groups, preload, jobs, expect, memo)
    chosen = []  # (mutant, its file's text, the lines compiled, the branches no fault reaches)
    for path in files:
        text = (tree.src / path).read_text(errors="replace")
        seen = compiled_lines(tree, path)
        never = fates.in_unreachable(text, path, unreachable)
        ms = [m for m in ops.mutants(text, path, operators)
              if functions is None or m.function in functions]
        chosen += [(m, text, seen, never) for m in ms[:limit]]
    population = len(chosen)
    chosen = fates.draw(chosen, sample, seed)
    out = []
    for m, text, seen, never in chosen:
        f = fates.without_run(m, seen, equivalent, never, (not_run or {}).get(m.path, ()))
        if f is None:
            through = fates.groups_through(m, groups, stacks)
            f = one(m, text, tree, layout, through, preload, jobs, expect, values, confirm,
                    keep, memo) if through else fates.not_through(m)
        out.append(f)
        if progress:
            progress(f"mutant {len(out)}/{len(chosen)} {m.path}:{m.line} {m.operator} in "
                     f"{m.function}(): {f.fate}" + (f" ({f.seconds:.0f} s)" if f.seconds else ""))
    kept.save(memo, tree, cache_root())
    return Score(tree, out, round(time.monotonic() - t0, 1), str(equivalent_file),
                 memo.reused, (population, seed) if len(chosen) < population else None)
