"""Bring your own tree: before and after built from two refs of the user's own FFmpeg
clone, without our patches, give the same sources and the same PR table."""

import subprocess

import pytest

from harness.run import matrix, runner
from harness.run.outcome import Outcome
from harness.obtain.trees import Plan
from cases.pr24760 import EXPECT

pytestmark = [pytest.mark.trees, pytest.mark.onnx]


@pytest.fixture(scope="module")
def byo(tree, tmp_path_factory):
    """A user's clone whose last two commits are #24702's head and #24760."""
    after = tree("after")
    repo = tmp_path_factory.mktemp("user") / "ffmpeg"
    subprocess.run(["git", "clone", "-q", "--shared", str(after.src), str(repo)], check=True)
    plan = Plan("default", repo=repo, refs={"before": "HEAD~1", "after": "HEAD"})
    return plan, {n: plan.get(n) for n in plan.names}, tree


@pytest.mark.parametrize("name", ["before", "after"])
def test_same_sources_as_the_series(byo, name):
    plan, built, tree = byo
    assert built[name].stamp["source"]["kind"] == "git"
    assert built[name].stamp["source_tree"] == tree(name).stamp["source_tree"]


def test_after_reuses_before_objects(byo):
    _, built, _ = byo
    assert built["after"].stamp["objects_compiled"] == 1


@pytest.mark.parametrize("name, fault, code", [("before", "pthread_create=EINVAL", 22),
                                               ("after", "pthread_create=EINVAL", -22)])
def test_same_table(byo, preload, name, fault, code):
    _, built, _ = byo
    (sc,) = matrix.scenarios([built[name]], "onnx", "dnn_processing", [fault])
    r = runner.run_one(sc, preload, expect=EXPECT)
    assert r.outcome is Outcome.PASS, r.diffs
    assert r.data["activate_at_eof"] == code
