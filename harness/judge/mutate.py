"""The gate's own mutation score over FFmpeg's error handling (`harness mutate`): each
mutant of a file's error handling (harness/judge/mutants.py) is a patch on the from-tree,
built as a to-tree of its own (harness/obtain/patched.py OnTree: the from-tree's objects,
the mutated one compiled again, instrumented), and diffed against the from-tree
(harness/judge/diff.py), small: only the groups (backend / filter / route / family)
whose census, run once on the from-tree, has a site whose stack runs through the mutated
function, and in those only the sites through it (what the diff marks). The diff's exit
status is the mutant's fate: 1 killed, 0 survived, 3 blind. A mutant no census site runs
through is blind without a run; one on a line the compiler never sees (an #if's other
side) is not compiled, and neither is built. One the data file (EQUIVALENT) explains as
equivalent is not built either, and is counted apart, as is one inside a branch the data
file of unreachable branches names (its code never runs, its check is never true).
"""

import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.errors import ExitStatus
from harness.judge import mutants as ops
from harness.paths import cache_root, data_dir

EQUIVALENT = data_dir("builds") / "equivalent-mutants.txt"
KILLED, SURVIVED, BLIND, EQUIV = "killed", "survived", "blind", "equivalent"
UNBUILT, UNCOMPILED, ERROR = "does not build", "not compiled", "error"
FATES = (KILLED, SURVIVED, BLIND, EQUIV, UNCOMPILED, UNBUILT, ERROR)
CONFIRM = 2  # runs more of a site whose class changed (the diff's default is 4)


@dataclass
class Fate:
    mutant: ops.Mutant
    fate: str
    why: str = ""                                   # the diff's word, or the data file's
    groups: list = field(default_factory=list)      # the groups its diff ran
    runs: int = 0
    seconds: float = 0.0
    regressions: list = field(default_factory=list)  # what killed it: one line each


def read_equivalent(path: Path) -> dict:
    """mutant key -> why, from the data file: `path :: function :: operator :: the
    mutated line as written :: why`, one a line; `#` lines and blank ones ignored."""
    out = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            parts = [p.strip() for p in line.split(" :: ")]
            if line.strip() and not line.lstrip().startswith("#") and len(parts) >= 5:
                out[" :: ".join(parts[:4])] = " :: ".join(parts[4:])
    return out


def in_unreachable(text: str, path: str, unreachable: dict) -> list:
    """(start, end, why) of each branch of the file the data file of unreachable branches
    names (harness/judge/branchcov.py UNREACHABLE): from its `if` to its last statement.
    A mutant there is equivalent: the code it changes never runs, or its check is never
    true."""
    from harness.judge import branchcov, branches
    out = []
    for key, b in branchcov.keyed(branches.branches(text, path)):
        if key in unreachable and b.own:
            out.append((b.offset, b.own[-1].end, unreachable[key]))
    return out


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


def censuses(tree, groups: list, preload: str, jobs: int, expect) -> dict:
    """group key -> the stacks (`where`) of every site of the group's census on `tree`."""
    from harness.judge import sweep
    from harness.run import matrix
    from harness.run.runner import run as run_all
    scs = [sweep.census(matrix.scenarios([tree], g.backend, g.filter, [g.fault],
                                         route=sweep.ROUTES[g.route])[0]) for g in groups]
    out = {}
    for g, r in zip(groups, run_all(scs, preload, jobs=jobs, expect=expect)):
        out[g.key] = [s.get("where", "") for s in r.data.get("sites", [])]
    return out


def through(m: ops.Mutant):
    """A Touched (harness/judge/touched.py) of the mutant's function, which marks a
    census stack that runs through it."""
    from harness.judge.touched import Touched
    return Touched(paths=(m.path,), functions=frozenset({(Path(m.path).name, m.function)}))


def one(m: ops.Mutant, text: str, tree, layout, groups: list, preload: str, jobs: int,
        expect, values: str, confirm: int, keep: bool) -> Fate:
    """Build the mutant's tree, diff it against `tree` on `groups`, only the sites
    through its function; remove its tree and module unless `keep`."""
    from harness.errors import CompileError
    from harness.judge import diff, touched
    from harness.obtain.patched import OnTree
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ffdnn-mutant-") as tmp:
        mail = Path(tmp) / f"mutant-{m.name}.patch"
        mail.write_text(m.mail(text))
        plan = OnTree(tree, [mail], layout)
        try:
            mutant = plan.get(plan.patched)
        except CompileError as e:
            return Fate(m, UNBUILT, e.first, seconds=round(time.monotonic() - t0, 1))
    try:
        gs = [replace(g, sites=[], errors=[]) for g in groups]
        d = diff.run([diff.Side(tree.name, tree), diff.Side(m.name, mutant)], gs, preload,
                     jobs, expect, confirm=confirm, touched=touched.between(tree, mutant),
                     values=values, only=lambda mark: mark == "function")
    finally:
        if not keep:
            remove(mutant)
    status = d.exit_status
    regressions = [f"{p.group.key}: {p.where}" + (f" ({p.value})" if p.value else "") + ": "
                   + " -> ".join(s.cls.value if s else "none" for s in p.sites)
                   for p in d.pairs if p.change is diff.Change.REGRESSION]
    c = d.coverage or {}
    lines = f"changed lines executed under a fault: {c.get('executed', '?')} of " \
            f"{c.get('changed', '?')}" if c else "changed lines not measured"
    t = d.tally()["touched"]
    why = f"{t['judged']} judged, {t['blind']} blind of {t['total']} sites; {lines}"
    if status == ExitStatus.FAIL and not regressions:
        fate, why = ERROR, "; ".join(d.census_errors) or "a site could not run"
    else:
        fate = {ExitStatus.FAIL: KILLED, ExitStatus.OK: SURVIVED}.get(status, BLIND)
    return Fate(m, fate, why, [g.key for g in groups], d.runs,
                round(time.monotonic() - t0, 1), regressions)


