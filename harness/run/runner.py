"""Run scenarios, each in a worker process of its own, and judge them.

A worker (harness/run/forkclient.py: a fork server's child, or a fresh interpreter) runs
in its own process group with the injector preloaded only there; a timeout kills the
whole group (SIGTERM, then SIGKILL) and becomes HANG, a signal becomes CRASH, and the
rest of the matrix goes on. A CRASH or HANG can leave its artifacts (harness/run/artifacts.py).
"""

import contextlib
import json
import math
import os
import signal
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Callable
from pathlib import Path

from harness import reaper
from harness.run import artifacts, chains, forkclient, routes
from harness.run.outcome import Outcome, judge
from harness.run.idle import QUIET, SYNC_QUIET, Idle
from harness.run.record import RunRecord
from harness.paths import PROJECT
from harness.run.scenario import Scenario


@dataclass
class Result:
    scenario: Scenario
    outcome: Outcome
    record: RunRecord = field(default_factory=RunRecord)
    diffs: list = field(default_factory=list)
    seconds: float = 0.0
    reason: str = ""

    @property
    def data(self) -> dict:
        """The record's JSON form, as `Result.data` was before the record had a type: for a
        fault test written then (docs/pytest.md); `record` is the typed one."""
        import warnings
        warnings.warn("Result.data is the record's JSON form; read Result.record instead",
                      DeprecationWarning, stacklevel=2)
        return self.record.to_dict()

    def to_dict(self) -> dict:
        return {"id": self.scenario.id, "outcome": self.outcome.value, "reason": self.reason,
                "diffs": self.diffs, "seconds": round(self.seconds, 3),
                "expect": self.scenario.expected_build, "fault": self.scenario.fault.spec,
                "result": self.record.to_dict()}


def _partial(out: str) -> RunRecord:
    """What the worker checkpointed before the EOF phase, if it got that far."""
    try:
        return RunRecord.from_dict(json.loads(Path(out).with_suffix(".partial.json").read_text()))
    except (OSError, ValueError):
        return RunRecord()


@dataclass(frozen=True)
class Expect:
    """What the runner is told about a scenario by the case that made it (harness/cases/):
    lookup(sc) is the Expectation it is judged against (None: measured only); hangs(sc)
    says the case knows it hangs, so it is judged hung once idle after EOF (QUIET) and
    gets no backtrace."""
    lookup: Callable
    hangs: Callable


def _judge(sc: Scenario, record: RunRecord, exp, hung: bool = False):
    """judge(), told whether the scenario's frames must come out as pushed (the
    harness's own chain for its backend and filter keeps pixels: run/chains.py)."""
    same = exp is not None and chains.keeps_pixels(sc.backend, sc.filter, sc.description)
    return judge(record, exp, hung, same)


NOTHING = Expect(lambda sc: None, lambda sc: False)  # measure only
TICK = 0.02  # how often the worker's own judgement (its .stuck file) is looked for
LOOK = 0.1   # how often the process is looked at (idle.Idle: nothing ran between two looks)
STUCK = 3.0  # idle seconds before EOF that make a sweep's run hung (the worker waits 2 s a frame at most)


def _quiet(sc: Scenario, expect: Expect) -> float:
    """How long a run must sit idle after EOF to be judged hung. SYNC_QUIET when every
    backend of its graph runs each task on the caller's thread, or on a thread FFmpeg's
    own ff_dnn_start_inference_async() starts for it (the tree's source says so,
    harness/run/frames.py synchronous(), async_threads()): a task at work keeps a thread
    of the process running, so once none runs and the caller only polls, no task is
    coming to an end. QUIET for any other (a backend runtime's own threads, as OpenVINO's,
    hand work on between them: 2 s with none of them running and no CPU used, its
    children's included, is still nothing at work). The timeout stays the backstop."""
    from harness.run.worker import async_threads, synchronous
    if synchronous(sc) or async_threads(sc):
        return SYNC_QUIET
    return QUIET


