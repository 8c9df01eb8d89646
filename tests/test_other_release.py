"""PR #24760's core claim on another FFmpeg release, 8.1.2 (opt-in: `pytest -m
other_release`, or `make release`). It builds its own trees, twice: from the
release's tarball with the series tried patch by patch (`--release`), and from two refs
of a clone of that tree (`--git-dir`). On both, before (the patches that apply, commit 7
among them) must lose a failed thread start at EOF and after (+ commit 9) surface it, on
every backend the release has; what the release lacks is reported from the probe."""

import subprocess

import pytest

from cases import pr24760 as expected
from cases.pr24760 import LAYOUT
from harness.compile import ffi_build
from harness.errors import ScenarioError
from harness.judge import series
from harness.obtain import probe
from harness.obtain.trees import Plan
from harness.run import faults, matrix, runner
from harness.run.outcome import Outcome

pytestmark = [pytest.mark.other_release]

RELEASE = "8.1.2"
PAIRS = [("tf", "dnn_processing"), ("openvino", "dnn_processing"),
         ("torch", "dnn_processing"), ("tf", "dnn_detect"), ("openvino", "dnn_detect"),
         ("openvino", "dnn_classify")]
CLONE_FAULTS = ("pthread_create=EAGAIN", "pthread_create=EINVAL")


@pytest.fixture(scope="module")
def released():
    """before and after of the release, built now if the cache has none."""
    plan = Plan("all", LAYOUT, release=RELEASE)
    return {n: plan.get(n) for n in ("before", "after")}


@pytest.fixture(scope="module")
def cloned(released, tmp_path_factory):
    """A user's clone of the release whose last two commits are before and after."""
    repo = tmp_path_factory.mktemp("user") / "ffmpeg"
    subprocess.run(["git", "clone", "-q", "--shared", str(released["after"].src), str(repo)],
                   check=True)
    plan = Plan("all", repo=repo, refs={"before": "HEAD~1", "after": "HEAD"})
    return {n: plan.get(n) for n in plan.names}


def _trees(request, kind):
    return request.getfixturevalue({"release": "released", "clone": "cloned"}[kind])


def test_the_patches_that_apply(released):
    """Commits 1, 5 and 7 apply to 8.1.2 with git am -3 and 9 on top; the others are left
    out, each with what did not match."""
    before, after = released["before"].stamp, released["after"].stamp
    assert series.numbers(before["series"]) == [1, 5, 7]
    assert series.numbers(after["series"]) == [1, 5, 7, 9]
    assert series.numbers(n for n, _ in after["skipped"]) == [2, 3, 4, 6, 8]
    assert all(why for _, why in after["skipped"])
    notes = series.notes(list(released.values()), expected.TABLE_NEEDS)
    assert notes[-1].startswith("the PR's tables can be shown on these trees")


@pytest.mark.parametrize("kind", ["release", "clone"])
def test_what_the_probe_finds_absent(request, kind):
    t = _trees(request, kind)["after"]
    facts = probe.facts(t.src)
    assert facts.version == RELEASE
    assert "DNNBackendType has no DNN_ONNX (libavfilter/dnn_interface.h)" in facts.absent()
    assert facts.enabled == {"openvino", "tf", "torch"}
    assert {b["name"] for b in t.stamp["backends"]} == facts.enabled
    ffi, lib = ffi_build.load(t)
    assert lib.HAS_DNN_ONNX == 0 and not hasattr(lib, "DNN_ONNX")
    assert lib.HAS_DNN_TH == 1 and lib.DNN_TH == 4


@pytest.mark.parametrize("kind", ["release", "clone"])
def test_onnx_rows_are_not_expressible(request, kind):
    with pytest.raises(ScenarioError, match=rf"not expressible on FFmpeg {RELEASE}: "
                                            rf"{RELEASE}'s libavfilter/dnn has no ONNX backend"):
        matrix.scenarios(list(_trees(request, kind).values()), "onnx", "dnn_processing",
                         ["pthread_create=EAGAIN"])


def _params():
    for backend, filt in PAIRS:
        for build in ("before", "after"):
            for fault in expected.FAULTS:
                yield pytest.param("release", backend, filt, build, fault,
                                   id=f"release-{build}-{backend}-{filt}-{fault}")
    for backend, filt in PAIRS[:3]:
        for build in ("before", "after"):
            for fault in CLONE_FAULTS:
                yield pytest.param("clone", backend, filt, build, fault,
                                   id=f"clone-{build}-{backend}-{filt}-{fault}")


@pytest.mark.parametrize("kind, backend, filt, build, fault", list(_params()))
def test_core_claim(request, kind, backend, filt, build, fault):
    """before: activate() returns the positive errno and the sink only AVERROR_EOF;
    after: AVERROR(e) (AVERROR_EXTERNAL for EAGAIN), then AVERROR_EOF."""
    tree = _trees(request, kind)[build]
    (sc,) = matrix.scenarios([tree], backend, filt, [fault])
    r = runner.run_one(sc, matrix.preload_library(), expect=expected.EXPECT)
    assert r.outcome is Outcome.PASS, f"{r.outcome.value}: {r.diffs or r.reason}"
    exp = expected.lookup(build, faults.parse(fault), backend, filt)
    assert r.data["activate_at_eof"] == exp.activate
    assert tuple(r.data["sink"]) == exp.sink
    assert len(r.data["frames"]) == 2
