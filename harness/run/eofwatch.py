"""The worker's watch of a flush, or any wait, that can never end (harness/run/worker.py
starts it at EOF, and on the setup route before the graph is made): FFmpeg's flush loop
polls ff_dnn_get_result() every 5 ms, and a backend's freeing waits for its requests
polling every 10 ms, sleeps the runner's look at the process leaves to its idle timer;
this thread of the worker's own tells the runner at once when nothing can complete the
task polled for or end the wait."""

import threading
import time

from harness.run.frames import async_threads, stalled, synchronous
from harness.run.scenario import Scenario


STREAK = 10  # ff_dnn_get_result()'s DAST_NOT_READY answers in a row (the flush polls every
             # 5 ms: 50 ms) after which, when nothing can complete a task, the run is stuck
             # (40 before 2026-12-07: the same class at each of 610 sites, the hangs 35% shorter)
SLEEPS = 3   # looks in a row (20 ms apart) that each find FFmpeg's code slept since the one
             # before while nothing can end its wait: 3, as the wait just ended may have
             # slept once more after the first


def watch(lib, sc: Scenario, stuck, still: bool = True, setup: bool = False):
    """From here on, a thread of the worker's own watches the filter's flush and the
    graph's freeing: once the flush has polled ff_dnn_get_result() STREAK times in a row
    with no result, or FFmpeg's code slept in av_usleep() since the look before and took
    no result (a wait that polls: the freeing's wait for every request to come back),
    SLEEPS looks in a row, while nothing can complete a task (every task of a synchronous
    backend runs on the thread that is polling; a backend whose tasks run on threads
    FFmpeg starts has none running, twice in a row; any other, as OpenVINO's own threads:
    every thread but the polling one asleep in a wait only the process ends, and none run
    between two looks, stalled()), the run can never end: `stuck(reason)` tells the
    runner, which ends it as a HANG at once instead of after its idle timer. `still`
    False: the last kind is not looked at (FFDNN_SWEEP_STILL=0). `setup`: while the graph
    is made (the setup route), before any frame: FFmpeg's threads are not counted there
    (its idle slice threads would be), a backend's are looked at as the last kind's. What
    stops the watch is returned."""
    if synchronous(sc):
        idle = lambda: True  # noqa: E731 - nothing but the polling thread runs a task
    elif not setup and async_threads(sc) and lib.ffdnn_threads_track(b"_ffdnn.") == 0:
        idle = lambda: lib.ffdnn_threads_running() == 0  # noqa: E731
    elif still:
        idle = _unchanged(threading.get_native_id())  # this thread polls the flush
    else:
        return lambda: None
    done = threading.Event()
    lib.ffdnn_poll_restart()  # the flush's polls: the pulls for the frames polled before it

    def look():
        quiet = sleeping = 0  # looks in a row: polled with no result / slept, nothing at work
        slept, answers = lib.ffdnn_sleeps(), lib.ffdnn_poll_answers()
        while not done.wait(0.02):
            n, was, slept = lib.ffdnn_poll_streak(), slept, lib.ffdnn_sleeps()
            # slept with no result taken since the look before (a flush that takes its
            # last results sleeps between them too, after every thread has ended)
            before, answers = answers, lib.ffdnn_poll_answers()
            waits = slept > was and answers == before
            # idle() once a look at most: it compares a look with the one before
            nothing_at_work = (n >= STREAK or waits) and idle()
            quiet = quiet + 1 if n >= STREAK and nothing_at_work else 0
            sleeping = sleeping + 1 if waits and nothing_at_work else 0
            if quiet >= 2:
                stuck(f"the flush polled ff_dnn_get_result() {n} times at EOF with no "
                      "result, and nothing runs that could complete its task")
                return
            if sleeping >= SLEEPS:
                stuck(f"FFmpeg's code sleeps in a wait (av_usleep(), {slept - was} calls in "
                      "the last 20 ms), and nothing runs that could end it")
                return
    threading.Thread(target=look, name="ffdnn-eof-watch", daemon=True).start()
    return done.set


def _unchanged(poller: int):
    """A test that is true when stalled() (every thread but `poller` and the asker asleep
    for good) gives the same look as the time before."""
    last = [None]

    def idle() -> bool:
        look = stalled((poller,))
        same, last[0] = look is not None and look == last[0], look
        return same
    return idle
