"""#24702's own claims (issue 8), base against before, with models that make 9.0.2's
post-processing fail for real. The expected rows live in harness/cases/pr24760/
(COMMIT_CLAIMS); harness/experiments/claimrun.py runs them, harness/judge/claims.py judges and
tables them."""

import json
import subprocess
import sys

import pytest

from harness.experiments import claimrun
from harness.judge import claims, schemas
from harness.cases import pr24760 as expected
from harness.obtain import derived
from harness.obtain.build import git
from harness.paths import PROJECT
from harness.obtain.backends import BACKENDS

MARK = {name: b.marker for name, b in BACKENDS.items()}
BUILDS = ("base", "before")
OTHER = {"base": "before", "before": "base"}


def _params():
    for c in expected.COMMIT_CLAIMS:
        for build in BUILDS:
            marks = [getattr(pytest.mark, f"commit{c.commit}"), getattr(pytest.mark, build)]
            marks += [getattr(pytest.mark, MARK[b]) for b in c.needs]
            yield pytest.param(c, build, id=f"{c.id}-{build}", marks=marks)


@pytest.fixture(scope="session")
def observed(tree, preload):
    """(claim, build, graph) -> one run, shared by the rows with the same graph."""
    seen = {}

    def observe(claim, build, graph=""):
        t = tree(build)
        missing = set(claim.needs) - t.backends
        if missing:
            pytest.skip(f"tree built without {', '.join(sorted(missing))} "
                        "(run: make test BACKENDS=all)")
        key = claimrun.run_key(claim, build, graph)
        if key not in seen:
            seen[key] = claimrun.observe(claim, t, preload, graph)
        return seen[key]
    return observe


@pytest.mark.parametrize("claim, build", list(_params()))
def test_commit_claim(observed, claim, build):
    """The build does what the row says, and (where the builds differ) not what the
    other build does: the row would fail if the commit were reverted or absent."""
    obs = observed(claim, build)
    ref = observed(claim, build, claim.reference).frames if claim.reference else None
    want = getattr(claim, build)
    assert claims.diffs(obs, want, ref) == []
    other = getattr(claim, OTHER[build])
    if other != want:
        assert claims.diffs(obs, other, ref), f"{build} also matches {OTHER[build]}'s row"


@pytest.mark.unit
def test_rows_cite_their_commit_and_are_unique():
    ids = [c.id for c in expected.COMMIT_CLAIMS]
    assert len(ids) == len(set(ids))
    for c in expected.COMMIT_CLAIMS:
        assert c.id.startswith(f"commit{c.commit}-") and c.cites and c.claim
        patch = claims_patch(c.commit)
        assert " ".join(c.cites.split()) in " ".join(patch.split()), c.id


def claims_patch(n: int) -> str:
    from harness.paths import PATCHES
    (path,) = PATCHES.glob(f"{n:04d}-*.patch")
    return path.read_text()


@pytest.mark.unit
def test_verdicts_and_table():
    c = expected.COMMIT_CLAIMS[0]
    assert claims.verdict(c, {"base": [], "before": []}) == "reproduces"
    assert claims.verdict(c, {"base": ["frames: got 0"], "before": []}) \
        == "does not reproduce: base: frames: got 0"
    ne = next(c for c in expected.COMMIT_CLAIMS if c.not_expressible)
    assert claims.verdict(ne, {"base": [], "before": []}).startswith(claims.NOT_EXPRESSIBLE)
    row = {"commit": 4, "id": "x", "claim": "a | b", "base": "0 frames", "before": "HANG",
           "verdict": "reproduces"}
    table = claims.markdown([row]).splitlines()
    assert table[0] == "| commit | claim | base outcome | before outcome | verdict |"
    assert table[2] == "| 4 | `x`: a \\| b | 0 frames | HANG | reproduces |"
    assert claims.as_expected(row)
    assert not claims.as_expected({**row, "verdict": "does not reproduce: y"})
    assert claims.as_expected({**row, "verdict": "not expressible on 9.0.2: z"})


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", "claims", *args], cwd=PROJECT,
                          capture_output=True, text=True)


@pytest.mark.unit
def test_cli_unknown_commit():
    r = harness("--commit", "10")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        "error: no claims for commit 10 (known: 1, 2, 3, 4, 5, 6, 7, 8, 9)"]


