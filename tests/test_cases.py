"""Cases are data the engine loads by name: the PR's (pr24760) and the follow-up fixes'
(followups), whose claim is a diff judged by `python -m harness diff --case followups`."""

import subprocess
import sys

import pytest

from cases import followups, pr24760
from harness import caseload
from harness.errors import HarnessError
from harness.judge import diff
from harness.paths import PROJECT
from tests.conftest import need_tree


@pytest.mark.unit
def test_cases_by_name():
    assert caseload.names() == ["followups", "pr24760"]
    assert caseload.load("pr24760").TABLES is pr24760.TABLES
    with pytest.raises(HarnessError, match="case 'followups' has no TABLES"):
        caseload.load("followups").TABLES


@pytest.mark.unit
def test_followups_case_names_its_patches():
    series = (followups.SERIES / "series").read_text().split()
    assert len(series) == 4 and all((followups.SERIES / n).is_file() for n in series)
    assert all(k.count(" / ") == 2 for k in followups.DIFF)


class _Site:
    def __init__(self, cls):
        self.cls = diff.Class(cls)


@pytest.mark.unit
def test_against_a_case():
    g = diff.Group("tf", "dnn_processing", "pthread_create=1*return(EAGAIN)", "pthread_create")
    pairs = [diff.Pair(g, "p", i, [_Site("HANG"), _Site("SURFACED")], diff.Change.FIX)
             for i in range(4)]
    d = diff.Diff([], [g], pairs, {}, 0)
    key = "tf / dnn_processing / pthread_create"
    assert diff.against(d, {key: {("HANG", "SURFACED"): 4}}) == []
    assert diff.against(d, {key: {("HANG", "SURFACED"): 3}}) == [
        f"{key}: got 4 HANG -> SURFACED, the case says 3 HANG -> SURFACED"]
    assert diff.against(d, {"onnx / dnn_processing / malloc": {}}) == [
        "onnx / dnn_processing / malloc: not run"]


@pytest.mark.after
@pytest.mark.tensorflow
@pytest.mark.onnx
def test_followups_fix_what_the_case_says(trees):
    """The follow-up case's verdict as a test: after -> after + the four patches fixes the
    TensorFlow thread-start hangs and the pre-processing sites, and regresses nothing."""
    tree = need_tree(trees, "after")
    if not {"tf", "onnx"} <= {b["name"] for b in tree.stamp["backends"]}:
        pytest.skip("trees built without tf and onnx (run: make test BACKENDS=all)")
    r = subprocess.run([sys.executable, "-m", "harness", "diff", "--case", "followups",
                        "--confirm", "1", "--backend", "all"], cwd=PROJECT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "12 fixes" in r.stdout and "0 regressions" in r.stdout, r.stdout
