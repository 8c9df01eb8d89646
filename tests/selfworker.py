"""Workers that fail on purpose, for the runner's own containment tests: a scenario
names one as its `entry` in place of harness.run.worker.run."""

import dataclasses
import os
import signal
import time


def crash(sc, checkpoint):
    os.kill(os.getpid(), signal.SIGSEGV)


def hang(sc, checkpoint):
    time.sleep(3600)


def failing(scs, how: str) -> list:
    """The scenarios with a worker that crashes ("crash") or hangs ("hang")."""
    return [dataclasses.replace(sc, entry=f"tests.selfworker:{how}") for sc in scs]


def facts_read(sc, checkpoint):
    """Whether this child read its tree's facts itself (a miss of probe.facts's cache)
    to tell if the sweep's frames run on the caller's thread: in its log, "read" or
    "inherited"."""
    from harness.obtain import probe
    from harness.run import frames
    from harness.run.record import RunRecord
    misses = probe.facts.cache_info().misses
    frames.synchronous(sc)
    return RunRecord(log="read" if probe.facts.cache_info().misses > misses else "inherited")