@pytest.mark.commit4
@pytest.mark.tensorflow
def test_cli_commit4(tree, tmp_path):
    tree("base"), tree("before")  # skips when a tree is missing
    out = tmp_path / "rows.json"
    r = harness("--commit", "4", "--json", str(out))
    got = json.loads(out.read_text())
    assert schemas.problem(got) is None  # docs/schema/claims.json
    assert (got["command"], got["exit_status"], [t["name"] for t in got["trees"]]) == \
        ("claims", r.returncode, list(expected.CLAIMS_PAIR))
    rows = got["rows"]
    assert [r_["id"] for r_ in rows] == [c.id for c in expected.COMMIT_CLAIMS if c.commit == 4]
    assert all(list(r_) == list(claims.keys(expected.CLAIMS_PAIR)) and r_["commit"] == 4 for r_ in rows)
    if any(r_["verdict"].startswith("skipped") for r_ in rows):
        pytest.skip("trees built without tf (run: make test BACKENDS=all)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "| commit | claim | base outcome | before outcome | verdict |"
    assert [r_["verdict"].split(":")[0] for r_ in rows] == \
        ["reproduces", "reproduces", f"{claims.NOT_EXPRESSIBLE} 9.0.2"]


def _revert_params():
    by_id = {c.id: c for c in expected.COMMIT_CLAIMS}
    for r in expected.REVERTED:
        needs = sorted({b for i in r.rows for b in by_id[i].needs})
        marks = [getattr(pytest.mark, f"commit{r.commit}"), pytest.mark.before]
        marks += [getattr(pytest.mark, MARK[b]) for b in needs]
        yield pytest.param(r, [by_id[i] for i in r.rows], needs, id=f"before-without-{r.commit}",
                           marks=marks)


@pytest.mark.parametrize("reverted, rows, needs", list(_revert_params()))
def test_reverted_commit(tree, preload, reverted, rows, needs):
    """before with the commit undone (a copy, `git revert`, ffmpeg relinked: a cache entry
    of its own, harness/obtain/derived.py) does what the commit message says it did, and
    the commit's rows fail on it."""
    before = tree("before")
    missing = set(needs) - before.backends
    if missing:
        pytest.skip(f"tree built without {', '.join(sorted(missing))} "
                    "(run: make test BACKENDS=all)")
    assert " ".join(reverted.cites.split()) in " ".join(claims_patch(reverted.commit).split())
    sha = git(before.src, "log", "--format=%H", "--fixed-strings",
              f"--grep={reverted.subject}").stdout.split()
    assert len(sha) == 1, f"commit {reverted.commit} is in before exactly once"
    # a cache entry keyed by before's key and the reverted commit: built once, then reused
    undone = derived.without_commit(before, f"without-{reverted.commit}", reverted.subject)
    assert undone.stamp["derived"]["change"] == f"git revert {sha[0]}"
    assert git(undone.src, "log", "-1", "--format=%s").stdout.strip() \
        == f'Revert "{reverted.subject}"'
    for claim in rows:
        obs = claimrun.observe(claim, undone, preload, runner="ffmpeg")
        assert claims.diffs(obs, reverted.rows[claim.id]) == [], claim.id
        assert claims.diffs(obs, claim.before), f"{claim.id} passes without its commit"


@pytest.mark.before
@pytest.mark.after
def test_the_prs_own_paragraphs_are_claims(tree, tmp_path):
    """#24760's Callers paragraph and its warning claims are rows of `claims` (commit 9),
    on the trees the case compares (before, after): the census of every pthread_create()
    call on every graph built, and the warning lines each build recorded."""
    before, after = tree("before"), tree("after")
    out = tmp_path / "rows.json"
    r = harness("--commit", "9", "--json", str(out))
    got = json.loads(out.read_text())
    assert schemas.problem(got) is None  # docs/schema/claims.json
    rows = {row["id"]: row for row in got["rows"]}
    assert set(rows) == {"callers", *(c.id for c in expected.WARNING_CLAIMS)}
    assert all(list(row)[3:5] == list(expected.PAIR) for row in rows.values())
    assert [t["name"] for t in got["trees"]][-2:] == list(expected.PAIR)
    assert r.returncode == 0, r.stdout + r.stderr
    assert {row["verdict"] for row in rows.values()} == {"reproduces"}
    calls = int(rows["callers"]["after"].split()[0])
    assert (calls > 0) == bool({"tf", "torch"} & after.backends), rows["callers"]
    assert "| commit | claim | before outcome | after outcome | verdict |" in r.stdout