def _wait(w, sc: Scenario, out: str, expect: Expect, seen: dict) -> str | None:
    """None when the worker ended; else why it is judged hung: its timeout; at once, from
    its start, every thread of it and its children waiting with no time limit and none
    run between two looks (idle.Idle, procfs.blocked()); or _quiet()
    seconds during which it neither ended nor used more than IDLE of a CPU: from its
    checkpoint (taken just before EOF); and QUIET seconds from its start (before EOF too,
    as LibTorch's next frame waiting for a request forever) for a run the case says
    hangs; STUCK seconds from its start for a sweep's run, where the worker never waits
    for a frame longer than 2 s (so longer is a graph stuck inside a call, as a request
    queue waited on that is never filled). A run judged hung leaves what the watch saw in
    `seen` (idle.Idle.seen)."""
    quiet = _quiet(sc, expect)
    t0 = time.monotonic()
    deadline, partial = t0 + sc.timeout, Path(out).with_suffix(".partial.json")
    stuck = Path(out).with_suffix(".stuck")  # the worker's own judgement (eofwatch.watch)
    early = QUIET if expect.hangs(sc) else (STUCK if routes.of(sc.route).stuck_before_eof
                                           else math.inf)  # inf: judged at once only
    idle, looked = Idle(w.pid, early), t0
    while (now := time.monotonic()) < deadline:
        if w.wait(min(TICK, deadline - now)):
            return None
        if stuck.exists():
            return f"killed {time.monotonic() - t0:.1f} s in: {stuck.read_text()}"
        if time.monotonic() - looked < LOOK:
            continue
        looked = time.monotonic()
        if partial.exists() and idle.quiet != quiet:
            idle = Idle(w.pid, quiet)  # from the checkpoint on
        elif idle.hung():
            seen.update({str(p): v for p, v in idle.seen.items()})
            where = "after EOF" if partial.exists() else "before EOF"
            return f"killed {time.monotonic() - t0:.1f} s in: {idle.why()} {where}"
    return f"killed after its {sc.timeout:g} s timeout"


def _hung(sc: Scenario, record: RunRecord, seconds: float, reason: str, exp) -> Result:
    """HANG, unless the expectation says this run hangs: then it is judged on what it
    did before (the checkpoint) and passes or fails like any other."""
    if exp is None or exp.outcome != "HANG":
        return Result(sc, Outcome.HANG, record, seconds=seconds, reason=reason)
    outcome, diffs = _judge(sc, record, exp, hung=True)
    return Result(sc, outcome, replace(record, hung=True), diffs, seconds,
                  reason=f"{reason}, as expected")


def _tail(log: str) -> str:
    try:
        return Path(log).read_text(errors="replace")
    except OSError:
        return ""


def _crash_output(text: str, size: int = 2000) -> str:
    """What a crash's result keeps of the output: from faulthandler's own first line
    ("Fatal Python error: ...") when it is there, since Python 3.13 follows the Python
    stack with the extension modules and a C stack, which push it out of a plain tail."""
    start = text.rfind("Fatal Python error")
    return text[start:start + 2 * size] if start >= 0 else text[-size:]


def _keep(results, r: Result, log: str, out: str, preload, trace=None,
          measured: bool = False) -> Result:
    if results:
        r.record.artifacts = str(artifacts.keep(results, r, _tail(log), _partial(out),
                                                 preload, trace, measured))
    return r


def _env(sc: Scenario, preload: str | None) -> dict:
    # TF_CPP_MIN_LOG_LEVEL: libtensorflow's start-up banner would otherwise reach the log
    env = dict(os.environ, PYTHONPATH=str(PROJECT), TF_CPP_MIN_LOG_LEVEL="1")
    env.pop("LD_PRELOAD", None)
    if preload and sc.injector == "preload":
        env["LD_PRELOAD"] = preload
    return env


