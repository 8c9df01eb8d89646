"""A case's claims run: its commit claims on the two trees its claims compare (its
claims_pair, the tree without the commits and the tree with them), its sanitizer claims on
their own variants of those, and the PR's Callers paragraph and warning claims on the two
trees the case compares (its pair): one row per claim, as dicts with the keys of
harness/judge/claims.py's keys(), from every source in SOURCES, which that module judges and
prints.

A source is (the part of the case it reads, a callable Context -> iterable of row dicts);
it covers the commits its part's claims name, and runs only when one of them is asked for.
Adding a source is one line in SOURCES.
"""

from dataclasses import dataclass

from harness.experiments import claimrun
from harness.judge import claims as judged
from harness.run.scenario import ZERO_FRAME_MD5


def commit_row(claim, trees: dict, preload: str, seen: dict = None) -> dict:
    """Run one of the case's commit claims on the two trees (name -> Tree, in the case's claims_pair
    order; the claim's expectations are its fields of the same names); `seen` shares the
    runs of rows with the same graph on the same tree."""
    seen = {} if seen is None else seen
    cells, diffs = {}, {}
    for build, tree in trees.items():
        missing = set(claim.needs) - tree.backends
        if missing:
            return judged.row_of(claim, dict.fromkeys(trees, "SKIP"),
                              f"skipped: the trees were built without {', '.join(sorted(missing))}")

        def run(graph=""):
            key = claimrun.run_key(claim, build, graph)
            if key not in seen:
                seen[key] = claimrun.observe(claim, tree, preload, graph)
            return seen[key]
        obs = run()
        ref = run(claim.reference).frames if claim.reference else None
        diffs[build] = judged.diffs(obs, getattr(claim, build), ref)
        cells[build] = judged.summary(obs, ZERO_FRAME_MD5, ref, claim.reference)
    release = next(iter(trees.values())).source.get("version", "")
    return judged.row_of(claim, cells, judged.verdict(claim, diffs, release))


@dataclass
class Context:
    case: object         # the case (harness/case.py): its claims, its layout
    trees: dict          # the case's claims_pair, name -> Tree (the backends of the run's plan)
    preload: str         # LD_PRELOAD for workers (harness.run.matrix.preload_library())
    commits: set = None  # only these commits (None: all)
    build: bool = False  # may a source build what it misses
    resolve: object = None  # names -> {name: Tree}: the trees of another pair of the case

    def trees_of(self, pair: tuple) -> dict:
        if tuple(self.trees) == tuple(pair) or self.resolve is None:
            return self.trees
        return self.resolve(pair)


def commit_claims(ctx: Context):
    seen = {}
    for c in ctx.case.commit_claims:
        if not ctx.commits or c.commit in ctx.commits:
            yield commit_row(c, ctx.trees, ctx.preload, seen)


def sanitizer_claims(ctx: Context):
    """The case's sanitizer claims under ASan and TSan (harness/experiments/sanitizer.py); a
    variant that is not built gives a SKIP row naming the command that builds it."""
    from harness.experiments import sanitizer
    from harness.errors import StampError
    for c in ctx.case.sanitizer_claims:
        try:
            yield from sanitizer.claim_rows([c], ctx.case.part("layout"), build=ctx.build)
        except StampError as e:
            yield judged.row_of(c, dict.fromkeys(ctx.trees, "SKIP"), f"skipped: {e}")


def callers_claim(ctx: Context):
    """The case's callers paragraph (harness/judge/callers.py) on the trees its pair
    compares: every call of the paragraph's family FFmpeg's own code makes on every
    backend and filter built, each named where it is made, against the paragraph."""
    from harness.experiments import callers
    from harness.judge import callers as paragraph
    want = ctx.case.part("callers")
    trees = ctx.trees_of(ctx.case.pair)
    censuses = callers.run(list(trees.values()), ctx.preload, want["family"])
    yield paragraph.row(want, list(trees), censuses)


def warning_claims(ctx: Context):
    """The case's warning claims against the warning lines its pair's builds recorded."""
    from harness.judge import warnclaims
    yield from warnclaims.rows(ctx.case.warning_claims, ctx.trees_of(ctx.case.pair))


SOURCES = [  # (the part of the case, its rows, the pair of trees it reads: the case's
             # field naming it; None: its own variants)
    ("sanitizer_claims", sanitizer_claims, None),
    ("commit_claims", commit_claims, "claims_pair"),
    ("callers", callers_claim, "pair"),
    ("warning_claims", warning_claims, "pair"),
]


def covers(case, part: str) -> set:
    """The commits a part of the case has claims for (none when the case lacks it): a
    claim's `commit`, or the commit a paragraph (a dict) names."""
    value = getattr(case, part) or ()
    if isinstance(value, dict):
        return {value["commit"]} if "commit" in value else set()
    return {c.commit for c in value}


def known_commits(case) -> list:
    return sorted(set().union(*(covers(case, part) for part, *_ in SOURCES)))


def asked(case, commits: set | None) -> list:
    """The sources that run for `commits` (None: all)."""
    return [s for s in SOURCES if not commits or commits & covers(case, s[0])]


def pairs_read(case, commits: set | None) -> list:
    """The pairs of trees the sources that run for `commits` read, by the case's field
    (the sanitizer claims build their own variants: `claims --commit 1 --commit 2` reads
    none)."""
    return list(dict.fromkeys(attr for _, _, attr in asked(case, commits) if attr))


def rows(ctx: Context) -> list:
    out = []
    for _, source, _ in asked(ctx.case, ctx.commits):
        out += [r for r in source(ctx) if not ctx.commits or r["commit"] in ctx.commits]
    return sorted(out, key=lambda r: r["commit"])


