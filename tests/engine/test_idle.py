"""When a run is judged hung (harness/run/idle.py Idle.hung; harness/run/procfs.py cpu_seconds,
waiting, family): on /proc-like readings (a tree of stat files under procfs.PROC, each line a real
/proc/PID/stat line with its state, parent and CPU ticks set) and a clock the test moves, so
each rule of the judgement is checked on its own in no time; then once on real processes.
The rule (Idle's docstring): hung once the process and every process below it used no more
than IDLE of a CPU for `quiet` seconds on end and none of their threads is running, waiting
for a CPU or reading a disk."""

import os
import signal
import struct
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from harness.run import idle, procfs
from harness.run.idle import IDLE, Idle

pytestmark = pytest.mark.unit

# a real /proc/PID/stat line (a python worker), fields after the command: state, ppid, ...,
# utime (11), stime (12), cutime (13), cstime (14), priority (15)
REAL = ("26015 (python) R 26013 26013 12516 0 -1 4194304 1346 0 1 0 1 0 0 0 20 0 1 0 1346532 "
        "14327808 2662 18446744073709551615 94858861498368 94858861498709 140733441569024 0 0 "
        "0 0 16781312 2 0 0 0 17 1 0 0 0 0 0 94858861510064 94858861510680 94858915094528 "
        "140733441575604 140733441575662 140733441575662 140733441576935 0")
TCK = os.sysconf("SC_CLK_TCK")
REALTIME = 1.7e9  # CLOCK_REALTIME less CLOCK_MONOTONIC, for the clock the tests move


def stat(pid, ppid, state="S", ticks=(0, 0, 0, 0), comm="python", before=0):
    """REAL with its pid, command, state, parent and CPU ticks (utime, stime, cutime,
    cstime) set; `before`: cmajflt, the field just before utime."""
    _, rest = REAL.split(" (", 1)
    fields = rest.rsplit(") ", 1)[1].split()
    fields[0], fields[1], fields[10] = state, str(ppid), str(before)
    fields[11:15] = [str(t) for t in ticks]
    return f"{pid} ({comm}) " + " ".join(fields) + "\n"