def run_one(sc: Scenario, preload: str | None, results=None, pool=None,
            expect: Expect = NOTHING) -> Result:
    """One scenario in a worker of its own (a fork server's child, or a fresh process);
    a CRASH or HANG leaves its artifacts under `results` when given."""
    env = _env(sc, preload)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ffdnn-worker-") as tmp, reaper.temporary(tmp):
        out, log = os.path.join(tmp, "result.json"), os.path.join(tmp, "output.txt")
        w = (pool or forkclient.DEFAULT).start(sc, env, out, log)
        seen = {}
        hung = _wait(w, sc, out, expect, seen)
        if hung:
            trace = None
            if results and not expect.hangs(sc):  # before the kill; a hang the case names is known
                trace = artifacts.backtrace(w.pid)
            w.kill()
            record = replace(_partial(out), output=_tail(log)[-2000:], pid=w.pid,
                             worker=w.how, watch=seen or None)
            r = _hung(sc, record, time.monotonic() - t0, hung, expect.lookup(sc))
            return _keep(results, r, log, out, preload, trace, expect.lookup(sc) is None)
        w.kill()  # nothing of the worker's may outlive it
        seconds = time.monotonic() - t0
        tail = _tail(log)[-2000:]
        if w.returncode is None:
            return Result(sc, Outcome.ERROR, RunRecord(output=tail, pid=w.pid, worker=w.how),
                          seconds=seconds, reason=w.error)
        if w.returncode < 0:
            name = signal.Signals(-w.returncode).name
            record = replace(_partial(out), output=_crash_output(_tail(log)), pid=w.pid,
                             worker=w.how)
            r = Result(sc, Outcome.CRASH, record, seconds=seconds,
                       reason=f"worker died on {name}")
            return _keep(results, r, log, out, preload, measured=expect.lookup(sc) is None)
        try:
            record = RunRecord.from_dict(json.loads(Path(out).read_text()))
        except (OSError, ValueError):
            return Result(sc, Outcome.ERROR, RunRecord(output=tail, pid=w.pid, worker=w.how),
                          seconds=seconds,
                          reason=f"worker exited {w.returncode} without a result: "
                                 f"{(tail.strip().splitlines() or ['no output'])[-1]}")
    record.pid, record.worker = w.pid, w.how
    if record.error is not None:
        return Result(sc, Outcome.ERROR, record, seconds=seconds, reason=record.error)
    outcome, diffs = _judge(sc, record, expect.lookup(sc))
    return Result(sc, outcome, record, diffs, seconds)


def progress(r: Result) -> None:
    """One line on stderr as each run ends: its outcome, id and seconds."""
    print(f"{r.outcome.value:8} {r.scenario.id} ({r.seconds:.2f} s)", file=sys.stderr,
          flush=True)


@contextlib.contextmanager
def servers(pool=None):
    """The fork servers of a batch of runs (harness/run/forkclient.py): `pool`, left
    running, or a Pool of the batch's own, shut down at its end."""
    own, pool = pool is None, pool or forkclient.Pool()
    try:
        yield pool
    finally:
        if own:
            pool.close()


def run(scenarios: list, preload: str | None, jobs: int = 1, progress=None,
        results=None, expect: Expect = NOTHING, pool=None) -> list:
    """Run every scenario (jobs at a time) with fork servers of its own, shut down at
    the end (or those of `pool`, left running); results in the scenarios' order."""
    def one(sc):
        r = run_one(sc, preload, results, servers_, expect)
        if progress:
            progress(r)
        return r
    with servers(pool) as servers_:
        for sc in scenarios:  # every server imports its module at once, in parallel
            servers_.server(sc, _env(sc, preload))
        pool_threads = ThreadPoolExecutor(max_workers=max(1, jobs))
        try:
            return list(pool_threads.map(one, scenarios))
        except BaseException:  # interrupted: no scenario that has not started starts
            pool_threads.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            pool_threads.shutdown(wait=True)
