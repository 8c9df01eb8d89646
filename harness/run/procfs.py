"""What the kernel says of a process, read from /proc: its CPU seconds, its threads and
their states, the processes below it, and whether every thread of them is asleep in a wait
only they can end (blocked). The readers harness/run/idle.py judges a hang by."""

import math
import os
import platform
import struct
import time
from pathlib import Path

PROC = Path("/proc")  # what the kernel says of each process (tests/engine/test_idle.py: readings)
DELAY = "ffdnn-delay"  # a thread's name while it sleeps an injected delay (FI_DELAY_NAME,
                       # injectors/fi_window.h)
# the calls a thread waits in for what only a thread or child of its own can give, by their
# numbers on each architecture (the kernel's syscall tables): futex() and futex_waitv()
# (pthread_join, pthread_cond_wait, sem_wait), wait4() and waitid() (a child's end)
CALLS = {"x86_64": {"futex": 202, "futex_waitv": 449, "wait4": 61, "waitid": 247},
         "aarch64": {"futex": 98, "futex_waitv": 449, "wait4": 260, "waitid": 95}}
ARCH = platform.machine()
# futex() operations that wait, each with its timeout (NULL: none) in the 4th argument:
# FUTEX_WAIT, FUTEX_LOCK_PI, FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI, FUTEX_LOCK_PI2; all
# but FUTEX_WAIT's are a deadline (LOCK_PI's on CLOCK_REALTIME, the others' on the clock
# the FUTEX_CLOCK_REALTIME flag names), FUTEX_WAIT's a length from a start no look sees
FUTEX_WAITS = {0, 6, 9, 11, 13}
FUTEX_DEADLINES = {6, 9, 11, 13}
FUTEX_FLAGS = 0x180  # FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME, beside the operation
FUTEX_CLOCK_REALTIME = 0x100


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
    seen = threads(pid) or ()
    return any(state in ("R", "D") for _, state in seen) or _sleeps_delay(seen)


def delaying(pid: int) -> bool:
    """Whether a thread of the process sleeps a delay the injector was asked for (named
    DELAY)."""
    return _sleeps_delay(threads(pid) or ())


def _sleeps_delay(seen) -> bool:
    """Whether one of these (name, state) threads is the injector's delay (DELAY)."""
    return any(comm == DELAY for comm, _ in seen)


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


def waits_for_good(line: str) -> tuple | None:
    """The wait a thread is in, from its /proc/PID/task/TID/syscall line ("NR ARG1 .. ARG6
    SP PC", "running", or "-1 SP PC" outside a call), when only a thread or child of its
    own ends it, or a deadline: (the call, its deadline's clock, "realtime" or "monotonic",
    and its address; None and 0: no deadline). A futex wait, a wait for a child. None for
    any other: a sleep, a wait of a length (FUTEX_WAIT's timeout), a read or a poll, whose
    end may come from outside the process."""
    f = line.split()
    if len(f) != 9 or not f[0].isdigit():
        return None
    nr, args = int(f[0]), [int(a, 16) for a in f[1:7]]
    calls = CALLS.get(ARCH, {})
    if nr == calls.get("futex"):
        op = args[1] & ~FUTEX_FLAGS
        if op not in FUTEX_WAITS or (args[3] and op not in FUTEX_DEADLINES):
            return None
        realtime = op == 6 or args[1] & FUTEX_CLOCK_REALTIME
        return ("futex", None, 0) if not args[3] else \
            ("futex", "realtime" if realtime else "monotonic", args[3])
    if nr == calls.get("futex_waitv"):  # its clock: CLOCK_REALTIME (0) or CLOCK_MONOTONIC
        return ("futex_waitv", None, 0) if not args[3] else \
            ("futex_waitv", "monotonic" if args[4] else "realtime", args[3])
    return next(((name, None, 0) for name in ("wait4", "waitid") if nr == calls.get(name)),
                None)


def ends_in(pid: int, clock: str, address: int) -> float | None:
    """Seconds until the deadline (a struct timespec at `address` in the process's memory,
    on `clock`) a thread waits for; None when it cannot be read."""
    try:
        with open(PROC / str(pid) / "mem", "rb") as mem:
            mem.seek(address)
            sec, nsec = struct.unpack("=qq", mem.read(16))
    except (OSError, ValueError, struct.error):
        return None
    return sec + nsec / 1e9 - (time.time() if clock == "realtime" else time.monotonic())


def _thread(pid: int, task: Path, beyond: float) -> tuple | None:
    """A thread as the look sees it: (state, its wait, the CPU ticks it used, its context
    switches), None when it is not asleep in a wait only its own threads and children end,
    or one whose deadline comes within `beyond` seconds, or it cannot be read; a thread
    that has exited (Z) is ("Z", ...)."""
    try:
        state, *fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        if state == "Z":
            return ("Z", "", 0, 0)
        if state != "S":
            return None
        wait = waits_for_good((task / "syscall").read_text())
        status = (task / "status").read_text().splitlines()
    except (OSError, IndexError, ValueError):
        return None
    if wait is None:
        return None
    call, clock, address = wait
    if clock is not None:
        left = ends_in(pid, clock, address)
        if left is None or left <= beyond:
            return None
        call += " with a deadline"
    switches = sum(int(v) for k, _, v in (l.partition(":") for l in status)
                   if k.endswith("ctxt_switches"))
    return (state, call, int(fields[10]) + int(fields[11]), switches)


def blocked(pid: int, beyond: float = math.inf) -> dict | None:
    """Every thread of the process and of every process below it, by (pid, tid), when each
    is asleep in a wait only their own threads and children end (waits_for_good), or one
    whose deadline is more than `beyond` seconds away, or has exited; None as soon as one
    is not, or when no thread of the process itself is left. Two equal looks mean no
    thread ran between them: one that ran has switched since, or is running."""
    out = {}
    if not _own(pid, out, beyond):  # the process's own threads first: most looks end there
        return None
    if not all(_own(p, out, beyond) for p in family(pid)[1:]):
        return None
    return out if any(k[0] == pid and v[0] != "Z" for k, v in out.items()) else None


def others_blocked(pid: int, skip: set, beyond: float = math.inf) -> dict | None:
    """blocked() for the threads of the process but those in `skip` (thread ids: the
    thread asking, which polls for what the others would give): each of the others asleep
    in a wait only the process's own threads end, by (pid, tid); None as soon as one is
    not, or when no other thread is left. Two equal looks around a poll of the skipped
    thread mean the poll woke none of them, nor did anything else."""
    out = {}
    if not _own(pid, out, beyond, skip):
        return None
    return out if any(v[0] != "Z" for v in out.values()) else None


def _own(pid: int, out: dict, beyond: float, skip: set = frozenset()) -> bool:
    """Reads the threads of one process (but those in `skip`) into `out`; False when one
    is not blocked, or the process has a timer set (/proc/PID/timers: its signal may end
    a wait) or cannot be read."""
    try:
        tasks = [t for t in os.listdir(PROC / str(pid) / "task") if int(t) not in skip]
        if (PROC / str(pid) / "timers").read_text().strip():
            return False
    except OSError:
        return False
    for t in tasks:
        seen = _thread(pid, PROC / str(pid) / "task" / t, beyond)
        if seen is None:
            return False
        out[(pid, int(t))] = seen
    return True
