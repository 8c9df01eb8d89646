"""A batch of runs as an experiment makes them (harness/experiments/diff.py): what every
batch of a diff shares, and the runs of one tree kept across diffs against it."""

from dataclasses import dataclass, field

from harness.run.runner import run as run_all


@dataclass(frozen=True)
class Batch:
    """What every batch of a diff's runs shares (runner.run): the preload library, the runs
    at a time, the case's word on the runs, the fork servers; and what the runs of the sites
    are given besides: the line printed as each ends, where the artifacts go."""
    preload: str
    jobs: int
    expect: object
    pool: object
    progress: object = None
    results: object = None
    memo: object = None  # a Memo: the runs of one tree made once for every diff that shares it

    def run(self, scenarios: list, progress: bool = False, results: bool = False,
            fresh: bool = False) -> list:
        """Each scenario's result, in order: a run of the memo's tree made before by a diff
        sharing the memo is taken from it unless `fresh` (the reruns that confirm a class
        are new runs)."""
        memo = None if fresh else self.memo
        keys = [memo.key(sc) if memo else None for sc in scenarios]
        had = {k for k in keys if k is not None and k in memo.results}
        todo = [sc for sc, k in zip(scenarios, keys) if k not in had]
        ran = iter(run_all(todo, self.preload, jobs=self.jobs,
                           progress=self.progress if progress else None,
                           results=self.results if results else None, expect=self.expect,
                           pool=self.pool) if todo else ())
        out = []
        for k in keys:
            if k in had:
                memo.reused += 1
                memo.taken.add(id(memo.results[k]))
                out.append(memo.results[k])
                continue
            out.append(next(ran))
            if k is not None:
                memo.results[k] = out[-1]
        return out


@dataclass
class Memo:
    """The runs of one tree, kept across diffs against it (harness/experiments/mutate.py:
    every mutant is diffed against the same tree, whose census and site runs are the
    same for each): scenario -> its result, and how many runs were taken from it."""
    tree: str                                    # the tree's path
    results: dict = field(default_factory=dict)
    reused: int = 0
    taken: set = field(default_factory=set)  # id() of each result given out again

    def made(self, result) -> bool:
        """Whether a result of a batch was run by it, not taken from the memo."""
        return id(result) not in self.taken

    def key(self, scenario) -> str | None:
        return scenario.to_json() if scenario.tree == self.tree else None
