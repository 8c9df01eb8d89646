"""#24702's own claims (issue 8), base against before, with models that make 9.0.2's
post-processing fail for real. The expected rows live in harness/expected.py
(COMMIT_CLAIMS); harness/claimrun.py runs them, harness/claims.py tables them."""

import json
import shutil
import subprocess
import sys

import pytest

from harness import claimrun, claims, expected, trees
from harness.paths import PROJECT

MARK = {"tf": "tensorflow", "openvino": "openvino"}
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
        missing = set(claim.needs) - {b["name"] for b in t.stamp["backends"]}
        if missing:
            pytest.skip(f"tree built without {', '.join(sorted(missing))} "
                        "(run: make test BACKENDS=all)")
        key = (build, claim.runner, claim.frames, claimrun.description(claim, graph))
        if key not in seen:
            seen[key] = claimrun.observe(claim, t, preload, graph)
        return seen[key]
    return observe


@pytest.mark.parametrize("claim, build", list(_params()))
def test_commit_claim(observed, claim, build):
    """The build does what the row says, and (where the builds differ) not what the
    other build does: the row would fail if the commit were reverted or absent."""
    obs = observed(claim, build)
    ref = observed(claim, build, claim.reference)["frames"] if claim.reference else None
    want = getattr(claim, build)
    assert claimrun.diffs(obs, want, ref) == []
    other = getattr(claim, OTHER[build])
    if other != want:
        assert claimrun.diffs(obs, other, ref), f"{build} also matches {OTHER[build]}'s row"


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
    r = harness("--commit", "7")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == ["error: no claims for commit 7 (known: 3, 4, 5, 6, 8)"]


@pytest.mark.commit4
@pytest.mark.tensorflow
def test_cli_commit4(tree, tmp_path):
    tree("base"), tree("before")  # skips when a tree is missing
    out = tmp_path / "rows.json"
    r = harness("--commit", "4", "--json", str(out))
    rows = json.loads(out.read_text())
    assert [r_["id"] for r_ in rows] == [c.id for c in expected.COMMIT_CLAIMS if c.commit == 4]
    assert all(list(r_) == list(claims.KEYS) and r_["commit"] == 4 for r_ in rows)
    if any(r_["verdict"].startswith("skipped") for r_ in rows):
        pytest.skip("trees built without tf (run: make test BACKENDS=all)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "| commit | claim | base outcome | before outcome | verdict |"
    assert [r_["verdict"].split(":")[0] for r_ in rows] == \
        ["reproduces", "reproduces", claims.NOT_EXPRESSIBLE]


@pytest.mark.commit4
@pytest.mark.before
@pytest.mark.tensorflow
def test_commit4_reverted_collapses_to_einval(tree, preload, tmp_path):
    """The half of commit 4 that base cannot show: before with commit 4 undone (a copy,
    `git revert`, ffmpeg relinked) collapses derain's and sr's post-processing failure
    into AVERROR(EINVAL) without naming it; before returns and logs AVERROR(ENOSYS)."""
    before = tree("before")
    if "tf" not in {b["name"] for b in before.stamp["backends"]}:
        pytest.skip("tree built without tf (run: make test BACKENDS=all)")
    subprocess.run(["cp", "-a", str(before.src), str(tmp_path / "src")], check=True)
    try:  # about 250 MB: not kept among pytest's last temporary directories
        subject = "avfilter/vf_derain, vf_sr: return the post-processing error"
        sha = trees.git(tmp_path / "src", "log", "--format=%H", "--fixed-strings",
                        f"--grep={subject}").stdout.split()
        assert len(sha) == 1, "commit 4 is in before exactly once"
        trees.git(tmp_path / "src", "revert", "--no-edit", sha[0])
        make = subprocess.run(["make", "-j2", "ffmpeg"], cwd=tmp_path / "src",
                              capture_output=True, text=True)
        assert make.returncode == 0, make.stdout[-2000:] + make.stderr[-2000:]
        undone = trees.Tree("before-without-4", tmp_path, before.stamp)
        for claim in (c for c in expected.COMMIT_CLAIMS if c.id.startswith("commit4-")
                      and not c.not_expressible):
            obs = claimrun.observe(claim, undone, preload)
            assert obs["frames"] == [] and obs["errors"] == [expected.EINVAL], claim.id
            assert expected.POST_PROC_FAILED not in obs["log"], claim.id
            assert claimrun.diffs(obs, claim.before), claim.id  # the row catches it
    finally:
        shutil.rmtree(tmp_path / "src")
