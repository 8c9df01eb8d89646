"""A case's claims: its commit claims on the two trees its claims compare (its claims_pair,
the tree without the commits and the tree with them), its sanitizer claims on their own
variants of those, and the PR's Callers paragraph and warning claims on the two trees the
case compares (its pair): one row per claim, as dicts with the keys of keys(), from every
source in SOURCES, printed as a Markdown table per pair of trees.

A source is (the part of the case it reads, a callable Context -> iterable of row dicts);
it covers the commits its part's claims name, and runs only when one of them is asked for. Every verdict but "does not reproduce: ..." is
as expected: a claim is declared not expressible in its row of the expected table
(with the measurement that shows why), never decided here. Adding a source is one line in SOURCES.
"""

from dataclasses import dataclass
from types import SimpleNamespace

from harness.errors import ExitStatus
from harness.judge import claimrun
from harness.run.outcome import functions
from harness.run.scenario import ZERO_FRAME_MD5

def keys(pair) -> tuple:
    """A row's keys: the claim, one outcome per tree of the pair, the verdict."""
    return ("commit", "id", "claim", *pair, "verdict")


NOT_EXPRESSIBLE = "not expressible on"


def verdict(claim, diffs: dict, release: str = "") -> str:
    """reproduces / does not reproduce: <what differed> / not expressible on <release>: <why>."""
    bad = [f"{build}: {d}" for build, ds in diffs.items() for d in ds]
    if bad:
        return "does not reproduce: " + "; ".join(bad)
    if claim.not_expressible:
        return f"{NOT_EXPRESSIBLE} {release or 'this release'}: {claim.not_expressible}"
    return "reproduces"


def commit_row(claim, trees: dict, preload: str, seen: dict = None) -> dict:
    """Run one of the case's commit claims on the two trees (name -> Tree, in the case's claims_pair
    order; the claim's expectations are its fields of the same names); `seen` shares the
    runs of rows with the same graph on the same tree."""
    seen = {} if seen is None else seen
    cells, diffs = {}, {}
    for build, tree in trees.items():
        missing = set(claim.needs) - tree.backends
        if missing:
            return _row(claim, dict.fromkeys(trees, "SKIP"),
                        f"skipped: the trees were built without {', '.join(sorted(missing))}")

        def run(graph=""):
            key = claimrun.run_key(claim, build, graph)
            if key not in seen:
                seen[key] = claimrun.observe(claim, tree, preload, graph)
            return seen[key]
        obs = run()
        ref = run(claim.reference)["frames"] if claim.reference else None
        diffs[build] = claimrun.diffs(obs, getattr(claim, build), ref)
        cells[build] = claimrun.summary(obs, ZERO_FRAME_MD5, ref, claim.reference)
    release = next(iter(trees.values())).source.get("version", "")
    return _row(claim, cells, verdict(claim, diffs, release))


def _row(claim, cells: dict, verdict_text) -> dict:
    return {"commit": claim.commit, "id": claim.id, "claim": claim.claim, **cells,
            "verdict": verdict_text}


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
    """The case's sanitizer claims under ASan and TSan (harness/judge/sanitizer.py); a
    variant that is not built gives a SKIP row naming the command that builds it."""
    from harness.judge import sanitizer
    from harness.errors import StampError
    for c in ctx.case.sanitizer_claims:
        try:
            yield from sanitizer.claim_rows([c], ctx.case.part("layout"), build=ctx.build)
        except StampError as e:
            yield _row(c, dict.fromkeys(ctx.trees, "SKIP"), f"skipped: {e}")


