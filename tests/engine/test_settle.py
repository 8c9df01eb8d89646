"""The sweep gives up on a frame early only where that cannot change a result: a backend
that, in this tree's own source, runs every task on the caller's thread (9.0.2's ONNX),
and only once no other thread is at work; or one whose asynchronous tasks run on threads
FFmpeg's ff_dnn_start_inference_async() starts (9.0.2's TensorFlow and LibTorch), and
only once none of those runs."""

import re
import subprocess
import sys
import threading
import time

import pytest

from harness.paths import PROJECT
from harness.run import frames as waiting, matrix, runner
from harness.run.outcome import Outcome
from tests.conftest import need_tree

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


class Looks:
    """stalled() as a test gives it: the looks in turn, the last one again and again."""

    def __init__(self, *looks):
        self.looks, self.n = list(looks), 0

    def __call__(self):
        self.n += 1
        return self.looks[min(self.n, len(self.looks)) - 1]


A, B = {(1, 2): ("S", "futex", 5, 40)}, {(1, 2): ("S", "futex", 5, 41)}


@pytest.mark.unit
@pytest.mark.parametrize("looks, ready, frames, pulls", [
    pytest.param((A,), None, 0, 3, id="same-look-after-each-pull-gives-up"),
    pytest.param((A, B, A, A), None, 0, 5, id="a-thread-ran-between-looks-starts-over"),
    pytest.param((A,), 3, 1, 4, id="the-frame-came-first"),  # and one pull after it
    pytest.param((None,), None, 0, None, id="a-thread-at-work-waits-its-time"),
    pytest.param((A, None), None, 0, None, id="at-work-after-one-look-waits-its-time"),
])
def test_a_frame_no_thread_can_make_is_given_up(looks, ready, frames, pulls):
    """settle(still=): STILL pulls in a row that gave nothing, each followed by the same
    look of the other threads (all asleep for good, none run since), end the wait for a
    frame; a look that changed (a thread ran) or none (a thread at work) does not."""
    g = Sink(ready)
    t0 = time.monotonic()
    codes, got = waiting.settle(g, 1, seconds=0.5, still=Looks(*looks))
    assert len(got) == frames
    if pulls is None:
        assert time.monotonic() - t0 >= 0.5 and g.pulls > 5
    else:
        assert g.pulls == pulls and time.monotonic() - t0 < 0.4


