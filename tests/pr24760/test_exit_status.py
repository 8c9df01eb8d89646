"""The commands' exit statuses from real runs: 0 only when every run met an expectation
(or, with --measure, when nothing differed); 1 when a run had no expectation, differed,
or a sweep's site was not of its expected class."""

import dataclasses
import subprocess
import sys

import pytest

from harness.cases import pr24760 as expected
from harness import cli
from harness.paths import PROJECT
from harness.run.matrix import Table

pytestmark = [pytest.mark.onnx, pytest.mark.dnn_processing]


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=PROJECT,
                          capture_output=True, text=True)


@pytest.mark.after
@pytest.mark.before
def test_run_every_row_judged_is_0(tree):
    tree("before"), tree("after")
    r = harness("run", "--build", "before,after", "--results", "")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "8 runs: 8 PASS" in r.stdout


@pytest.mark.before
def test_run_that_differs_is_1(tree):
    tree("before")
    r = harness("run", "--build", "before", "--expect", "after", "--fault",
                "pthread_create=EINVAL", "--results", "")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 runs: 1 FAIL" in r.stdout


@pytest.mark.base
def test_run_with_nothing_to_judge_is_1_unless_measured(tree):
    """base has no row in the PR's table: its runs are MEASURED, which is not a pass."""
    tree("base")
    r = harness("run", "--build", "base", "--fault", "pthread_create=EAGAIN", "--results", "")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 runs: 1 MEASURED" in r.stdout
    assert "not judged: base-onnx-dnn_processing-pthread_create-eagain: MEASURED" in r.stderr
    r = harness("run", "--build", "base", "--fault", "pthread_create=EAGAIN", "--results", "",
                "--measure")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "not judged" not in r.stderr


@pytest.mark.after
def test_sweep_judges_every_site(tree, monkeypatch, capsys):
    """ONNX Runtime's pthread_create sweep: no site, as expected: 0. The wrap sweep of
    ff_proc_from_frame_to_dnn (every site ALTERED, expected.SWEEP): 0; with the table
    saying CLEAN instead, the same real runs make it 1, naming each site."""
    tree("after")
    argv = ["sweep", "--build", "after", "--backend-name", "onnx", "--results", ""]
    assert cli.main(argv) == 0
    key = ("onnx", "dnn_processing", "wrap:ff_proc_from_frame_to_dnn")
    argv += ["--fault", "wrap:ff_proc_from_frame_to_dnn", "--limit", "2"]
    assert cli.main(argv) == 0
    capsys.readouterr()
    monkeypatch.setitem(expected.SWEEP, key, ("CLEAN", "a wrong table"))
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert "- onnx / dnn_processing / frames: after call 1: ALTERED, expected CLEAN" in err
    assert "- onnx / dnn_processing / frames: after call 2: ALTERED, expected CLEAN" in err


@pytest.mark.after
@pytest.mark.before
def test_table_rows_without_expectation_are_not_green(tree, monkeypatch, capsys):
    """`table` on one pair of the case's tables: 0 with the PR's rows; a fault the case has
    no row for (a window that skips a call) makes it 1, unless --measure."""
    tree("before"), tree("after")
    case = dataclasses.replace(expected.CASE, tables={"Table 1": Table((("onnx", "dnn_processing"),))})
    monkeypatch.setattr(expected, "CASE", case)
    argv = ["table", "--results", ""]
    assert cli.main(argv) == 0
    assert "8 runs: 8 PASS" in capsys.readouterr().out
    monkeypatch.setattr(expected, "CASE", dataclasses.replace(
        case, faults=("pthread_create=EINVAL", "pthread_create=1*off->1*return(EINVAL)")))
    assert cli.main(argv) == 1
    captured = capsys.readouterr()
    assert "4 runs: 2 PASS, 2 MEASURED" in captured.out
    assert "not judged: after-onnx-dnn_processing-pthread_create-einval-skip1-count1" \
        in captured.err
    assert cli.main(argv + ["--measure"]) == 0


@pytest.mark.base
@pytest.mark.before
def test_claims_skipped_row_is_not_green(tree, monkeypatch, capsys):
    """`claims --commit 7`: its rows on base and before reproduce, 0; the same rows plus
    one whose backend is not built (skipped) make it 1, the row named on stderr."""
    tree("base"), tree("before")
    row = next(c for c in expected.COMMIT_CLAIMS if c.id == "commit7-processing-flush-einval")
    monkeypatch.setattr(expected, "CASE", dataclasses.replace(expected.CASE, commit_claims=(row,)))
    argv = ["claims", "--commit", "7"]
    assert cli.main(argv) == 0
    assert "| reproduces |" in capsys.readouterr().out
    skipped = dataclasses.replace(row, id="commit7-needs-coreml", needs=("onnx", "coreml"))
    monkeypatch.setattr(expected, "CASE",
                        dataclasses.replace(expected.CASE, commit_claims=(row, skipped)))
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert "- not judged for commit7-needs-coreml: skipped: the trees were built without " \
           "coreml" in err
