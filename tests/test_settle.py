"""The sweep gives up on a frame early only where that cannot change a result: a backend
that, in this tree's own source, runs every task on the caller's thread (9.0.2's ONNX),
and only once no other thread is at work."""

import threading
import time

import pytest

from harness.run import matrix, worker

pytestmark = [pytest.mark.after, pytest.mark.dnn_processing]


@pytest.mark.parametrize("backend, sync", [("onnx", True), ("tf", False), ("openvino", False),
                                           ("torch", False)])
def test_synchronous_backends_from_the_source(tree, backend, sync):
    t = tree("after")
    if backend not in {b["name"] for b in t.stamp["backends"]}:
        pytest.skip(f"tree built without {backend} (run: make test BACKENDS=all)")
    (sc,) = matrix.scenarios([t], backend, "dnn_processing", ["none"], route="sweep")
    assert worker.synchronous(sc) is sync


@pytest.mark.unit
def test_nothing_else_at_work_here():
    assert worker.busy_elsewhere() is False
    cpu = worker.others_cpu()
    time.sleep(0.2)  # this thread sleeps, and no other runs
    assert worker.others_cpu() - cpu < 0.05


@pytest.mark.unit
def test_another_thread_at_work_is_seen():
    """A thread that spins is seen running (R), and others_cpu() grows by the CPU time
    that thread measured for itself, not by the caller's own (the caller spins too)."""
    stop, started, own = threading.Event(), threading.Event(), []

    def spin():
        t0 = time.thread_time()
        started.set()
        while not stop.is_set():
            pass
        own.append(time.thread_time() - t0)
    t = threading.Thread(target=spin)
    cpu = worker.others_cpu()
    t.start()
    try:
        started.wait()
        t0, seen = time.monotonic(), False
        while time.monotonic() - t0 < 1.0:
            seen = seen or worker.busy_elsewhere()
    finally:
        stop.set()
        t.join()
    used = worker.others_cpu() - cpu
    assert seen, "the spinning thread was never seen running"
    assert own[0] > 0.1, "the spinning thread got a CPU"
    assert abs(used - own[0]) < 0.05, f"others' CPU grew {used:.3f} s, the thread used {own[0]:.3f} s"