def test_threads_asleep_for_good_are_stalled():
    """stalled() in a process of its own (pytest's workers keep a thread in a read): a
    thread waiting on a lock no one releases is asleep for good, the same look twice; one
    in a sleep is not (its sleep ends by itself)."""
    code = """if True:
        import threading, time
        from harness.run import frames
        held = threading.Lock(); held.acquire()
        t = threading.Thread(target=held.acquire, daemon=True); t.start()
        time.sleep(0.2)
        first = frames.stalled(); time.sleep(0.05); second = frames.stalled()
        s = threading.Thread(target=time.sleep, args=(5,), daemon=True); s.start()
        time.sleep(0.2)
        print(first is not None and first == second, frames.stalled() is None)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=PROJECT, check=True).stdout.split()
    assert out == ["True", "True"], out


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
    cpu, mine = waiting.others_cpu(), time.thread_time()
    t.start()
    try:
        started.wait()
        t0, seen = time.monotonic(), False
        while time.monotonic() - t0 < 1.0:
            seen = seen or waiting.busy_elsewhere()
    finally:
        stop.set()
        t.join()
    used, mine = waiting.others_cpu() - cpu, time.thread_time() - mine
    assert seen, "the spinning thread was never seen running"
    assert own[0] > 0.1, "the spinning thread got a CPU"
    # the thread's ticks counted (to a tick or two), the caller's not: under load the
    # caller gets less CPU, so the margin is half of what it got (another thread of the
    # process, pytest-xdist's, may run meanwhile)
    assert own[0] - 0.03 < used < own[0] + max(mine / 2, 0.05), \
        f"others' CPU grew {used:.3f} s, the thread used {own[0]:.3f} s, the caller {mine:.3f} s"


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


@pytest.mark.openvino
def test_a_lost_request_on_openvino_is_judged_by_its_threads(trees, preload):
    """FFmpeg's 10th allocation on after's OpenVINO sweep route (an lltask's, taken from
    the malloc sweep) fails and the frame's request is lost: OpenVINO's own threads all
    sleep for good, so each frame is given up at once (stalled(); else 2 s each, and the
    runner's watch ends the run before EOF) and the flush's polling at EOF is stuck
    (else the runner's 2 s idle timer judges it)."""
    tree = need_tree(trees, "after")
    if "openvino" not in tree.backends:
        pytest.skip("trees built without openvino (run: make test BACKENDS=all)")
    (sc,) = matrix.scenarios([tree], "openvino", "dnn_processing",
                             ["malloc=9*off->1*return(ENOMEM)"], route="sweep", timeout=10)
    r = runner.run_one(sc, preload)
    assert r.outcome is Outcome.HANG, r.reason
    assert re.fullmatch(r"killed [0-9.]+ s in: the flush polled ff_dnn_get_result\(\) \d+ "
                        r"times at EOF with no result, and nothing runs that could complete "
                        r"its task", r.reason), r.reason


SLEEPS = (r"killed [0-9.]+ s in: FFmpeg's code sleeps in a wait \(av_usleep\(\), \d+ calls in "
          r"the last 20 ms\), and nothing runs that could end it")  # eofwatch's word


def after_run(trees, preload, backend: str, fault: str, route: str):
    """One run on after's dnn_processing graph of `backend` (4 frames, as the sweep's)."""
    tree = need_tree(trees, "after")
    if backend not in tree.backends:
        pytest.skip(f"trees built without {backend} (run: make test BACKENDS=all)")
    (sc,) = matrix.scenarios([tree], backend, "dnn_processing", [fault], route=route,
                             timeout=10, frames=4)
    return runner.run_one(sc, preload)


@pytest.mark.openvino
def test_a_request_lost_at_the_freeing_is_judged_by_its_sleeps(trees, preload):
    """FFmpeg's 96th allocation on after's OpenVINO sweep route (a request's entry as it is
    put back in its queue, taken from the malloc sweep) fails and the request is lost: the
    flush does not wait for it, the backend's freeing does (ff_dnn_wait_requests() polls
    every 10 ms with av_usleep()), with OpenVINO's own threads all asleep for good; the
    worker's watch sees the sleeps and says so at once (else the runner's 2 s idle timer
    judges it)."""
    r = after_run(trees, preload, "openvino", "malloc=95*off->1*return(ENOMEM)", "sweep")
    assert r.outcome is Outcome.HANG, r.reason
    assert r.record.sites[0].where.startswith("create_entry (queue.c"), r.record.sites
    assert re.fullmatch(SLEEPS, r.reason), r.reason


@pytest.mark.tensorflow
def test_a_model_that_could_not_load_is_judged_by_its_sleeps(trees, preload):
    """On after's setup route, TensorFlow's model fails to load (its 133rd allocation, in
    dnn_load_model_tf(), taken from the malloc sweep; the 127th before its graph set
    sess_config, whose parsing allocates): the backend's freeing then waits
    for requests that were never made (ff_dnn_wait_requests()). The watch runs while the
    graph is made and says so at once (else the runner's 3 s timer before EOF)."""
    r = after_run(trees, preload, "tf", "malloc=132*off->1*return(ENOMEM)", "setup")
    assert r.outcome is Outcome.HANG, r.reason
    assert re.fullmatch(SLEEPS, r.reason), r.reason


@pytest.mark.torch
def test_the_setup_watch_leaves_the_frames_alone(trees, preload):
    """On after's setup route, LibTorch's lltask queue is not made (its 97th allocation)
    and the frames are dropped: the watch while the graph is made ends once it is made
    (and counts no thread of FFmpeg's), so the frames are waited for as on the frames
    route. (Left watching, with FFmpeg's threads counted from the start, each frame was
    waited for until the runner's 3 s timer ended the run as a HANG.)"""
    r = after_run(trees, preload, "torch", "malloc=96*off->1*return(ENOMEM)", "setup")
    assert r.outcome is Outcome.MEASURED, r.reason
    assert r.record.setup.ret == 0 and len(r.record.frames) < 4, r.record
