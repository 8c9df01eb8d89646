"""The worker's watch of a flush that can never end (harness/run/worker.py starts it at
EOF): FFmpeg's flush loop polls ff_dnn_get_result() every 5 ms, a sleep the runner's
look at the process leaves to its idle timer; this thread of the worker's own tells the
runner at once when nothing can complete the task it polls for."""

import threading
import time

from harness.run.frames import async_threads, stalled, synchronous
from harness.run.scenario import Scenario


STREAK = 10  # ff_dnn_get_result()'s DAST_NOT_READY answers in a row (the flush polls every
             # 5 ms: 50 ms) after which, when nothing can complete a task, the run is stuck
             # (40 before 2026-12-07: the same class at each of 610 sites, the hangs 35% shorter)


def watch(lib, sc: Scenario, stuck, still: bool = True) -> None:
    """From EOF on, a thread of the worker's own watches the filter's flush: once it has
    polled ff_dnn_get_result() STREAK times in a row with no result, while nothing can
    complete a task (every task of a synchronous backend runs on the thread that is
    polling; a backend whose tasks run on threads FFmpeg starts has none running, twice
    in a row; any other, as OpenVINO's own threads: every thread but the polling one
    asleep in a wait only the process ends, and none run between two looks, stalled()),
    the run can never end: `stuck(reason)` tells the runner, which ends it as a HANG at
    once instead of after its idle timer. `still` False: the last kind is not looked at
    (FFDNN_SWEEP_STILL=0)."""
    if synchronous(sc):
        idle = lambda: True  # noqa: E731 - nothing but the polling thread runs a task
    elif async_threads(sc) and lib.ffdnn_threads_track(b"_ffdnn.") == 0:
        idle = lambda: lib.ffdnn_threads_running() == 0  # noqa: E731
    elif still:
        idle = _unchanged(threading.get_native_id())  # this thread polls the flush
    else:
        return

    def look():
        quiet = 0
        while True:
            time.sleep(0.02)
            n = lib.ffdnn_poll_streak()
            quiet = quiet + 1 if n >= STREAK and idle() else 0
            if quiet >= 2:
                stuck(f"the flush polled ff_dnn_get_result() {n} times at EOF with no "
                      "result, and nothing runs that could complete its task")
                return
    threading.Thread(target=look, name="ffdnn-eof-watch", daemon=True).start()


def _unchanged(poller: int):
    """A test that is true when stalled() (every thread but `poller` and the asker asleep
    for good) gives the same look as the time before."""
    last = [None]

    def idle() -> bool:
        look = stalled((poller,))
        same, last[0] = look is not None and look == last[0], look
        return same
    return idle
