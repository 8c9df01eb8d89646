"""The runner contains what a worker does: a hang is killed with its process group,
a crash is named by its signal, bad input is one ERROR line, and the matrix goes on."""

import os
import sys

import pytest

from harness.run import runner
from harness.run.outcome import Outcome
from tests.selfworker import failing
from tests.conftest import EXPECT  # the default case's, by name

pytestmark = [pytest.mark.base, pytest.mark.onnx]
# a fork server's child unless switched off (tests/engine/test_forkserver.py)
WORKER = "fork server" if os.environ.get("FFDNN_FORKSERVER", "1") != "0" else \
    "fresh (FFDNN_FORKSERVER=0)"


def _gone(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def test_hang_is_killed(run_scenario):
    r = run_scenario("base", "none", timeout=3, entry="tests.selfworker:hang")
    assert r.outcome is Outcome.HANG
    assert "3 s timeout" in r.reason
    assert r.record.worker == WORKER
    assert _gone(r.record.pid), "no process of the worker's group is left"


def test_crash_names_the_signal(run_scenario):
    r = run_scenario("base", "none", entry="tests.selfworker:crash")
    assert r.outcome is Outcome.CRASH
    assert r.reason == "worker died on SIGSEGV"
    assert r.record.worker == WORKER
    assert "Fatal Python error" in r.record.output, "faulthandler's dump is kept"


def test_bad_model_is_one_error(run_scenario, tmp_path):
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not an onnx model")
    r = run_scenario("base", "none", model=str(bad))
    assert r.outcome is Outcome.ERROR
    assert r.reason.startswith("parse graph: ")
    assert "\n" not in r.reason


def test_matrix_goes_on_after_a_crash(trees, preload, run_scenario):
    from harness.run import matrix
    from tests.conftest import need_tree
    tree = need_tree(trees, "base")
    crash = failing(matrix.scenarios([tree], "onnx", "dnn_processing", ["none"]), "crash")
    fine = matrix.scenarios([tree], "onnx", "dnn_processing", ["pthread_create=EAGAIN"])
    results = runner.run(crash + fine, preload, jobs=2, expect=EXPECT)
    assert [r.outcome for r in results] == [Outcome.CRASH, Outcome.MEASURED]
    assert results[1].record.counters.failures == 1


@pytest.mark.unit
@pytest.mark.parametrize("work, hung", [
    pytest.param("import time; time.sleep(30)", True, id="asleep"),
    pytest.param("import time\nwhile True: time.sleep(0.005)", True, id="polling"),  # a flush loop
    pytest.param("import time\nt = time.monotonic()\nwhile time.monotonic() - t < 3: pass",
                 False, id="working"),  # at work for 3 s, then ends
    # waits for a child at work (as the worker for addr2line after EOF), then ends
    pytest.param("import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import time"
                 "\\nt = time.monotonic()\\nwhile time.monotonic() - t < 3: pass'])",
                 False, id="child-working")])
def test_a_run_expected_to_hang_is_judged_by_what_it_does(tmp_path, work, hung):
    """idle.Idle, through program.run(quiet=): a program that sits idle (asleep, or
    polling with a sleep) is killed as hung after `quiet` seconds, long before its
    timeout; one that uses a CPU is never judged hung, however long `quiet` it works."""
    from harness.run import program
    prog = tmp_path / "prog"
    prog.write_text(f"#!{sys.executable}\n{work}\n")
    prog.chmod(0o755)
    r = program.run(prog, [], timeout=20, quiet=0.5)
    assert r.hung == hung, r
    assert r.seconds < (5 if hung else 10), r