def remove(tree) -> None:
    """A mutant's tree and its modules, out of the cache (each about 270 MB)."""
    for d in [tree.path, *(cache_root() / "ext").glob(f"{tree.path.name}-*")]:
        shutil.rmtree(d, ignore_errors=True)


@dataclass
class Score:
    tree: object
    fates: list
    seconds: float = 0.0
    data_file: str = ""

    def count(self, fates=None) -> Counter:
        return Counter(f.fate for f in (self.fates if fates is None else fates))

    def rate(self, fates=None) -> dict:
        """killed of the mutants that are neither equivalent nor uncompiled, and killed of
        those the diff ran and judged (killed + survived)."""
        n = self.count(fates)
        scored = n[KILLED] + n[SURVIVED] + n[BLIND]
        return {"killed": n[KILLED], "scored": scored,
                "score": round(100.0 * n[KILLED] / scored, 1) if scored else 100.0,
                "of_judged": round(100.0 * n[KILLED] / (n[KILLED] + n[SURVIVED]), 1)
                if n[KILLED] + n[SURVIVED] else 100.0}


def run(tree, files: list, layout, groups: list, preload: str, jobs: int = 2, expect=None,
        values: str = "one", confirm: int = CONFIRM, operators=ops.OPERATORS,
        equivalent_file: Path = EQUIVALENT, keep: bool = False, limit=None,
        functions=None, progress=print, not_run=None) -> Score:
    """Every mutant of `files` (repository paths of `tree`) by `operators`, each judged.
    `not_run`: path -> the lines of code no fault ran in the tree's sweep (`harness
    coverage --json` of the same sources): a mutant there is blind without a build (the
    diff would find none of its changed lines run under a fault)."""
    from harness.run.runner import NOTHING
    t0, expect = time.monotonic(), expect or NOTHING
    from harness.judge import branchcov
    equivalent, unreachable = read_equivalent(equivalent_file), \
        branchcov.read_unreachable(branchcov.UNREACHABLE)
    stacks = censuses(tree, groups, preload, jobs, expect)
    fates = []
    for path in files:
        text = (tree.src / path).read_text(errors="replace")
        seen = compiled_lines(tree, path)
        never = in_unreachable(text, path, unreachable)
        ms = [m for m in ops.mutants(text, path, operators)
              if functions is None or m.function in functions]
        for m in ms[:limit]:
            if seen is not None and m.line not in seen:
                fates.append(Fate(m, UNCOMPILED, "the preprocessor leaves the line out"))
            elif m.key in equivalent:
                fates.append(Fate(m, EQUIV, equivalent[m.key]))
            elif any(a <= m.start and m.end <= z for a, z, _ in never):
                why = next(w for a, z, w in never if a <= m.start and m.end <= z)
                fates.append(Fate(m, EQUIV, f"in a branch no fault can reach ("
                                            f"{branchcov.UNREACHABLE.name}): {why}"))
            elif m.line in (not_run or {}).get(path, ()):
                fates.append(Fate(m, BLIND, "no fault of the tree's sweep ran its line "
                                            "(the coverage report): not run"))
            else:
                mark = through(m).mark
                picked = [g for g in groups if any(mark(w) for w in stacks.get(g.key, ()))]
                if not picked:
                    fates.append(Fate(m, BLIND, f"no census site's stack runs through "
                                                f"{m.function}(): not run"))
                else:
                    fates.append(one(m, text, tree, layout, picked, preload, jobs, expect,
                                     values, confirm, keep))
            f = fates[-1]
            if progress:
                progress(f"mutant {len(fates)}/{len(ms[:limit]) if len(files) == 1 else '?'}"
                         f" {m.path}:{m.line} {m.operator} in {m.function}(): {f.fate}"
                         + (f" ({f.seconds:.0f} s)" if f.seconds else ""))
    return Score(tree, fates, round(time.monotonic() - t0, 1), str(equivalent_file))
