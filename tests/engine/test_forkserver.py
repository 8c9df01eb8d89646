"""Fork servers: a scenario is a child forked from a process that has only imported the
build's module, so each starts from a fresh copy; the servers end with their matrix or
their parent, and leave no process behind; a server that cannot fork safely is not used."""

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from harness import reaper
from harness.run import forkclient, matrix, runner
from harness.run.outcome import OK, Outcome
from harness.paths import PROJECT
from tests.conftest import EXPECT, need_tree  # EXPECT: the default case's, by name
from tests.selfworker import failing

pytestmark = [pytest.mark.base, pytest.mark.onnx]
FORK = os.environ.get("FFDNN_FORKSERVER", "1") != "0"


def marked(mark: str) -> list:
    """Processes started with FFDNN_TEST_MARK=mark in their environment (servers, workers
    and whatever they started), but this process's reaper guard: it lives as long as the
    process, and is started by whichever test spawns first."""
    want, pids = f"FFDNN_TEST_MARK={mark}".encode(), []
    guard = str(getattr(reaper._guard, "pid", ""))
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and p != guard and want in Path(f"/proc/{p}/environ").read_bytes().split(b"\0"):
                pids.append(int(p))
        except OSError:
            continue
    return pids


def scenarios(trees, *faults, **kw):
    return matrix.scenarios([need_tree(trees, "base")], "onnx", "dnn_processing", list(faults),
                            **kw)


@pytest.mark.skipif(not FORK, reason="FFDNN_FORKSERVER=0")
def test_each_scenario_starts_fresh(trees, preload):
    """Two runs from one server: two children, and the second does not see the first's
    flush call, activate() records or injected failure."""
    (sc,) = scenarios(trees, "pthread_create=EAGAIN")
    pool = forkclient.Pool()
    try:
        a, b = runner.run_one(sc, preload, pool=pool, expect=EXPECT), runner.run_one(sc, preload, pool=pool, expect=EXPECT)
        assert len(pool.servers) == 1
    finally:
        pool.close()
    assert [a.record.worker, b.record.worker] == ["fork server"] * 2
    assert a.record.pid != b.record.pid
    for r in (a, b):
        assert r.outcome in OK, r.reason or r.diffs
        assert r.record.flush_calls == 1
        assert r.record.counters.failures == 1
    assert a.record.activate == b.record.activate


@pytest.mark.skipif(not FORK, reason="FFDNN_FORKSERVER=0")
def test_a_child_reads_nothing_of_the_tree_again(trees, preload):
    """The tree's facts (whether a sweep's frames run on the caller's thread) are read by
    the server before it forks: no child reads them again (60 ms of a run of 100 ms)."""
    sc = dataclasses.replace(scenarios(trees, "pthread_create=EAGAIN")[0],
                             entry="tests.selfworker:facts_read")
    pool = forkclient.Pool()
    try:
        runs = [runner.run_one(sc, preload, pool=pool) for _ in range(2)]
    finally:
        pool.close()
    assert [r.record.worker for r in runs] == ["fork server"] * 2
    assert [r.record.log for r in runs] == ["inherited"] * 2


def test_no_process_left_after_a_matrix(trees, preload, monkeypatch):
    mark = uuid.uuid4().hex
    monkeypatch.setenv("FFDNN_TEST_MARK", mark)
    scs = (failing(scenarios(trees, "none"), "crash")
           + failing(scenarios(trees, "none", timeout=2), "hang")
           + scenarios(trees, "pthread_create=EAGAIN"))
    seen = []
    results = runner.run(scs, preload, jobs=2, progress=lambda r: seen.append(marked(mark)))
    assert [r.outcome for r in results] == [Outcome.CRASH, Outcome.HANG, Outcome.MEASURED]
    assert max(map(len, seen)) >= 1, "the matrix's processes are seen while it runs"
    assert marked(mark) == [], "servers and workers are all gone"


