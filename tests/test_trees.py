"""The trees are what they claim: before - base is exactly patches 1-8, after - before
exactly patch 9, every source file on disk is the committed one, and stamps check."""

import dataclasses
import subprocess

import pytest

from harness.compile import ffi_build
from harness.obtain import trees
from harness.errors import BuildError, StampError
from harness.paths import PATCHES

pytestmark = pytest.mark.trees


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True, env={**trees.GIT_ID, "PATH": "/usr/bin:/bin"}).stdout


def clone(tree, dest):
    git(dest.parent, "clone", "-q", "--shared", str(tree.src), str(dest))
    return dest


@pytest.mark.parametrize("child, patches", [("before", 8), ("after", 1)])
def test_source_difference_is_exactly_the_series(tree, tmp_path, child, patches):
    parent, t = tree(trees.PARENT[child]), tree(child)
    work = clone(parent, tmp_path / "clone")
    new = t.stamp["series"][len(parent.stamp["series"]):]
    assert len(new) == patches
    for name in new:
        git(work, "am", "-q", "--committer-date-is-author-date", str(PATCHES / name))
    assert git(work, "rev-parse", "HEAD^{tree}").strip() == t.stamp["source_tree"]


@pytest.mark.parametrize("name", trees.TREES)
def test_sources_on_disk_are_the_committed_ones(tree, name):
    t = tree(name)
    changed = git(t.src, "status", "--porcelain", "--untracked-files=no")
    assert changed == "", f"{name}: files differ from its commit: {changed[:200]}"
    assert git(t.src, "rev-parse", "HEAD^{tree}").strip() == t.stamp["source_tree"]


@pytest.mark.parametrize("name", trees.TREES)
def test_stamp_describes_the_build(tree, plan, name):
    s = tree(name).stamp
    assert s["source"]["sha256"] == trees.source.FFMPEG.sha256
    assert tuple(b["name"] for b in s["backends"]) == plan.backend_names
    assert "--enable-libonnxruntime" in s["configure"]
    assert s["warning_count"] == sum(len(v) for v in s["warnings"].values())


def test_children_recompile_only_what_changed(tree):
    assert tree("after").stamp["objects_compiled"] < tree("base").stamp["objects_compiled"] / 10


def test_module_stamp_is_checked(tree, monkeypatch):
    t = tree("base")
    real = ffi_build.build(t)
    ffi_build.load(t)  # the matching module loads
    forged = dataclasses.replace(t, stamp={**t.stamp, "key": "0" * 64})
    monkeypatch.setattr(ffi_build, "ext_path", lambda *a: real)
    with pytest.raises(StampError, match="does not match build"):
        ffi_build.load(forged)


def test_a_patch_that_does_not_apply_names_patch_and_file(tree, tmp_path):
    t = tree("after")
    work = clone(t, tmp_path / "clone")
    patch = PATCHES / t.stamp["series"][-1]
    with pytest.raises(BuildError, match=rf"patch {patch.name} does not apply: "
                                         r"libavfilter/dnn/dnn_backend_common.c"):
        trees._apply_patch("after", work, patch)  # already applied: cannot apply twice
