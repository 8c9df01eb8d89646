"""Bring your own tree: before and after built from two refs of the user's own FFmpeg
clone, without our patches, give the same sources and the same PR table. Configured as
the suite's trees are (FFDNN_BACKENDS), they are twins of before and after: copies of
their objects (harness/obtain/twins.py find_twin), not a second cold build."""

import os
import subprocess

import pytest

from harness.compile import ffi_build
from harness.run import matrix, runner
from harness.run.outcome import Outcome
from harness.obtain.recipe import GIT_ID
from harness.obtain.trees import Plan
from harness.cases.pr24760 import EXPECT, LAYOUT
from tests.conftest import BACKENDS

pytestmark = [pytest.mark.trees, pytest.mark.onnx]


EDITED = "libavfilter/dnn/dnn_backend_common.c"


@pytest.fixture(scope="module")
def byo(tree, tmp_path_factory):
    """A user's clone whose last three commits are #24702's head, #24760 and one of the
    user's own (a comment added to one file: sources no tree in the cache has)."""
    after = tree("after")
    repo = tmp_path_factory.mktemp("user") / "ffmpeg"
    subprocess.run(["git", "clone", "-q", "--shared", str(after.src), str(repo)], check=True)
    with open(repo / EDITED, "a") as f:
        f.write("/* a line of the user's own */\n")
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-am", "a commit of my own"],
                   check=True, env={**os.environ, **GIT_ID})  # the same id every run
    plan = Plan(BACKENDS, LAYOUT, repo=repo,  # configured as the case's trees are
                refs={"before": "HEAD~2", "after": "HEAD~1", "edited": "HEAD"})
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


def test_a_ref_of_its_own_compiles_only_what_it_changes(byo):
    """The user's commit has no twin: it is built from after's objects plus `git diff`,
    and only the object of the file it touches is compiled again."""
    _, built, _ = byo
    mine = built["edited"].stamp
    assert "twin" not in mine and mine["parent"] == built["after"].stamp["key"]
    assert mine["objects_compiled"] == 1


@pytest.mark.parametrize("name, fault, code", [("before", "pthread_create=EINVAL", 22),
                                               ("after", "pthread_create=EINVAL", -22)])
def test_same_table(byo, preload, name, fault, code):
    _, built, _ = byo
    (sc,) = matrix.scenarios([built[name]], "onnx", "dnn_processing", [fault])
    r = runner.run_one(sc, preload, expect=EXPECT)
    assert r.outcome is Outcome.PASS, r.diffs
    assert r.record.activate_at_eof == code