class Proc:
    """A /proc-like tree: processes, their threads, their CPU ticks."""

    def __init__(self, root):
        self.root = root
        (root / "self").mkdir(parents=True)   # as /proc has: entries that are no process
        (root / "meminfo").write_text("MemTotal: 1 kB\n")

    def put(self, pid, ppid=1, state="S", ticks=(0, 0, 0, 0), threads=(), comm="python"):
        """Process `pid` (its main thread in `state`) and its other threads' states; no
        timer set."""
        d = self.root / str(pid)
        (d / "task").mkdir(parents=True, exist_ok=True)
        (d / "stat").write_text(stat(pid, ppid, state, ticks, comm))
        (d / "timers").write_text("")
        for tid, st in [(pid, state), *threads]:
            (d / "task" / str(tid)).mkdir(exist_ok=True)
            (d / "task" / str(tid) / "stat").write_text(stat(tid, ppid, st, ticks, comm))

    def call(self, pid, tid, line, switches=(40, 2)):
        """Thread `tid` of `pid` in the call `line` (its /proc syscall line), having switched
        (voluntary, involuntary) times."""
        task = self.root / str(pid) / "task" / str(tid)
        (task / "syscall").write_text(line + "\n")
        (task / "status").write_text(f"Name:\tpython\nState:\tS (sleeping)\n"
                                     f"voluntary_ctxt_switches:\t{switches[0]}\n"
                                     f"nonvoluntary_ctxt_switches:\t{switches[1]}\n")

    def deadline(self, pid, address, at):
        """A struct timespec of `at` seconds at `address` of the process's memory."""
        with open(self.root / str(pid) / "mem", "ab") as mem:
            mem.truncate(address)
            mem.write(struct.pack("=qq", int(at), round(at % 1 * 1e9)) + b"\xff" * 8)

    def gone(self, pid):
        for p in sorted((self.root / str(pid)).rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        (self.root / str(pid)).rmdir()


@pytest.fixture
def proc(tmp_path, monkeypatch):
    p = Proc(tmp_path / "proc")
    monkeypatch.setattr(procfs, "PROC", p.root)
    return p


@pytest.fixture
def clock(monkeypatch):
    """The clock of the watch and of the /proc readers, moved by the test: clock.t = seconds."""
    c = SimpleNamespace(t=100.0)
    moved = SimpleNamespace(monotonic=lambda: c.t, time=lambda: c.t + REALTIME)
    monkeypatch.setattr(idle, "time", moved)
    monkeypatch.setattr(procfs, "time", moved)
    return c


def test_reading_cpu(proc):
    """utime + stime + cutime + cstime (the children waited for count), in seconds; the
    fields around them do not; a command with ') ' in it is read from its last ')'."""
    proc.put(10, ticks=(1 * TCK, 2 * TCK, 4 * TCK, 8 * TCK))
    assert procfs.cpu_seconds(10) == 15
    (proc.root / "11").mkdir()
    (proc.root / "11" / "stat").write_text(stat(11, 1, "S", (TCK, 0, 0, 0),
                                                comm="ffdnn (a) b", before=7 * TCK))
    assert procfs.cpu_seconds(11) == 1
    assert procfs.cpu_seconds(12) == 0.0        # gone
    (proc.root / "13").mkdir()
    (proc.root / "13" / "stat").write_text("13 (zombie")   # cut short
    assert procfs.cpu_seconds(13) == 0.0


@pytest.mark.parametrize("states, want", [
    (("S",), False), (("R",), True), (("D",), True), (("S", "S", "S"), False),
    (("S", "R"), True), (("S", "S", "D"), True), (("Z",), False), (("T", "S"), False),
])
def test_a_thread_waiting(proc, states, want):
    """Running or waiting for a CPU (R) or in uninterruptible I/O (D), any thread."""
    proc.put(20, state=states[0], threads=[(21 + i, s) for i, s in enumerate(states[1:])])
    assert procfs.waiting(20) is want


def test_a_thread_whose_command_has_a_parenthesis(proc):
    proc.put(25, state="S", threads=[(26, "R")], comm="ffdnn (a) S 1")
    assert procfs.waiting(25) is True
    proc.put(25, state="S", threads=[(26, "S")], comm="ffdnn (a) R 1")
    assert procfs.waiting(25) is False


def test_waiting_of_a_process_gone_or_a_thread_cut_short(proc):
    assert procfs.waiting(29) is False
    proc.put(20, threads=[(21, "S")])
    (proc.root / "20" / "task" / "21" / "stat").write_text("21 (x")
    (proc.root / "20" / "task" / "22").mkdir()    # a thread gone between the two reads
    assert procfs.waiting(20) is False
    proc.put(20, threads=[(21, "R")])
    (proc.root / "20" / "task" / "23").mkdir()
    assert procfs.waiting(20) is True


def test_family(proc):
    """The process and every process below it, children and grandchildren, and none other."""
    proc.put(30)
    proc.put(31, ppid=30)
    proc.put(32, ppid=31)
    proc.put(33, ppid=1)
    proc.put(34, ppid=32)
    (proc.root / "35").mkdir()     # gone while listed
    (proc.root / "36").mkdir()
    (proc.root / "36" / "stat").write_text("36 (x) S notanumber\n")
    proc.put(37, ppid=32, comm="ffdnn (a) S 1")   # a command with ') ' in it
    assert sorted(procfs.family(30)) == [30, 31, 32, 34, 37]
    assert sorted(procfs.family(31)) == [31, 32, 34, 37]
    assert procfs.family(34) == [34]
    assert procfs.family(99) == [99]


def test_family_lists_each_once(proc):
    proc.put(40)
    proc.put(41, ppid=40)
    proc.put(42, ppid=40)
    assert sorted(procfs.family(40)) == [40, 41, 42]


def _idle(proc, clock, quiet=2.0):
    proc.put(50, ticks=(100, 10, 0, 0))
    return Idle(50, quiet)


def test_an_idle_process_is_hung_once_quiet_long_enough(proc, clock):
    w = _idle(proc, clock)
    clock.t += 1.99
    assert not w.hung()          # not yet: too soon to tell
    assert w.idle_for() == pytest.approx(1.99)
    clock.t += 0.01
    assert w.hung()


def test_work_restarts_the_watch(proc, clock):
    w = _idle(proc, clock)
    clock.t += 2.0
    proc.put(50, ticks=(100 + TCK, 10, 0, 0))   # a second of CPU in those 2 s
    assert not w.hung()
    assert w.idle_for() == 0.0
    clock.t += 1.0
    assert not w.hung()            # idle again, but only for a second
    clock.t += 1.0
    assert w.hung()


def test_a_poll_loop_is_idle(proc, clock):
    """A loop that polls with a sleep uses a little CPU: at most IDLE of one."""
    w = _idle(proc, clock, quiet=4.0)
    clock.t += 4.0
    proc.put(50, ticks=(100 + int(IDLE * TCK), 10, 0, 0))   # IDLE s of CPU in 4 s
    assert w.hung()


def test_exactly_idle_is_idle(proc, clock):
    """At most IDLE of a CPU: exactly IDLE is still idle."""
    ticks = round(IDLE * 2.0 * TCK)
    if ticks / TCK != IDLE * 2.0:
        pytest.skip(f"IDLE * 2 s is no whole number of ticks at {TCK} ticks a second")
    proc.put(50)
    w = Idle(50, 2.0)
    clock.t += 2.0
    proc.put(50, ticks=(ticks, 0, 0, 0))
    assert w.hung()


def test_a_thread_at_work_is_not_hung(proc, clock):
    """No CPU used, yet a thread is running or waiting for a CPU (a loaded machine) or
    reading a disk: at work, not hung (the "no thread waiting" guard)."""
    w = _idle(proc, clock)
    clock.t += 2.0
    proc.put(50, ticks=(100, 10, 0, 0), threads=[(51, "R")])
    assert not w.hung()
    clock.t += 2.0
    proc.put(50, ticks=(100, 10, 0, 0), threads=[(51, "D")])
    assert not w.hung()
    clock.t += 2.0
    proc.put(50, ticks=(100, 10, 0, 0), threads=[(51, "S")])
    assert w.hung()


def test_a_child_at_work_counts(proc, clock):
    """A worker that waits for its child (addr2line after EOF): the child's CPU and its
    running thread are the worker's work."""
    proc.put(50, ticks=(100, 10, 0, 0))
    proc.put(60, ppid=50, ticks=(0, 0, 0, 0))
    proc.put(70, ppid=60, ticks=(0, 0, 0, 0))
    w = Idle(50)
    clock.t += 2.0
    proc.put(70, ppid=60, ticks=(TCK, 0, 0, 0))    # the grandchild used a second
    assert not w.hung()
    clock.t += 2.0
    proc.put(70, ppid=60, state="R", ticks=(TCK, 0, 0, 0))   # no CPU, but running
    assert not w.hung()
    clock.t += 2.0
    proc.put(70, ppid=60, ticks=(TCK, 0, 0, 0))
    assert w.hung()


def test_a_child_started_while_watched_counts(proc, clock):
    """A child that was not there at the last look: all its CPU is new work."""
    w = _idle(proc, clock)
    clock.t += 2.0
    proc.put(61, ppid=50, ticks=(TCK // 2, 0, 0, 0))
    assert not w.hung()
    clock.t += 2.0
    assert w.hung()


def test_a_hang_says_what_was_seen(proc, clock):
    """Once hung, the watch keeps its last look: each process's CPU seconds since the look
    before (work restarted the watch at the first) and its threads' states."""
    w = _idle(proc, clock)
    proc.put(61, ppid=50, ticks=(TCK, 0, 0, 0), threads=[(62, "S")])
    clock.t += 2.0
    assert not w.hung()           # the child's second of CPU: at work
    proc.put(61, ppid=50, ticks=(TCK, 0, 0, 1), threads=[(62, "S")])
    proc.put(63, ppid=61, ticks=(1, 0, 0, 0), state="Z")  # new since: all its CPU is new
    clock.t += 2.0
    assert w.hung() and w.seen == {50: {"cpu": 0.0, "threads": "S"},
                                   61: {"cpu": pytest.approx(1 / TCK), "threads": "SS"},
                                   63: {"cpu": pytest.approx(1 / TCK), "threads": "Z"}}


def test_a_child_waited_for_counts(proc, clock):
    """A child that ended and was waited for: its CPU moves to the worker's cutime/cstime."""
    w = _idle(proc, clock)
    clock.t += 2.0
    proc.put(50, ticks=(100, 10, 0, TCK))
    assert not w.hung()


def test_a_child_that_ended_takes_its_cpu_along(proc, clock):
    """A child gone without being waited for: its CPU was counted while it ran; its going
    is not work (nor negative work hiding the worker's own)."""
    proc.put(50, ticks=(100, 10, 0, 0))
    proc.put(62, ppid=50, ticks=(5 * TCK, 0, 0, 0))
    w = Idle(50)
    clock.t += 2.0
    proc.gone(62)
    assert w.hung()


def test_on_real_processes():
    """Once on the real /proc: a sleeping process is hung once quiet, a busy one is not."""
    sleeper = subprocess.Popen(["sleep", "30"])
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        s, b = Idle(sleeper.pid, 0.3), Idle(busy.pid, 0.3)
        time.sleep(0.35)
        assert s.hung()
        assert not b.hung()
        assert procfs.family(os.getpid())[:1] == [os.getpid()]
        assert sleeper.pid in procfs.family(os.getpid())
    finally:
        for p in (sleeper, busy):
            p.kill()
            p.wait()


@pytest.mark.parametrize("end", ["gone", "zombie"])
def test_a_process_that_ended_is_not_hung(proc, clock, end):
    """The worker exited between the runner's wait and the watch's look (seen: a slow
    addr2line's run judged HANG 1.6 s in, its /proc entry gone): it ended, not hung; a
    main thread that exited while another still runs is no end."""
    w = _idle(proc, clock)
    clock.t += 2.0
    if end == "gone":
        proc.gone(50)
    else:
        proc.put(50, state="Z", ticks=(100, 10, 0, 0))
    assert procfs.ended(50)
    assert not w.hung()
    proc.put(50, state="Z", ticks=(100, 10, 0, 0), threads=[(51, "S")])
    assert not procfs.ended(50)
    assert w.hung(), "idle, and still there"


def test_ended_reads_each_thread(proc):
    """A command with ') Z' in it is read from its last ')'; a thread whose stat is cut
    short (gone between the two reads) does not stop the look at the others."""
    proc.put(60, state="S", comm="ffdnn (a) Z 1")
    assert not procfs.ended(60)
    proc.put(61, state="Z", threads=[(62 + i, "S") for i in range(8)])
    for i in range(7):
        (proc.root / "61" / "task" / str(62 + i) / "stat").write_text(f"{62 + i} (x")
    assert not procfs.ended(61), "thread 69 still runs"
    (proc.root / "61" / "task" / "69" / "stat").write_text("69 (x")
    assert procfs.ended(61)


def test_an_injected_delay_is_at_work(proc, clock):
    """A thread asleep in a delay the injector was asked for (named ffdnn-delay, the spec's
    delay(ms)) is the run doing what it was told: not hung, however idle, and the watch
    starts afresh when the delay ends (a delay that ended between two looks once left the
    quiet window before it counted as idle: a delayed run judged hung 0.1 s after its
    delay); the same thread under another name is hung once `quiet` has passed after."""
    proc.put(70, ticks=(100, 10, 0, 0), threads=[(71, "S")])
    (proc.root / "70" / "task" / "71" / "stat").write_text(
        stat(71, 1, "S", (100, 10, 0, 0), comm=procfs.DELAY))
    assert procfs.waiting(70)
    w = Idle(70, 2.0)
    clock.t += 2.0
    assert not w.hung()
    proc.put(70, ticks=(100, 10, 0, 0), threads=[(71, "S")])
    assert not procfs.waiting(70)
    # a name is read from the line's first '(' on: one that only ends in the delay's
    # name is another thread's
    (proc.root / "70" / "task" / "71" / "stat").write_text(
        stat(71, 1, "S", (100, 10, 0, 0), comm=f"a({procfs.DELAY}"))
    assert not procfs.waiting(70)
    clock.t += 2.0
    assert not w.hung()  # the first look after the delay: the watch starts afresh from it
    clock.t += 2.0
    assert w.hung()


# Judged at once (procfs.blocked, waits_for_good): every thread asleep in a wait no time
# limit ends, nothing run between two looks. The calls by their x86_64 numbers (ARCH set).
X86 = procfs.CALLS["x86_64"]
FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE = 0x80, 0x81


def call(nr, *args):
    """A /proc/PID/task/TID/syscall line: the number, 6 arguments, the stack and pc."""
    args = [*args, *[0] * (6 - len(args))]
    return f"{nr} " + " ".join(hex(a) for a in args) + " 0x7ffd3a2b1c40 0x7f1e2d3c4b5a"


def futex(op=FUTEX_WAIT_PRIVATE, timeout=0):
    return call(X86["futex"], 0x55d0c0de1000, op, 2, timeout)


@pytest.fixture
def x86(monkeypatch):
    monkeypatch.setattr(procfs, "ARCH", "x86_64")


AT = 0x7ffd3a2b1c30  # a timeout's address
FOREVER = ("futex", None, 0)


@pytest.mark.parametrize("line, want", [
    (futex(), FOREVER),                                   # pthread_join, cond_wait, sem_wait
    (futex(0), FOREVER),                                  # FUTEX_WAIT, shared
    (futex(0x189), FOREVER),                              # WAIT_BITSET | PRIVATE | CLOCK_REALTIME
    (futex(0x109), FOREVER),                              # WAIT_BITSET | CLOCK_REALTIME
    (futex(6), FOREVER), (futex(0x86), FOREVER),          # LOCK_PI
    (futex(11), FOREVER), (futex(13), FOREVER),           # WAIT_REQUEUE_PI, LOCK_PI2
    # a deadline: its clock, and where it is
    (futex(0x189, AT), ("futex", "realtime", AT)),        # pthread_cond_timedwait
    (futex(0x89, AT), ("futex", "monotonic", AT)),
    (futex(0x86, AT), ("futex", "realtime", AT)),         # LOCK_PI: CLOCK_REALTIME always
    (futex(0x8d, AT), ("futex", "monotonic", AT)), (futex(0x18d, AT), ("futex", "realtime", AT)),
    (futex(0x8b, AT), ("futex", "monotonic", AT)), (futex(0x10b, AT), ("futex", "realtime", AT)),
    # FUTEX_WAIT's timeout is a length from when the wait began: no deadline a look can read
    (futex(timeout=AT), None), (futex(0x180, AT), None), (futex(0, AT), None),
    (futex(FUTEX_WAKE_PRIVATE), None), (futex(0x8a), None),  # WAKE, WAKE_BITSET
    (futex(0x83), None), (futex(0x8c), None),             # CMP_REQUEUE, UNLOCK_PI: no wait
    (futex(0x200), None),                                 # an operation with an unknown flag
    (call(X86["futex_waitv"], 0x55d0c0de1000, 2, 0, 0), ("futex_waitv", None, 0)),
    (call(X86["futex_waitv"], 0x55d0c0de1000, 2, 0, AT, 1), ("futex_waitv", "monotonic", AT)),
    (call(X86["futex_waitv"], 0x55d0c0de1000, 2, 0, AT, 0), ("futex_waitv", "realtime", AT)),
    (call(X86["wait4"], 0xffffffffffffffff, AT, 0), ("wait4", None, 0)),
    (call(X86["waitid"], 0, 4242, AT, 4), ("waitid", None, 0)),
    (call(230, 1, 0, AT), None),                          # clock_nanosleep: a sleep ends
    (call(7, AT, 1, 0xffffffffffffffff), None),           # poll(-1): its end may come from outside
    (call(0, 0, AT, 4096), None),                         # read: the same
    (call(232, 4, AT, 8, 0xffffffff), None),              # epoll_wait(-1)
    ("running", None), ("-1 0x7ffd3a2b1c40 0x7f1e2d3c4b5a", None),   # at work, or no call
    (futex().rsplit(" ", 1)[0], None), (futex() + " 0x1", None),      # cut short, or not one
    ("", None),
])
def test_a_wait_only_the_process_ends(x86, line, want):
    assert procfs.waits_for_good(line) == want


def test_the_calls_are_the_architectures(monkeypatch):
    """The numbers are the machine's: aarch64's futex is 98, and 202 there is no wait;
    on a machine with no table nothing is judged at once."""
    arm = procfs.CALLS["aarch64"]
    monkeypatch.setattr(procfs, "ARCH", "aarch64")
    assert procfs.waits_for_good(call(arm["futex"], 0x55d0c0de1000, 0x80, 2)) == FOREVER
    assert procfs.waits_for_good(call(arm["wait4"], 0, 0, 0)) == ("wait4", None, 0)
    assert procfs.waits_for_good(call(arm["waitid"], 0, 0, 0)) == ("waitid", None, 0)
    assert procfs.waits_for_good(futex()) is None
    monkeypatch.setattr(procfs, "ARCH", "riscv64")
    assert procfs.waits_for_good(futex()) is None
    assert procfs.waits_for_good(call(X86["wait4"], 0, 0, 0)) is None


def _blocked(proc, pid=80, tids=(81,), ppid=1, switches=(40, 2)):
    """Process `pid` and its threads `tids`, each asleep in a futex wait with no timeout."""
    proc.put(pid, ppid=ppid, ticks=(100, 10, 0, 0), threads=[(t, "S") for t in tids])
    for tid in (pid, *tids):
        proc.call(pid, tid, futex(), switches)


def test_every_thread_blocked(proc, x86):
    """The look: each thread by (pid, tid), with its state, call, CPU ticks and switches."""
    _blocked(proc)
    proc.call(80, 81, call(X86["wait4"], 0, 0, 0), (7, 3))
    assert procfs.blocked(80) == {(80, 80): ("S", "futex", 110, 42),
                                     (80, 81): ("S", "wait4", 110, 10)}


@pytest.mark.parametrize("state", ["R", "D", "T", "t"])
def test_a_thread_not_asleep_is_not_blocked(proc, x86, state):
    """Running or waiting for a CPU, reading a disk, stopped (a debugger): not blocked."""
    _blocked(proc)
    (proc.root / "80" / "task" / "81" / "stat").write_text(stat(81, 1, state, (100, 10, 0, 0)))
    assert procfs.blocked(80) is None


@pytest.mark.parametrize("line", [futex(timeout=0x7ffd3a2b1c30), "running", call(230, 1, 0, 1)])
def test_one_thread_in_a_wait_that_ends_is_not_blocked(proc, x86, line):
    _blocked(proc, tids=(81, 82))
    proc.call(80, 82, line)
    assert procfs.blocked(80) is None
    proc.call(80, 82, futex())
    assert procfs.blocked(80) is not None


@pytest.mark.parametrize("lose", ["syscall", "status", "stat"])
def test_a_thread_that_cannot_be_read_is_not_blocked(proc, x86, lose):
    _blocked(proc)
    (proc.root / "80" / "task" / "81" / lose).unlink()
    assert procfs.blocked(80) is None


def test_a_thread_cut_short_is_not_blocked(proc, x86):
    _blocked(proc)
    (proc.root / "80" / "task" / "81" / "stat").write_text("81 (python")
    assert procfs.blocked(80) is None


@pytest.mark.parametrize("timers", [None, "ID: 0\nsignal: 14/0000000000000000\n"])
def test_a_timer_set_or_unread_is_not_blocked(proc, x86, timers):
    """A timer's signal may end any wait (/proc/PID/timers), and one that cannot be read
    may be set."""
    _blocked(proc)
    path = proc.root / "80" / "timers"
    path.unlink() if timers is None else path.write_text(timers)
    assert procfs.blocked(80) is None


def test_the_others_blocked_leave_the_poller_out(proc, x86):
    """others_blocked(): the threads but those skipped (the one that polls, in a sleep
    no look judges), each in a wait for good; a skipped thread's state does not count,
    an unskipped one's does; nothing left but the skipped is no look; a timer is not."""
    _blocked(proc, tids=(81, 82))
    proc.call(80, 80, call(230, 1, 0, 1))  # the poller sleeps between its pulls
    assert procfs.blocked(80) is None
    assert set(procfs.others_blocked(80, {80})) == {(80, 81), (80, 82)}
    assert procfs.others_blocked(80, {81}) is None, "the poller is not skipped"
    assert procfs.others_blocked(80, {80, 81, 82}) is None, "no other thread"
    proc.call(80, 82, futex(timeout=0x7ffd3a2b1c30))
    assert procfs.others_blocked(80, {80}) is None
    assert set(procfs.others_blocked(80, {80, 82})) == {(80, 81)}
    proc.call(80, 82, futex(0x89, MEM))  # a deadline far off is a wait for good, a near one not
    proc.deadline(80, MEM, time.monotonic() + 60)
    assert procfs.others_blocked(80, {80}, 5.0)[(80, 82)][1] == "futex with a deadline"
    assert procfs.others_blocked(80, {80}, 90.0) is None
    (proc.root / "80" / "timers").write_text("ID: 0\n")
    assert procfs.others_blocked(80, {80, 82}) is None
    (proc.root / "80" / "task" / "81" / "stat").write_text(stat(81, 1, "Z", (1, 0, 0, 0)))
    (proc.root / "80" / "timers").write_text("")
    assert procfs.others_blocked(80, {80, 82}) is None, "only an exited thread left"


def test_a_child_counts(proc, x86):
    """A child at work, or with a thread in a wait that ends, is progress to come; a child
    blocked too is part of the look; a child that has exited (Z) is over."""
    _blocked(proc)
    _blocked(proc, pid=90, tids=(91,), ppid=80)
    proc.call(90, 91, call(230, 1, 0, 1))
    assert procfs.blocked(80) is None
    proc.call(90, 91, futex())
    assert set(procfs.blocked(80)) == {(80, 80), (80, 81), (90, 90), (90, 91)}
    (proc.root / "90" / "timers").write_text("ID: 3\n")
    assert procfs.blocked(80) is None
    (proc.root / "90" / "timers").unlink()
    assert procfs.blocked(80) is None, "a child whose timers cannot be read"
    (proc.root / "90" / "timers").write_text("")
    proc.call(90, 91, futex(0x89, MEM))                       # a deadline far off
    proc.deadline(90, MEM, time.monotonic() + 60)
    assert procfs.blocked(80, 5.0)[(90, 91)][1] == "futex with a deadline"
    assert procfs.blocked(80, 90.0) is None
    proc.call(90, 91, futex())
    _blocked(proc, pid=95, tids=(), ppid=90)
    (proc.root / "95" / "task" / "95" / "stat").write_text(stat(95, 90, "R"))
    assert procfs.blocked(80) is None, "a grandchild at work"
    proc.put(95, ppid=90, state="Z")
    assert procfs.blocked(80)[(95, 95)][0] == "Z"


def test_a_process_gone_or_a_zombie_is_not_blocked(proc, x86):
    assert procfs.blocked(80) is None
    _blocked(proc)
    (proc.root / "80" / "task" / "81" / "stat").write_text(stat(81, 1, "Z"))
    assert procfs.blocked(80)[(80, 81)][0] == "Z", "an exited thread is over"
    (proc.root / "80" / "task" / "80" / "stat").write_text(stat(80, 1, "Z"))
    assert procfs.blocked(80) is None, "every thread exited: it ended, not hung"
    proc.call(80, 81, futex())
    (proc.root / "80" / "task" / "81" / "stat").write_text(stat(81, 1, "S"))
    assert procfs.blocked(80)[(80, 81)][1] == "futex", \
        "a main thread that exited while another waits: not an end"


def test_a_command_with_a_parenthesis_is_read_from_the_last(proc, x86):
    """A thread's state is read after the last ')' of its stat line: a command holding
    ') R' is still asleep."""
    _blocked(proc)
    (proc.root / "80" / "task" / "81" / "stat").write_text(
        stat(81, 1, "S", (100, 10, 0, 0), comm="ffdnn (a) R 1 2"))
    assert procfs.blocked(80)[(80, 81)] == ("S", "futex", 110, 42)


def test_blocked_is_judged_at_the_second_look(proc, clock, x86):
    """Every thread blocked at two looks with nothing run between them: hung at once,
    long before the idle timer, saying so; the first look alone is not enough. What it
    saw: each process's threads' states and the calls they wait in (an exited one none)."""
    _blocked(proc, tids=(81, 82))
    (proc.root / "80" / "task" / "82" / "stat").write_text(stat(82, 1, "Z"))
    w = Idle(80, 2.0)
    assert not w.hung(), "one look: a thread may be about to be woken"
    clock.t += 0.1
    assert w.hung()
    assert w.why() == "every thread waiting on the others, none run for 0.1 s"
    assert w.seen == {80: {"cpu": 0.0, "threads": "SSZ", "waits": ["futex", "futex"]}}


@pytest.mark.parametrize("change", ["switches", "ticks", "thread", "call"])
def test_a_thread_that_ran_between_the_looks_restarts_them(proc, clock, x86, change):
    """A thread that switched, used CPU, started or left its wait since the look before
    has run: the looks start again from this one."""
    _blocked(proc)
    w = Idle(80, 2.0)
    assert not w.hung()
    clock.t += 0.1
    if change == "switches":
        proc.call(80, 81, futex(), (41, 2))
    elif change == "ticks":
        proc.put(80, ticks=(101, 10, 0, 0), threads=[(81, "S")])
    elif change == "thread":
        proc.put(80, ticks=(100, 10, 0, 0), threads=[(81, "S"), (82, "S")])
        proc.call(80, 82, futex())
    else:
        proc.call(80, 81, call(X86["wait4"], 0, 0, 0))
    assert not w.hung()
    clock.t += 0.1
    assert w.hung(), "the same again: nothing ran since"
    assert w.why() == "every thread waiting on the others, none run for 0.1 s"


def test_a_thread_that_comes_and_goes_is_watched_on(proc, clock, x86):
    """Blocked, then at work, then blocked again: each look compares with the one just
    before, never with an older one."""
    _blocked(proc)
    w = Idle(80, 2.0)
    assert not w.hung()
    clock.t += 0.1
    proc.call(80, 81, "running")
    assert not w.hung()
    clock.t += 0.1
    proc.call(80, 81, futex())
    assert not w.hung(), "blocked again: one look"
    clock.t += 0.1
    assert w.hung()
    assert w.why() == "every thread waiting on the others, none run for 0.1 s"


MEM = 0x40  # where a deadline sits in the memory of a test's process


@pytest.mark.parametrize("clock_, op, now", [("monotonic", 0x89, 0.0), ("realtime", 0x189, REALTIME)])
def test_a_deadline_after_the_backstop_is_no_end(proc, clock, x86, clock_, op, now):
    """A wait with a deadline (pthread_cond_timedwait, ONNX Runtime's pool) ends before
    the idle timer would judge only when its deadline comes within `beyond` seconds; one
    further off changes nothing the timer would see (blocked, beyond); read on its clock."""
    _blocked(proc)
    proc.call(80, 81, futex(op, MEM))
    proc.deadline(80, MEM, clock.t + now + 5.25)
    assert procfs.ends_in(80, clock_, MEM) == 5.25       # its nanoseconds counted
    assert procfs.blocked(80, 5.0)[(80, 81)][1] == "futex with a deadline"
    assert procfs.blocked(80, 5.25) is None, "the deadline at `beyond` is no further"
    assert procfs.blocked(80, 6.0) is None
    assert procfs.blocked(80) is None, "no backstop (quiet inf): only waits with none"
    other = "realtime" if clock_ == "monotonic" else "monotonic"
    assert procfs.ends_in(80, other, MEM) != pytest.approx(5.25)


def test_a_deadline_that_cannot_be_read_is_an_end(proc, clock, x86):
    _blocked(proc)
    proc.call(80, 81, futex(0x89, MEM))
    assert procfs.ends_in(80, "monotonic", MEM) is None    # no memory
    assert procfs.blocked(80, 1.0) is None
    (proc.root / "80" / "mem").write_bytes(bytes(MEM + 8))     # cut short
    assert procfs.ends_in(80, "monotonic", MEM) is None
    assert procfs.blocked(80, 1.0) is None
    proc.deadline(80, MEM, clock.t + 9)
    assert procfs.blocked(80, 1.0) is not None


@pytest.mark.parametrize("left, at_once", [(5.5, True), (4.5, False)])
def test_idle_judges_at_once_past_a_far_deadline(proc, clock, x86, left, at_once):
    """With quiet 2 s the timer judges within 2 quiet and a second (5 s) if nothing runs:
    a deadline further off is judged at once, a nearer one is left to the timer."""
    _blocked(proc)
    proc.call(80, 81, futex(0x89, MEM))
    proc.deadline(80, MEM, clock.t + left)
    w = Idle(80, 2.0)
    assert not w.hung()
    clock.t += 0.125
    assert w.hung() is at_once
    if at_once:
        assert w.seen[80]["waits"] == ["futex", "futex with a deadline"]
    else:
        clock.t += 1.875
        assert w.hung() and w.why() == "idle for 2.0 s"


def test_at_once_off(proc, clock, x86, monkeypatch):
    """FFDNN_HANG_AT_ONCE=0: the idle timer alone, which says so."""
    monkeypatch.setattr(idle, "AT_ONCE", False)
    _blocked(proc)
    w = Idle(80, 2.0)
    assert not w.hung()
    clock.t += 1.9
    assert not w.hung()
    clock.t += 0.1
    assert w.hung() and w.why() == "idle for 2.0 s"
    assert w.seen == {80: {"cpu": 0.0, "threads": "SS"}}


def test_the_timer_is_the_backstop(proc, clock, x86):
    """A wait that may end (a sleep, a timed wait) is never judged at once: only idle for
    `quiet` seconds, as before."""
    _blocked(proc)
    proc.call(80, 81, futex(timeout=0x7ffd3a2b1c30))
    w = Idle(80, 2.0)
    for _ in range(15):
        clock.t += 0.125
        assert not w.hung()
    clock.t += 0.125
    assert w.hung() and w.why() == "idle for 2.0 s"


def test_blocked_on_real_processes():
    """Once on the real /proc: a process waiting on a lock no one will release (a futex
    wait with no timeout), and its parent waiting for it, are hung at once; one asleep
    (a timed wait) never is, nor one at work."""
    forever = ("import threading; l = threading.Lock(); l.acquire(); l.acquire()")
    child = subprocess.Popen([sys.executable, "-c", forever])
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys; subprocess.run("
                               f"[sys.executable, '-c', {forever!r}])"],
                              start_new_session=True)  # its child ends with its group
    asleep = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        watch = {p: Idle(p.pid, float("inf")) for p in (child, parent, asleep, busy)}
        t0, judged = time.monotonic(), {}
        while time.monotonic() - t0 < 5 and len(judged) < 2:
            for p, w in watch.items():
                if p not in judged and w.hung():
                    judged[p] = w
            time.sleep(0.05)
        assert set(judged) == {child, parent}
        assert judged[child].seen[child.pid]["waits"] == ["futex"]
        assert "wait4" in str(judged[parent].seen) or "waitid" in str(judged[parent].seen)
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        for p in (child, parent, asleep, busy):
            p.kill()
            p.wait()


def test_a_watch_with_no_timer_counts_no_cpu(proc, x86, monkeypatch):
    """Judged at once only (quiet inf, a run before EOF): no /proc scan for a CPU baseline
    the timer would never use, at the start of every run; a look at a process at work
    reads its own threads and stops there."""
    proc.put(80, state="R")
    monkeypatch.setattr(procfs, "family", lambda pid: pytest.fail("/proc scanned"))
    w = Idle(80, float("inf"))
    assert not w.hung() and not w.hung()
    assert w.cpu == {}
