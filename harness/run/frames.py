"""Waiting for a scenario's frames in the worker (harness/run/worker.py): pulling the sink,
and when to stop waiting for a frame: it came, it failed, or nothing is at work on it (a
synchronous backend's caller thread idle, no task thread FFmpeg started running). What
the tree's backends do is read from their source (harness/obtain/probe.py)."""

import errno
import hashlib
import os
import threading
import time
from pathlib import Path

from harness import errnos
from harness.obtain import probe
from harness.run import procfs
from harness.run import chains as graphs
from harness.run.filtergraph import Graph
from harness.run.record import Frame
from harness.run.scenario import Scenario

MAX_PULLS = 16
STILL = 2  # pulls that gave nothing, each followed by the same stalled() look, give a frame up
STALL_BEYOND = 3.0  # seconds: a wait with a deadline further off counts as one for good (a
                    # sweep waits 2 s for a frame at most)
# settle()'s pauses between pulls: from PAUSE_FIRST, doubled up to PAUSE_SOON for the first
# SOON seconds (a backend's frame mostly comes within them), then up to PAUSE_MAX (a frame
# waited for 2 s is pulled about 60 times: each pull's activate() is recorded,
# FFDNN_MAX_RECORDS)
PAUSE_FIRST, PAUSE_SOON, SOON, PAUSE_MAX = 0.001, 0.005, 0.1, 0.05
POKES = 40  # settle()'s pokes for one frame: each activate() it causes is recorded
            # (FFDNN_MAX_RECORDS), so a frame that never comes does not fill the records


def drain(g: Graph, until_eof: bool = False) -> tuple[list, list]:
    """Pull until the sink has nothing more for now, or (until_eof) until AVERROR_EOF:
    (return codes, [Frame]: each frame's md5 and boxes). Errors before EOF are
    recorded and pulled past."""
    codes, frames = [], []
    for _ in range(MAX_PULLS):
        ret, data, boxes = g.pull()
        codes.append(ret)
        if ret >= 0:
            frames.append(Frame(hashlib.md5(data).hexdigest(), boxes))
        elif ret == errnos.AVERROR_EOF or not until_eof:
            break
    return codes, frames


def synchronous(sc: Scenario) -> bool:
    """Whether, in this tree, every backend of the graph runs each task on the caller's
    thread (the probe reads it from the backend's source, as 9.0.2's ONNX backend's
    `ff_dnn_fill_task(task, exec_params, onnx_model, 0, 1)`); then a frame that did not
    come out of a pull is not coming."""
    backends = probe.facts(Path(sc.tree) / "src").backends
    return all(b in backends and backends[b].synchronous
               for b in graphs.needs(sc.backend, sc.filter))


def async_threads(sc: Scenario) -> bool:
    """Whether, in this tree, every backend of the graph runs its asynchronous tasks on
    threads FFmpeg's ff_dnn_start_inference_async() starts (the probe reads it from the
    source, as 9.0.2's TensorFlow and LibTorch): each thread completes its task before it
    ends, so a frame no such thread is working on, and that did not come out, is not
    coming."""
    backends = probe.facts(Path(sc.tree) / "src").backends
    return all(b in backends and backends[b].async_threads
               for b in graphs.needs(sc.backend, sc.filter))


def busy_elsewhere() -> bool:
    """Whether a thread other than this one is running or waiting for a CPU (R) or in
    uninterruptible I/O (D): some work that may yet produce a frame."""
    me = str(threading.get_native_id())
    for t in os.listdir("/proc/self/task"):
        try:
            state = Path(f"/proc/self/task/{t}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if t != me and state in ("R", "D"):
            return True
    return False


def others_cpu() -> float:
    """CPU seconds used by every thread of this process but this one."""
    return time.process_time() - time.thread_time()


def stalled(skip: tuple = ()) -> dict | None:
    """What every other thread of this process waits in, when each is asleep in a wait
    only a thread of the process ends (procfs.others_blocked(): a futex wait with no
    deadline near, as a backend runtime's idle workers and a lost request's waiters):
    None when one is at work, or may be woken from outside. This thread (and those in
    `skip`: the one that polls, when another thread watches it) is left out."""
    return procfs.others_blocked(os.getpid(), {threading.get_native_id(), *skip},
                                 STALL_BEYOND)


def settle(g: Graph, want: int, seconds: float = 10.0, idle: float = 0.0,
           running=None, poke=None, still=None) -> tuple[list, list]:
    """Pull until `want` frames came out (async backends finish on their own threads) or
    the sink returns an error for the frame, polling with a backoff from 1 to 50 ms (PAUSE_*):
    (return codes, repeats collapsed; [Frame]). With `running` (how many of the threads
    FFmpeg started for its tasks run now, -1 when unknown), stop waiting after two pulls
    in a row that gave nothing while none ran: every task started had ended by the
    second, so its frame would have come out. With `idle`, stop waiting once no other
    thread has run, used CPU or waited for one for that long: nothing is at work on the
    frame, so it is not coming (a failed start, a dropped frame). With `poke`, a pull
    that gave nothing is followed by poke() (at most POKES times): the filter is
    activated again on the next pull, as a tree whose graph does not activate a filter
    when its task ends needs (5.1's: the frame would come with the next frame or EOF).
    With `still` (stalled()), stop waiting once it has given the same look after each of
    STILL pulls in a row that gave nothing: every other thread asleep in a wait only this
    process ends, and neither the pulls nor anything else woke one, so nothing will
    (a backend runtime's own threads, as OpenVINO's, with the frame's request lost)."""
    codes, frames = [], []
    start = time.monotonic()
    deadline, pause = start + seconds, PAUSE_FIRST
    quiet = None  # (since, others' CPU then) while nothing else runs
    ended = 0     # pulls in a row that gave nothing while no task thread ran
    pokes = 0
    look, same = None, 0  # still()'s last look, and how many pulls in a row it stayed
    while len(frames) < want and time.monotonic() < deadline:
        c, f = drain(g)
        frames += f
        codes += [x for x in c if not codes or x != codes[-1]]
        if any(x < 0 and x != -errno.EAGAIN for x in c):
            break  # the frame failed: nothing more will come for it
        if len(frames) < want:
            if still is not None:
                now_look = None if f else still()
                same = same + 1 if now_look is not None and now_look == look else 0
                look = now_look
                if same >= STILL:
                    break
            if running is not None:
                ended = 0 if f or running() != 0 else ended + 1
                if ended >= 2:
                    break
            elif idle:
                now, cpu = time.monotonic(), others_cpu()
                if f or busy_elsewhere() or (quiet and cpu - quiet[1] > 0.001):
                    quiet = None
                elif quiet is None:
                    quiet = (now, cpu)
                elif now - quiet[0] >= idle:
                    break
            if poke and pokes < POKES:
                poke()
                pokes += 1
            time.sleep(pause)
            soon = time.monotonic() - start < SOON
            pause = min(pause * 2, PAUSE_SOON if soon else PAUSE_MAX)
    return codes, frames
