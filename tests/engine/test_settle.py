"""The sweep gives up on a frame early only where that cannot change a result: a backend
that, in this tree's own source, runs every task on the caller's thread (9.0.2's ONNX),
and only once no other thread is at work; or one whose asynchronous tasks run on threads
FFmpeg's ff_dnn_start_inference_async() starts (9.0.2's TensorFlow and LibTorch), and
only once none of those runs."""

import threading
import time

import pytest

from harness.run import frames as waiting, matrix

pytestmark = [pytest.mark.after, pytest.mark.dnn_processing]


# what the probe reads from each backend's source: synchronous (the caller's thread runs
# its tasks), and whether its tasks run on threads ff_dnn_start_inference_async() starts
SOURCE = {"onnx": (True, False), "tf": (False, True), "openvino": (False, False),
          "torch": (False, True)}


@pytest.mark.parametrize("backend", SOURCE)
def test_task_threads_from_the_source(tree, backend):
    t = tree("after")
    if backend not in t.backends:
        pytest.skip(f"tree built without {backend} (run: make test BACKENDS=all)")
    (sc,) = matrix.scenarios([t], backend, "dnn_processing", ["none"], route="sweep")
    assert (waiting.synchronous(sc), waiting.async_threads(sc)) == SOURCE[backend]


class Sink:
    """A graph whose sink has nothing (AVERROR(EAGAIN)) until `ready` pulls were made."""

    def __init__(self, ready=None):
        self.pulls, self.ready = 0, ready

    def pull(self):
        self.pulls += 1
        if self.ready is not None and self.pulls >= self.ready:
            self.ready = None
            return 0, b"frame", []
        return -11, b"", []


@pytest.mark.unit
@pytest.mark.parametrize("running, ready, frames, pulls", [
    pytest.param(lambda: 0, None, 0, 2, id="none-running-gives-up-after-two-pulls"),
    pytest.param(lambda: 0, 2, 1, 3, id="none-running-second-pull-has-it"),
    pytest.param(lambda: -1, None, 0, None, id="unknown-waits-its-time"),
    pytest.param(lambda: 1, None, 0, None, id="running-waits-its-time"),
])
def test_a_frame_no_task_thread_works_on_is_given_up(running, ready, frames, pulls):
    """settle(running=): two pulls in a row with nothing while no task thread runs end
    the wait for a frame; a thread still running, or a count not known, does not."""
    g = Sink(ready)
    t0 = time.monotonic()
    codes, got = waiting.settle(g, 1, seconds=0.5, running=running)
    assert len(got) == frames
    if pulls is None:
        assert time.monotonic() - t0 >= 0.5 and g.pulls > 2
    else:
        assert g.pulls == pulls and time.monotonic() - t0 < 0.4


@pytest.mark.unit
def test_nothing_else_at_work_here():
    assert waiting.busy_elsewhere() is False
    cpu = waiting.others_cpu()
    time.sleep(0.2)  # this thread sleeps, and no other runs
    assert waiting.others_cpu() - cpu < 0.05


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
    cpu = waiting.others_cpu()
    t.start()
    try:
        started.wait()
        t0, seen = time.monotonic(), False
        while time.monotonic() - t0 < 1.0:
            seen = seen or waiting.busy_elsewhere()
    finally:
        stop.set()
        t.join()
    used = waiting.others_cpu() - cpu
    assert seen, "the spinning thread was never seen running"
    assert own[0] > 0.1, "the spinning thread got a CPU"
    assert abs(used - own[0]) < 0.05, f"others' CPU grew {used:.3f} s, the thread used {own[0]:.3f} s"


class Held(Sink):
    """A graph whose finished frame comes out only once the filter is activated again
    (5.1's: nothing activates it when its task ends): poke() marks it so."""

    def __init__(self):
        super().__init__()
        self.pokes, self.marked = 0, False

    def poke(self):
        self.pokes += 1
        self.marked = True

    def pull(self):
        self.pulls += 1
        if self.marked:
            self.marked = False
            return 0, b"frame", []
        return -11, b"", []


@pytest.mark.unit
def test_a_held_frame_is_fetched_by_activating_the_filter_again():
    """settle(poke=): a pull that gave nothing is followed by poke(), so the next pull
    activates the filter and the frame comes at once instead of after the wait."""
    g = Held()
    codes, got = waiting.settle(g, 1, seconds=5.0, poke=g.poke)
    assert len(got) == 1 and (g.pulls, g.pokes) == (3, 1)  # nothing, the frame, nothing
    g = Held()
    codes, got = waiting.settle(g, 1, seconds=0.3)  # no poke: the wait runs out
    assert got == [] and g.pokes == 0


@pytest.mark.unit
def test_pokes_for_one_frame_are_bounded():
    """A frame that never comes gets at most POKES pokes (each activate() is recorded)."""
    g = Sink()
    pokes = []
    waiting.settle(g, 1, seconds=3.0, poke=lambda: pokes.append(1))
    assert len(pokes) == waiting.POKES
