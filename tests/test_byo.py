"""Bring your own tree: before and after built from two refs of the user's own FFmpeg
clone, without our patches, give the same sources and the same PR table. Configured as
the suite's trees are (FFDNN_BACKENDS), they are twins of before and after: copies of
their objects (harness/obtain/trees.py find_twin), not a second cold build."""

import subprocess

import pytest

from harness.compile import ffi_build
from harness.run import matrix, runner
from harness.run.outcome import Outcome
from harness.obtain.trees import Plan
from cases.pr24760 import EXPECT
from tests.conftest import BACKENDS

pytestmark = [pytest.mark.trees, pytest.mark.onnx]


@pytest.fixture(scope="module")
def byo(tree, tmp_path_factory):
    """A user's clone whose last two commits are #24702's head and #24760."""
    after = tree("after")
    repo = tmp_path_factory.mktemp("user") / "ffmpeg"
    subprocess.run(["git", "clone", "-q", "--shared", str(after.src), str(repo)], check=True)
    plan = Plan(BACKENDS, repo=repo, refs={"before": "HEAD~1", "after": "HEAD"})
    return plan, {n: plan.get(n) for n in plan.names}, tree


@pytest.mark.parametrize("name", ["before", "after"])
def test_same_sources_as_the_series(byo, name):
    plan, built, tree = byo
    assert built[name].stamp["source"]["kind"] == "git"
    assert built[name].stamp["source_tree"] == tree(name).stamp["source_tree"]


@pytest.mark.parametrize("name", ["before", "after"])
def test_twin_of_the_series_tree(byo, name):
    """The same sources and configuration as the series' tree: its objects, copied,
    none compiled again, its warning lines and its cffi module."""
    _, built, tree = byo
    mine, series = built[name].stamp, tree(name).stamp
    assert mine["twin"] == {"entry": tree(name).path.name, "key": series["key"]}
    assert mine["key"] != series["key"] and mine["objects_compiled"] == 0
    assert mine["warnings"] == series["warnings"]
    assert ffi_build.ext_path(built[name], "preload") == ffi_build.ext_path(tree(name), "preload"), \
        "the series tree's cffi module"


@pytest.mark.parametrize("name, fault, code", [("before", "pthread_create=EINVAL", 22),
                                               ("after", "pthread_create=EINVAL", -22)])
def test_same_table(byo, preload, name, fault, code):
    _, built, _ = byo
    (sc,) = matrix.scenarios([built[name]], "onnx", "dnn_processing", [fault])
    r = runner.run_one(sc, preload, expect=EXPECT)
    assert r.outcome is Outcome.PASS, r.diffs
    assert r.data["activate_at_eof"] == code