def callers_claim(ctx: Context):
    """The case's callers paragraph (harness/judge/callers.py) on the trees its pair
    compares: every call of the paragraph's family FFmpeg's own code makes on every
    backend and filter built, each named where it is made, against the paragraph."""
    from harness.judge import callers
    want = ctx.case.part("callers")
    trees = ctx.trees_of(ctx.case.pair)
    censuses = callers.run(list(trees.values()), ctx.preload, want["family"])
    cells, diffs = {}, {}
    for name in trees:
        mine = [c for c in censuses if c.build == name]
        diffs[name] = [f"{c.backend} / {c.filter}: {d}" for c in mine
                       for d in callers.diffs(c, want)]
        calls = sum(c.calls for c in mine)
        where = sorted({" < ".join(functions(w)[:2]) for c in mine for w in c.stacks})
        cells[name] = (f"{calls} calls over {len(mine)} graphs"
                       + (f", each {' or '.join(where)}" if where else ""))
    paragraph = SimpleNamespace(commit=want["commit"], id="callers", claim=want["cites"],
                                not_expressible="")
    yield _row(paragraph, cells, verdict(paragraph, diffs))


def warning_claims(ctx: Context):
    """The case's warning claims against the warning lines its pair's builds recorded."""
    from harness.judge import warnclaims
    trees = ctx.trees_of(ctx.case.pair)
    first, second = trees.values()
    for c in ctx.case.warning_claims:
        found = warnclaims.check([c], first.stamp, second.stamp)[c.id]
        cells = {name: (f"{len(warnclaims.naming(t.stamp, c.file))} warning lines in "
                        f"{c.file}, {len(warnclaims.lines(t.stamp))} in all" if c.file
                        else f"{len(warnclaims.lines(t.stamp))} warning lines")
                 for name, t in trees.items()}
        yield _row(c, cells, "does not reproduce: " + "; ".join(found) if found
                   else "reproduces")


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


def skipped(row: dict) -> bool:
    """A row that did not run (a backend or a sanitizer variant was not built)."""
    return row["verdict"].startswith("skipped")


def unmeasured(row: dict) -> bool:
    """A row the toolchain stopped before its claim could be measured (a sanitizer's own
    check, harness/judge/sanverdict.py): neither reproduced nor refuted."""
    return row["verdict"].startswith("not measured")


def as_expected(row: dict) -> bool:
    """reproduces, or declared not expressible (and measured so); not a row that did not
    reproduce, nor one that was skipped or could not be measured: nothing judged it."""
    return (not row["verdict"].startswith("does not reproduce") and not skipped(row)
            and not unmeasured(row))


def exit_status(rows_: list) -> ExitStatus:
    """OK every row as expected; FAIL a row that does not reproduce, was skipped, or no
    row at all; NOT_MEASURED when the only rows not as expected could not be measured on
    this toolchain."""
    bad = [r for r in rows_ if not as_expected(r)]
    if not rows_ or any(not unmeasured(r) for r in bad):
        return ExitStatus.FAIL
    return ExitStatus.NOT_MEASURED if bad else ExitStatus.OK


def trees_of(row: dict) -> list:
    """The tree names a row has an outcome for (between its claim and its verdict)."""
    names = list(row)
    return names[names.index("claim") + 1:names.index("verdict")]


def markdown(rows_: list, pair=None) -> str:
    """The rows as tables, one outcome column per tree: one table for each pair of trees
    the rows were measured on (`pair` first, when given), in the rows' order."""
    pairs = list(dict.fromkeys([*([tuple(pair)] if pair else []),
                                *(tuple(trees_of(r)) for r in rows_)])) or [()]
    tables = []
    for p in pairs:
        mine = [r for r in rows_ if tuple(trees_of(r)) == p]
        if not mine and tables:
            continue
        cells = lambda r: [str(r["commit"]), f"`{r['id']}`: {r['claim']}",
                           *(r[t] for t in p), r["verdict"]]
        lines = ["| commit | claim | " + "".join(f"{t} outcome | " for t in p) + "verdict |",
                 "|---|---|" + "---|" * len(p) + "---|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |"
                  for r in mine]
        tables.append("\n".join(lines))
    return "\n\n".join(tables)
