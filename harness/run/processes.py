"""A running worker, as the runner sees it: pid (also its process group), wait(seconds),
returncode, kill() (the group: SIGTERM, then SIGKILL). Fresh: a new interpreter
(python -m harness.run.worker); Forked: a fork server's child (harness/run/forkclient.py)."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from harness import reaper

QUIET = 2.0   # seconds a process that should have ended must sit idle to be judged hung
SYNC_QUIET = 0.5  # the same where tasks run only on the caller's thread or on threads FFmpeg starts
IDLE = 0.05   # of one CPU: what "idle" may use (a loop that polls with a sleep)
PROC = Path("/proc")  # what the kernel says of each process (tests/engine/test_idle.py: readings)
DELAY = "ffdnn-delay"  # a thread's name while it sleeps an injected delay (FI_DELAY_NAME,
                       # injectors/fi_window.h)


def cpu_seconds(pid: int) -> float:
    """CPU seconds the process (all its threads) and the children it has waited for have
    used; 0 once it is gone."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def threads(pid: int) -> list | None:
    """(command, state) of each thread of the process, None when it is gone; a thread gone
    or cut short between the reads is left out. The command is read up to the line's last
    ')' (a command may hold one)."""
    try:
        tasks = os.listdir(PROC / str(pid) / "task")
    except OSError:
        return None
    out = []
    for t in tasks:
        try:
            comm, rest = (PROC / str(pid) / "task" / t / "stat").read_text() \
                .split("(", 1)[1].rsplit(")", 1)
            out.append((comm, rest.split()[0]))
        except (OSError, IndexError, ValueError):
            continue
    return out


def waiting(pid: int) -> bool:
    """Whether a thread of the process is running or waiting for a CPU (R), in
    uninterruptible I/O (D, as while its libraries are read from disk), or sleeping a
    delay the injector was asked for (named DELAY: a run made slow on purpose is at
    work, not hung)."""
    return any(state in ("R", "D") or comm == DELAY for comm, state in threads(pid) or ())


def ended(pid: int) -> bool:
    """Whether the process has exited: gone from /proc, or a zombie its parent has not
    waited for yet (every thread of it Z: a main thread that left its others running is
    not an end)."""
    return all(state == "Z" for _, state in threads(pid) or ())


def family(pid: int) -> list:
    """The process and every process below it (a worker's addr2line or gdb), from each
    process's parent in /proc/PID/stat."""
    parent = {}
    for entry in os.listdir(PROC):
        if entry.isdigit():
            try:
                parent[int(entry)] = int(
                    (PROC / entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += [c for c, pp in parent.items() if pp == p and c not in out]
    return out


class Idle:
    """Watches a process that should have ended by now: hung() is true once it and every
    process it started (addr2line naming the stacks after EOF, say) have used no more than
    IDLE of a CPU for QUIET seconds on end and no thread of them is running, waiting for
    a CPU or reading a disk (a loop that waits for what never comes, polling with a sleep,
    as FFmpeg's flush loops do). Work restarts the watch: a process at work, or waiting
    for a child at work, is not judged, however long it takes; a process that has exited
    (its runner not yet told) is never hung. Once hung, `seen` says what the last look
    found: each process's CPU seconds since the look before and its threads' states."""

    def __init__(self, pid: int, quiet: float = QUIET):
        self.pid, self.quiet, self.seen = pid, quiet, {}
        self.since, self.cpu = time.monotonic(), self._cpu()

    def _cpu(self) -> dict:
        return {p: cpu_seconds(p) for p in family(self.pid)}

    def hung(self) -> bool:
        now = time.monotonic()
        if now - self.since < self.quiet:
            return False
        if ended(self.pid):  # it ended between the runner's wait and this look: not hung
            return False
        cpu = self._cpu()
        used = {p: c - self.cpu.get(p, 0.0) for p, c in cpu.items()}
        if sum(used.values()) <= IDLE * (now - self.since) and not any(waiting(p) for p in cpu):
            self.seen = {p: {"cpu": u, "threads": "".join(state for _, state in threads(p) or ())}
                         for p, u in used.items()}
            return True
        self.since, self.cpu = now, cpu  # still working: watch on
        return False

    def idle_for(self) -> float:
        return time.monotonic() - self.since


class Worker:
    how, pid, error = "fresh", None, ""

    def wait(self, seconds) -> bool:
        raise NotImplementedError

    def kill(self) -> None:
        try:
            self._kill()
        finally:
            if self.pid is not None:
                reaper.drop_group(self.pid)

    def _kill(self) -> None:
        for sig, seconds in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                if self.wait(0):
                    return
                try:  # forked, but not yet in a group of its own (setsid)
                    os.kill(self.pid, sig)
                except ProcessLookupError:
                    return
            if self.wait(seconds):
                return


class Fresh(Worker):
    def __init__(self, scenario: str, env: dict, out: str, log: str, why: str = ""):
        with open(log, "wb") as f:
            self.p = subprocess.Popen([sys.executable, "-m", "harness.run.worker", "--out", out],
                                      stdin=subprocess.PIPE, stdout=f, stderr=subprocess.STDOUT,
                                      env=env, start_new_session=True)
        self.pid, self.how = self.p.pid, f"fresh ({why})" if why else "fresh"
        reaper.add_group(self.pid)  # ended with the command, even when it is killed
        try:
            self.p.stdin.write(scenario.encode())
            self.p.stdin.close()
        except BrokenPipeError:
            pass

    def wait(self, seconds) -> bool:
        try:
            self.p.wait(seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    @property
    def returncode(self):
        return self.p.returncode


class Forked(Worker):
    how = "fork server"

    def __init__(self):
        self.started, self.done, self.status = threading.Event(), threading.Event(), None

    def wait(self, seconds) -> bool:
        return self.done.wait(seconds)

    @property
    def returncode(self):
        return None if self.status is None else os.waitstatus_to_exitcode(self.status)