CHILD = """
import os, signal, sys, threading, time
from harness.run import matrix, runner, worker
from tests.selfworker import failing
mark, name, path, preload = sys.argv[1:5]
os.environ["FFDNN_TEST_MARK"] = mark  # for the servers and workers, not this process
(sc,) = failing(matrix.scenarios([worker.load_tree(name, path)], "onnx", "dnn_processing",
                                 ["none"], timeout=600), "hang")
threading.Thread(target=runner.run_one, args=(sc, preload), daemon=True).start()
print("running", flush=True)
sys.stdin.readline()
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.skipif(not FORK, reason="FFDNN_FORKSERVER=0")
def test_servers_and_workers_die_with_their_parent(trees, preload):
    """A process that dies without cleaning up (a killed xdist worker): its fork server
    sees EOF, kills its hung child's group and exits."""
    tree, mark = need_tree(trees, "base"), uuid.uuid4().hex
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(CHILD), mark, tree.name,
                          str(tree.path), preload], cwd=PROJECT, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "running\n"
    deadline = time.monotonic() + 30
    while len(marked(mark)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)  # the server and its hung child
    assert len(marked(mark)) == 2
    p.stdin.write("\n")
    p.stdin.close()
    assert p.wait(10) == -signal.SIGKILL
    p.stdout.close()
    deadline = time.monotonic() + 10
    while marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = marked(mark)
    for pid in left:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert left == [], "the server and its child ended with their parent"


def test_switched_off(run_scenario, monkeypatch):
    monkeypatch.setenv("FFDNN_FORKSERVER", "0")
    r = run_scenario("base", "pthread_create=EAGAIN")
    assert r.outcome in OK, r.reason
    assert r.record.worker == "fresh (FFDNN_FORKSERVER=0)"
    assert r.record.counters.failures == 1


THREAD_AT_LOAD = r"""
#include <pthread.h>
#include <unistd.h>

static void *idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

__attribute__((constructor)) static void start_a_thread(void)
{
    pthread_t t;

    if (pthread_create(&t, NULL, idle, NULL) == 0)
        pthread_detach(t);
}
"""


@pytest.mark.skipif(not FORK, reason="FFDNN_FORKSERVER=0")
def test_threads_at_import_mean_a_fresh_process(trees, preload, tmp_path):
    """A library that starts a thread when loaded (as a backend's could): forking that
    process is unsafe, so the scenario runs in a fresh process and says why."""
    src, so = tmp_path / "thread_at_load.c", tmp_path / "libthread_at_load.so"
    src.write_text(THREAD_AT_LOAD)
    subprocess.run(["cc", "-shared", "-fPIC", "-pthread", "-o", so, src], check=True)
    (sc,) = scenarios(trees, "pthread_create=EAGAIN")
    pool = forkclient.Pool()
    try:
        r = runner.run_one(sc, f"{preload} {so}", pool=pool, expect=EXPECT)
    finally:
        pool.close()
    assert r.record.worker == "fresh (the module's import started 2 threads)"
    assert r.outcome in OK, r.reason or r.diffs
    assert r.record.counters.failures == 1


@pytest.mark.skipif(not FORK, reason="FFDNN_FORKSERVER=0")
def test_tests_share_a_server(run_scenario, monkeypatch):
    """pytest sets PYTEST_CURRENT_TEST for every test: it must not cost a server each."""
    run_scenario("base", "none")
    servers = len(forkclient.DEFAULT.servers)
    # another test's name (no such file: its path is put together so as not to name one)
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/" + "elsewhere.py::test_other (call)")
    r = run_scenario("base", "none")
    assert r.record.worker == "fork server"
    assert len(forkclient.DEFAULT.servers) == servers


@pytest.mark.skipif(not FORK, reason="FFDNN_FORKSERVER=0")
def test_a_dead_server_is_replaced(trees, preload):
    (sc,) = scenarios(trees, "pthread_create=EAGAIN")
    pool = forkclient.Pool()
    try:
        assert runner.run_one(sc, preload, pool=pool, expect=EXPECT).record.worker == "fork server"
        (server,) = pool.servers.values()
        server.p.kill()
        server.reader.join(10)
        assert server.dead
        r = runner.run_one(sc, preload, pool=pool, expect=EXPECT)
        assert r.outcome in OK and r.record.worker == "fork server"
        assert list(pool.servers.values()) != [server]
    finally:
        pool.close()
