"""No false HANG under load (issue 26): a run is judged hung only when it and the processes
it started sit idle, so a run that is slow but at work (its addr2line made slow) finishes
and passes, and with both cores taken by CPU hogs the PR's rows and a sweep's sites end
as they do on a quiet machine."""

import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager, nullcontext

import pytest

from harness.cases import pr24760 as expected
from harness import errnos
from harness.experiments import sweep
from harness.run import matrix
from harness.run.outcome import Outcome

# a CPU hog: what another build or test on the machine does to the harness's runs
HOG = "while True: pass"


@contextmanager
def hogs(n: int = os.cpu_count() or 2):
    procs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(n)]
    try:
        time.sleep(0.5)  # both cores taken before the runs start
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


@pytest.fixture
def slow_symbolizer(tmp_path, monkeypatch):
    """The symbolizers harness.run.sites names stacks with (llvm-symbolizer where it is
    installed, addr2line otherwise), each working 1.5 s of CPU before it answers: after EOF
    the worker waits on one to name the failed call's stack."""
    found = False
    for name in ("llvm-symbolizer", "addr2line"):
        real = shutil.which(name)
        if not real:
            continue
        found = True
        tool = tmp_path / "bin" / name
        tool.parent.mkdir(exist_ok=True)
        tool.write_text(f"#!{sys.executable}\nimport os, sys, time\nt = time.process_time()\n"
                        "while time.process_time() - t < 1.5: pass\n"
                        f"os.execv({real!r}, [{real!r}] + sys.argv[1:])\n")
        tool.chmod(0o755)
    if not found:
        pytest.skip("neither llvm-symbolizer nor addr2line is installed (llvm, binutils)")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("loaded", [False, True], ids=["quiet", "loaded"])
def test_slow_but_at_work_is_not_a_hang(tree, preload, slow_symbolizer, loaded):
    """The after row with a failed thread start, whose stack the worker names after EOF
    through a symbolizer (1.5 s of CPU here): judged by what it did, PASS, in about 2 s
    quiet and 3-4 s with both cores hogged; ONNX Runtime's runs are judged hung after
    0.5 s idle, so a watch that did not count the worker's children, or one that went by
    the clock, would have killed it."""
    from harness.run import runner
    from harness.run.runner import run_one
    (sc,) = matrix.scenarios([tree("after")], "onnx", "dnn_processing",
                             ["pthread_create=EAGAIN"])
    with runner.servers() as pool:  # servers of its own: they see the slow symbolizer's PATH
        with hogs() if loaded else nullcontext():
            r = run_one(sc, preload, expect=expected.EXPECT, pool=pool)
    assert r.outcome is Outcome.PASS, f"{r.outcome.value}: {r.reason} {r.diffs} {r.record.watch or ''}"
    assert r.seconds >= 1.5, "the symbolizer ran, slowly, before the run ended"


def table_rows(trees) -> list:
    """Every row of the case's tables that the trees can run: each table's faults on each
    (backend, filter) pair built, on its route, on before and after (LibTorch's own route
    included: its after rows expect a HANG, judged hung once the run sits idle)."""
    from harness.run import chains as graphs
    have = trees[0].backends
    rows = []
    for table in expected.TABLES.values():
        for backend, filt in table.pairs:
            if (backend, filt) in graphs.GRAPHS and graphs.needs(backend, filt) <= have \
                    and not graphs.not_on_trees(trees, backend, filt):
                rows += matrix.scenarios(trees, backend, filt,
                                         list(table.faults or expected.FAULTS),
                                         route=table.route,
                                         timeout=table.timeout or 60.0)
    return rows


# The PR's tables (every row the trees can run) and TensorFlow's sweep of pthread_create
# on before (4 sites, every one HANG: harness/cases/pr24760/ SWEEP): with both cores hogged,
# every row PASSes as on a quiet machine and every site's class is the quiet run's.
@pytest.mark.before
@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.tensorflow
def test_loaded_machine_no_false_hang(tree, preload):
    from harness.run import runner
    from harness.run.runner import run as run_all
    have = tree("after").backends
    if "tf" not in have:
        pytest.skip("tree built without tf (run: make test BACKENDS=all)")
    rows = table_rows([tree("before"), tree("after")])
    swept = matrix.scenarios([tree("before")], "tf", "dnn_processing",
                             ["pthread_create=EAGAIN"], route="sweep")
    with runner.servers() as pool:
        quiet = sweep.sweep(swept, preload, jobs=2, expect=expected.EXPECT, pool=pool)
        with hogs():
            loaded_rows = run_all(rows, preload, jobs=2, expect=expected.EXPECT, pool=pool)
            loaded = sweep.sweep(swept, preload, jobs=2, expect=expected.EXPECT, pool=pool)
    assert [(r.scenario.id, r.outcome) for r in loaded_rows] == \
        [(r.scenario.id, Outcome.PASS) for r in loaded_rows], \
        [(r.scenario.id, r.outcome.value, r.reason) for r in loaded_rows
         if r.outcome is not Outcome.PASS]
    assert len(loaded_rows) >= 16, "both tables' rows on ONNX Runtime and TensorFlow at least"
    classes = lambda found: [s.cls.value for s in found["before"][1]]
    assert classes(loaded) == classes(quiet) == ["HANG"] * quiet["before"][0]


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("loaded", [False, True], ids=["quiet", "loaded"])
def test_a_delay_injected_after_eof_is_not_a_hang(tree, preload, loaded):
    """The stand-in flush's thread start at EOF delayed 1.5 s (pthread_create=1*delay(1500)):
    the run sits idle, asleep, three times as long as ONNX Runtime's runs may before they
    are judged hung, then ends as a clean run does. Judged by what it did: it ended (the
    sleeping thread's name, ffdnn-delay, tells the watch it is the delay asked for)."""
    from harness.run import runner
    from harness.run.runner import run_one
    (sc,) = matrix.scenarios([tree("after")], "onnx", "dnn_processing",
                             ["pthread_create=1*delay(1500)"])
    with runner.servers() as pool, hogs() if loaded else nullcontext():
        r = run_one(sc, preload, expect=expected.EXPECT, pool=pool)
    assert r.outcome is not Outcome.HANG, r.reason
    assert r.seconds >= 1.5 and r.record.counters.failures == 1, "the start was delayed"
    assert r.record.sink[-1] == errnos.AVERROR_EOF and len(r.record.frames) == sc.frames
