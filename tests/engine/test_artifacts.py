"""A CRASH or a HANG leaves its artifacts under the results directory: the output with
faulthandler's dump, the checkpoint, the scenario, the result, a reproducer and, for a
hang, gdb's backtrace of every thread taken before the kill."""

import json
import os
import re
import shlex
import shutil
import subprocess

import pytest

from harness.run import artifacts, matrix, runner
from harness import cli
from harness.judge import schemas
from harness.run.outcome import Outcome
from tests.selfworker import failing
from harness.run.scenario import Scenario
from harness.obtain.trees import Plan
from tests.conftest import EXPECT, LAYOUT, need_tree  # EXPECT, LAYOUT: the default case's

FILES = {"output.txt", "partial.json", "scenario.json", "result.json", "reproduce.sh"}


def test_crash_leaves_artifacts(trees, preload, tmp_path):
    """A real SIGSEGV in the worker; its reproduce.sh crashes the same way again."""
    tree = need_tree(trees, "base")
    (sc,) = failing(matrix.scenarios([tree], "onnx", "dnn_processing", ["none"]), "crash")
    r = runner.run_one(sc, preload, results=tmp_path, expect=EXPECT)
    assert r.outcome is Outcome.CRASH
    where = tmp_path / sc.id
    assert r.record.artifacts == str(where)
    assert {p.name for p in where.iterdir()} == FILES, "no backtrace for a crash"
    assert "Fatal Python error: Segmentation fault" in (where / "output.txt").read_text()
    assert json.loads((where / "partial.json").read_text()) is None, "died before EOF"
    assert Scenario.from_json((where / "scenario.json").read_text()) == sc
    result = json.loads((where / "result.json").read_text())
    assert result["reason"] == "worker died on SIGSEGV"
    assert schemas.problem(result, "run.json#/$defs/result") is None
    again = subprocess.run([where / "reproduce.sh"], capture_output=True, text=True)
    assert again.returncode == 128 + 11, "sh reports the rerun's SIGSEGV"
    assert json.loads((where / "partial.json").read_text()) is None


def hung(trees, preload, tmp_path, skip: int, timeout: float, where: str):
    """FFmpeg's allocation `skip + 1` failed on after's ONNX Runtime sweep route: the run,
    judged HANG because it sat idle (`where`: after or before EOF), and its artifacts."""
    tree = need_tree(trees, "after")
    (sc,) = matrix.scenarios([tree], "onnx", "dnn_processing",
                             [f"malloc={skip}*off->1*return(ENOMEM)"], route="sweep",
                             timeout=timeout)
    r = runner.run_one(sc, preload, results=tmp_path, expect=EXPECT)
    assert r.outcome is Outcome.HANG, r.reason
    if where == "after EOF" and "ff_dnn_get_result" in r.reason:  # the worker's own watch
        assert re.fullmatch(r"killed [0-9.]+ s in: the flush polled ff_dnn_get_result\(\) "
                            r"\d+ times at EOF with no result, and nothing runs that could "
                            r"complete its task", r.reason)
        return sc, r, tmp_path / sc.id
    if where == "after EOF" and "av_usleep" in r.reason:  # the same, of a wait that sleeps
        assert re.fullmatch(r"killed [0-9.]+ s in: FFmpeg's code sleeps in a wait "
                            r"\(av_usleep\(\), \d+ calls in the last 20 ms\), and nothing "
                            r"runs that could end it", r.reason), r.reason
        return sc, r, tmp_path / sc.id
    assert re.fullmatch(rf"killed [0-9.]+ s in: (idle for|every thread waiting on the others, "
                        rf"none run for) [0-9.]+ s {where}", r.reason)
    watched = r.record.watch[str(r.record.pid)]  # what the watch saw of the worker
    assert watched["cpu"] <= 0.05 * 3 and set(watched["threads"]) <= set("STZt")
    return sc, r, tmp_path / sc.id


@pytest.mark.tensorflow
@pytest.mark.after
def test_real_hang_leaves_artifacts(trees, preload, tmp_path):
    """FFmpeg's 11th allocation (an ONNX lltask's queue entry) fails: the task never
    completes and the run hangs at EOF (the malloc sweep's finding, which no table names,
    so gdb is asked). The checkpoint shows the failed call; gdb shows the threads."""
    # ONNX Runtime's backend is synchronous (its source): idle after EOF is hung
    sc, r, where = hung(trees, preload, tmp_path, 10, 3.0, "after EOF")
    assert {p.name for p in where.iterdir()} == FILES | {"backtrace.txt"}
    partial = json.loads((where / "partial.json").read_text())
    assert partial["counters"]["failures"] == 1, "the checkpoint before EOF"
    assert "eof_push" not in partial
    trace = (where / "backtrace.txt").read_text()
    if shutil.which("gdb"):
        assert trace.startswith(f"$ gdb -p {r.record.pid} -batch")
        assert "Thread 1 " in trace and "\n#0 " in trace, trace[-2000:]
    else:
        assert trace.startswith("gdb is not installed")
    command = (where / "reproduce.sh").read_text().splitlines()[-1]
    assert rerun_scenario(command) == sc, "reproduce.sh names exactly this scenario"


@pytest.mark.onnx
@pytest.mark.after
def test_graph_stuck_before_eof_is_judged_by_what_it_does(trees, preload, tmp_path):
    """FFmpeg's 34th allocation fails (the malloc sweep's finding): the next frame's
    activate() waits in ff_safe_queue_pop_front() for a request that never comes back,
    before EOF. On a synchronous backend the sweep's worker never waits for a frame
    longer than 2 s, so idle for longer (runner.STUCK) is hung: well before the timeout."""
    sc, r, where = hung(trees, preload, tmp_path, 33, 30.0, "before EOF")
    assert r.seconds < 20, "judged idle, not at its 30 s timeout"
    # every thread waits on a futex with no timeout, or one whose deadline (ONNX Runtime's
    # pool) is past when the idle timer (runner.STUCK) would judge: hung at once
    assert "every thread waiting on the others" in r.reason, r.reason
    assert {w.split()[0] for w in r.record.watch[str(r.record.pid)]["waits"]} == {"futex"}
    assert json.loads((where / "partial.json").read_text()) is None, "stuck before EOF"
    if shutil.which("gdb"):
        trace = (where / "backtrace.txt").read_text()
        assert "ff_safe_queue_pop_front" in trace and "dnn_execute_model_onnx" in trace, \
            trace[-3000:]


def rerun_scenario(command: str) -> Scenario:
    """The scenario a reproduce.sh's `python -m harness run` would run, as cmd_run makes it."""
    words = shlex.split(command)
    args = cli.parser().parse_args(words[words.index("harness") + 1:])
    tree = matrix.resolve_tree(args.build, Plan(args.backend or "default", LAYOUT), build=False)
    (sc,) = matrix.scenarios([tree], args.backend_name, args.filter, args.fault,
                             model=args.model, expect=args.expect, injector=args.injector,
                             timeout=args.timeout, route=args.route, frames=args.frames)
    return sc


@pytest.mark.unit
def test_no_gdb_is_said(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert artifacts.backtrace(os.getpid()).startswith("gdb is not installed: no C backtrace")
