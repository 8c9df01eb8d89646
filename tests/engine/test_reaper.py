"""harness/reaper.py on its own, with real processes and signals: a process that
started a group (reaper.spawn: in a session of its own, as workers and builds are) and a
temporary directory, then is ended by SIGTERM or SIGKILL, leaves neither behind."""

import os
import signal
import subprocess
import sys
import time

import pytest

from harness import reaper
from harness.paths import PROJECT

CHILD = r"""
import subprocess, sys, tempfile, time
from harness import reaper
with reaper.installed():
    p = reaper.spawn(["sleep", "300"])
    tmp = tempfile.mkdtemp(prefix=".tmp-entry.pid0-", dir=sys.argv[1])
    reaper.add_dir(tmp)
    open(tmp + "/half-written", "w").write("x")
    print(p.pid, flush=True)
    time.sleep(300)
"""


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.unit
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL],
                         ids=["TERM", "INT", "KILL"])
def test_what_a_killed_command_started_ends_with_it(tmp_path, sig):
    with subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], cwd=PROJECT,
                          stdout=subprocess.PIPE, text=True,
                          env={**os.environ, "PYTHONPATH": str(PROJECT)}) as p:
        sleeper = int(p.stdout.readline())
        assert not gone(sleeper) and len(list(tmp_path.iterdir())) == 1
        p.send_signal(sig)
        p.wait(30)
    deadline = time.monotonic() + 10
    while (not gone(sleeper) or list(tmp_path.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gone(sleeper), "the group it started outlived it"
    assert list(tmp_path.iterdir()) == [], "its temporary directory outlived it"


@pytest.mark.unit
def test_a_spawned_group_is_killed_on_an_exception_and_dropped():
    """spawn()'s with block: an exception in it kills the whole group (the grandchild too)
    before it propagates; the group is registered while it runs and dropped once it ended;
    reaped=False registers nothing."""
    with pytest.raises(KeyError):
        with reaper.spawn(["sh", "-c", "sleep 300 & echo $!; wait"], stdout=subprocess.PIPE,
                          text=True) as p:
            grandchild = int(p.stdout.readline())
            assert p.pid in reaper._groups and not gone(grandchild)
            raise KeyError
    assert p.returncode == -signal.SIGKILL and p.pid not in reaper._groups
    deadline = time.monotonic() + 10
    while not gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(grandchild), "the group outlived the exception"
    with reaper.spawn(["true"], reaped=False) as q:
        assert q.pid not in reaper._groups
    assert q.returncode == 0
