"""Run scenarios, each in a worker process of its own, and judge them.

A worker runs in its own process group with the injector preloaded only there;
a timeout kills the whole group (SIGTERM, then SIGKILL) and becomes HANG, a
signal becomes CRASH, and the rest of the matrix goes on.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import expected
from .outcome import Outcome, judge
from .paths import PROJECT
from .scenario import Scenario


@dataclass
class Result:
    scenario: Scenario
    outcome: Outcome
    data: dict = field(default_factory=dict)
    diffs: list = field(default_factory=list)
    seconds: float = 0.0
    reason: str = ""

    def to_dict(self) -> dict:
        return {"id": self.scenario.id, "outcome": self.outcome.value, "reason": self.reason,
                "diffs": self.diffs, "seconds": round(self.seconds, 3),
                "expect": self.scenario.expected_build, "fault": self.scenario.fault.spec,
                "result": self.data}


def _kill_group(p: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _partial(out: str) -> dict:
    """What the worker checkpointed before the EOF phase, if it got that far."""
    try:
        return json.loads(Path(out).with_suffix(".partial.json").read_text())
    except (OSError, ValueError):
        return {}


def _expectation(sc: Scenario):
    return expected.lookup(sc.expected_build, sc.fault, sc.backend, sc.filter, sc.route)


def _hung(sc: Scenario, data: dict, seconds: float) -> Result:
    """HANG, unless the table says this run hangs: then it is judged on what it did
    before (the checkpoint) and passes or fails like any other."""
    reason = f"killed after its {sc.timeout:g} s timeout"
    exp = _expectation(sc)
    if exp is None or exp.outcome != "HANG":
        return Result(sc, Outcome.HANG, data, seconds=seconds, reason=reason)
    outcome, diffs = judge(data, exp, hung=True)
    return Result(sc, outcome, {**data, "hung": True}, diffs, seconds,
                  reason=f"{reason}, as expected")


def run_one(sc: Scenario, preload: str | None) -> Result:
    # TF_CPP_MIN_LOG_LEVEL: libtensorflow's start-up banner would otherwise reach the log
    env = dict(os.environ, PYTHONPATH=str(PROJECT), TF_CPP_MIN_LOG_LEVEL="1")
    env.pop("LD_PRELOAD", None)
    if preload and sc.injector == "preload":
        env["LD_PRELOAD"] = preload
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ffdnn-worker-") as tmp:
        out = os.path.join(tmp, "result.json")
        with subprocess.Popen([sys.executable, "-m", "harness.worker", "--out", out],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=env, text=True,
                              start_new_session=True) as p:
            try:
                output, _ = p.communicate(sc.to_json(), timeout=sc.timeout)
            except subprocess.TimeoutExpired:
                _kill_group(p)
                output, _ = p.communicate()
                data = {**_partial(out), "output": output[-2000:], "pid": p.pid}
                return _hung(sc, data, time.monotonic() - t0)
        _kill_group(p)  # nothing of the worker's may outlive it
        seconds = time.monotonic() - t0
        tail = output[-2000:]
        if p.returncode < 0:
            name = signal.Signals(-p.returncode).name
            return Result(sc, Outcome.CRASH, {**_partial(out), "output": tail, "pid": p.pid},
                          seconds=seconds, reason=f"worker died on {name}")
        try:
            data = json.loads(Path(out).read_text())
        except (OSError, ValueError):
            return Result(sc, Outcome.ERROR, {"output": tail}, seconds=seconds,
                          reason=f"worker exited {p.returncode} without a result: "
                                 f"{(tail.strip().splitlines() or ['no output'])[-1]}")
    if "error" in data:
        return Result(sc, Outcome.ERROR, data, seconds=seconds, reason=data["error"])
    outcome, diffs = judge(data, _expectation(sc))
    return Result(sc, outcome, data, diffs, seconds)


def run(scenarios: list, preload: str | None, jobs: int = 1, progress=None) -> list:
    """Run every scenario (jobs at a time); results in the scenarios' order."""
    def one(sc):
        r = run_one(sc, preload)
        if progress:
            progress(r)
        return r
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, scenarios))
