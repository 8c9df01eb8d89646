"""The gate's own mutation score over FFmpeg's error handling (`harness mutate`, run by
harness/experiments/mutate.py): each mutant's fate. The diff of a mutant's tree against
the tree it mutates (harness/judge/diff.py) gives it by its exit status: 1 killed, 0
survived, 3 blind. A mutant no census site runs through is blind without a run; one on a
line the compiler never sees (an #if's other side) is not compiled. One the data file
(EQUIVALENT) explains as equivalent is counted apart, as is one inside a branch the data
file of unreachable branches names (its code never runs, its check is never true).
"""

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import ExitStatus
from harness.judge import mutants as ops
from harness.paths import data_dir

EQUIVALENT = data_dir("builds") / "equivalent-mutants.txt"
KILLED, SURVIVED, BLIND, EQUIV = "killed", "survived", "blind", "equivalent"
UNBUILT, UNCOMPILED, ERROR = "does not build", "not compiled", "error"
FATES = (KILLED, SURVIVED, BLIND, EQUIV, UNCOMPILED, UNBUILT, ERROR)


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
    true. One only another input reaches (`input:`) is not: the gate is blind to it."""
    from harness.judge import branchcov, branches
    out = []
    for key, b in branchcov.keyed(branches.branches(text, path)):
        if key in unreachable and b.own and not branchcov.another_input(unreachable[key]):
            out.append((b.offset, b.own[-1].end, unreachable[key]))
    return out


def through(m: ops.Mutant):
    """A Touched (harness/judge/touched.py) of the mutant's function, which marks a
    census stack that runs through it."""
    from harness.judge.touched import Touched
    return Touched(paths=(m.path,), functions=frozenset({(Path(m.path).name, m.function)}))


def without_run(m: ops.Mutant, seen: set | None, equivalent: dict, never: list,
                not_run) -> Fate | None:
    """The mutant's fate where no diff runs: on a line the compiler does not see (`seen`,
    None when that could not be read), explained in the data file of equivalent mutants,
    inside a branch no fault can reach (`never`: in_unreachable()), or on a line no fault
    of the tree's sweep ran (`not_run`), or a check made false whose branch none took;
    None: it is built and diffed."""
    from harness.judge import branchcov
    if seen is not None and m.line not in seen:
        return Fate(m, UNCOMPILED, "the preprocessor leaves the line out")
    if m.key in equivalent:
        return Fate(m, EQUIV, equivalent[m.key])
    if any(a <= m.start and m.end <= z for a, z, _ in never):
        why = next(w for a, z, w in never if a <= m.start and m.end <= z)
        return Fate(m, EQUIV, f"in a branch no fault can reach ("
                              f"{branchcov.UNREACHABLE.name}): {why}")
    if m.line in not_run:
        return Fate(m, BLIND, "no fault of the tree's sweep ran its line "
                              "(the coverage report): not run")
    if m.needs and m.needs in not_run:
        return Fate(m, BLIND, f"no fault of the tree's sweep took its branch (line {m.needs}, "
                              "its first, never ran: the coverage report): not run")
    return None


def groups_through(m: ops.Mutant, groups: list, stacks: dict) -> list:
    """The groups whose census (`stacks`: group key -> its sites' stacks) has a site whose
    stack runs through the mutant's function: those its diff runs."""
    mark = through(m).mark
    return [g for g in groups if any(mark(w) for w in stacks.get(g.key, ()))]


def not_through(m: ops.Mutant) -> Fate:
    """A mutant no census site's stack runs through: blind, not run."""
    return Fate(m, BLIND, f"no census site's stack runs through {m.function}(): not run")


def of_diff(m: ops.Mutant, d, groups: list, seconds: float) -> Fate:
    """The mutant's fate from the diff `d` of its tree against the tree it mutates, run on
    `groups`: its exit status (FAIL with no regression: killed when the mutant's own
    census failed and nothing else did, else an error: the tree's census or a site that
    could not run), the regressions that killed it, and any change of the output with no
    fault (the diff fails it too)."""
    from harness.judge import diff
    status = d.exit_status
    regressions = [f"{p.group.key}: {p.where}" + (f" ({p.value})" if p.value else "") + ": "
                   + " -> ".join(s.cls.value if s else "none" for s in p.sites)
                   + (f", leaks {max(p.leaked[0], default=p.group.left[1] or 0)} -> "
                      f"{max(p.leaked[1])} blocks"
                      if getattr(p, "leak", False) else "")
                   + (", an error logged and not returned" if getattr(p, "dropped", False)
                      else "")
                   for p in d.pairs if p.change is diff.Change.REGRESSION] \
        + [f"{line}: the output with no fault changed"
           for line in getattr(d, "output_changes", [])]
    why = seen([d])
    # the mutant breaks the run with no fault (its tree's census fails, the tree's does
    # not): the diff fails the change for it, as it would any patch that does so
    broken = [f"{g.key}: its census: {g.errors[1]}" for g in d.groups
              if len(g.errors) > 1 and g.errors[1] and not g.errors[0]]
    if status == ExitStatus.FAIL and not regressions and broken and \
            len(broken) == len(d.census_errors) and not d.count()[diff.Change.ERROR]:
        fate, why, regressions = KILLED, "the mutant's own run without a fault fails", broken
    elif status == ExitStatus.FAIL and not regressions:
        fate, why = ERROR, "; ".join(d.census_errors) or "a site could not run"
    else:
        fate = {ExitStatus.FAIL: KILLED, ExitStatus.OK: SURVIVED}.get(status, BLIND)
    return Fate(m, fate, why, [g.key for g in groups], d.runs, seconds, regressions)


def of_diffs(m: ops.Mutant, diffs: list, groups: list, seconds: float) -> Fate:
    """The mutant's fate from the diffs of its tree, each on a part of `groups` (the
    parts run before the one that killed it, or all): killed by any, an error of any;
    else survived where one judged a site through it, blind where none did; the sites
    and changed lines executed under a fault counted over every part."""
    each = [of_diff(m, d, [], 0) for d in diffs]
    keys, runs = [g.key for g in groups], sum(d.runs for d in diffs)
    for fate in (KILLED, ERROR):
        hit = [f for f in each if f.fate == fate]
        if hit:
            return Fate(m, fate, hit[0].why, keys, runs, seconds,
                        [r for f in hit for r in f.regressions])
    return Fate(m, SURVIVED if any(f.fate == SURVIVED for f in each) else BLIND,
                seen(diffs), keys, runs, seconds)


def seen(diffs: list) -> str:
    """What the diffs of one mutant (its parts) saw, in all: the sites through it judged and
    blind, and its changed lines executed under a fault (each counted once over them)."""
    t = {k: sum(d.tally()["touched"][k] for d in diffs) for k in ("judged", "blind", "total")}
    measured = [d.coverage for d in diffs if d.coverage]
    executed = {(path, n) for c in measured for path, f in c["files"].items()
                for n in f["executed"]}
    lines = f"changed lines executed under a fault: {len(executed)} of " \
            f"{max(c['changed'] for c in measured)}" if measured else "changed lines not measured"
    return f"{t['judged']} judged, {t['blind']} blind of {t['total']} sites; {lines}"


def draw(items: list, n: int | None, seed: int) -> list:
    """`n` of `items` drawn at random by `seed` (the same ones on any machine), in their
    order; all of them when `n` is None or not fewer."""
    if n is None or n >= len(items):
        return list(items)
    picked = set(random.Random(seed).sample(range(len(items)), n))
    return [x for i, x in enumerate(items) if i in picked]


@dataclass
class Score:
    tree: object
    fates: list
    seconds: float = 0.0
    data_file: str = ""
    reused: int = 0   # runs of the tree a mutant's diff took from one before it
    sample: tuple | None = None  # (of how many mutants, seed): the fates are a random sample

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

    def interval(self, fates=None) -> tuple | None:
        """A sample's 95% interval of the score all the mutants it was drawn from would
        have (Wilson's score interval of killed of scored), in %; None for no sample or
        nothing scored."""
        r = self.rate(fates)
        if self.sample is None or not r["scored"]:
            return None
        n, p, z = r["scored"], r["killed"] / r["scored"], 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return round(100 * max(0.0, centre - half), 1), round(100 * min(1.0, centre + half), 1)
