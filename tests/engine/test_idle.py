"""When a run is judged hung (harness/run/processes.py Idle.hung, cpu_seconds, waiting,
family): on /proc-like readings (a tree of stat files under processes.PROC, each line a real
/proc/PID/stat line with its state, parent and CPU ticks set) and a clock the test moves, so
each rule of the judgement is checked on its own in no time; then once on real processes.
The rule (Idle's docstring): hung once the process and every process below it used no more
than IDLE of a CPU for `quiet` seconds on end and none of their threads is running, waiting
for a CPU or reading a disk."""

import os
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from harness.run import processes
from harness.run.processes import IDLE, Idle

pytestmark = pytest.mark.unit

# a real /proc/PID/stat line (a python worker), fields after the command: state, ppid, ...,
# utime (11), stime (12), cutime (13), cstime (14), priority (15)
REAL = ("26015 (python) R 26013 26013 12516 0 -1 4194304 1346 0 1 0 1 0 0 0 20 0 1 0 1346532 "
        "14327808 2662 18446744073709551615 94858861498368 94858861498709 140733441569024 0 0 "
        "0 0 16781312 2 0 0 0 17 1 0 0 0 0 0 94858861510064 94858861510680 94858915094528 "
        "140733441575604 140733441575662 140733441575662 140733441576935 0")
TCK = os.sysconf("SC_CLK_TCK")


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
        """Process `pid` (its main thread in `state`) and its other threads' states."""
        d = self.root / str(pid)
        (d / "task").mkdir(parents=True, exist_ok=True)
        (d / "stat").write_text(stat(pid, ppid, state, ticks, comm))
        for tid, st in [(pid, state), *threads]:
            (d / "task" / str(tid)).mkdir(exist_ok=True)
            (d / "task" / str(tid) / "stat").write_text(stat(tid, ppid, st, ticks, comm))

    def gone(self, pid):
        for p in sorted((self.root / str(pid)).rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        (self.root / str(pid)).rmdir()


@pytest.fixture
def proc(tmp_path, monkeypatch):
    p = Proc(tmp_path / "proc")
    monkeypatch.setattr(processes, "PROC", p.root)
    return p


@pytest.fixture
def clock(monkeypatch):
    """processes' clock, moved by the test: clock.t = seconds."""
    c = SimpleNamespace(t=100.0)
    monkeypatch.setattr(processes, "time", SimpleNamespace(monotonic=lambda: c.t))
    return c


def test_reading_cpu(proc):
    """utime + stime + cutime + cstime (the children waited for count), in seconds; the
    fields around them do not; a command with ') ' in it is read from its last ')'."""
    proc.put(10, ticks=(1 * TCK, 2 * TCK, 4 * TCK, 8 * TCK))
    assert processes.cpu_seconds(10) == 15
    (proc.root / "11").mkdir()
    (proc.root / "11" / "stat").write_text(stat(11, 1, "S", (TCK, 0, 0, 0),
                                                comm="ffdnn (a) b", before=7 * TCK))
    assert processes.cpu_seconds(11) == 1
    assert processes.cpu_seconds(12) == 0.0        # gone
    (proc.root / "13").mkdir()
    (proc.root / "13" / "stat").write_text("13 (zombie")   # cut short
    assert processes.cpu_seconds(13) == 0.0


@pytest.mark.parametrize("states, want", [
    (("S",), False), (("R",), True), (("D",), True), (("S", "S", "S"), False),
    (("S", "R"), True), (("S", "S", "D"), True), (("Z",), False), (("T", "S"), False),
])
def test_a_thread_waiting(proc, states, want):
    """Running or waiting for a CPU (R) or in uninterruptible I/O (D), any thread."""
    proc.put(20, state=states[0], threads=[(21 + i, s) for i, s in enumerate(states[1:])])
    assert processes.waiting(20) is want


def test_a_thread_whose_command_has_a_parenthesis(proc):
    proc.put(25, state="S", threads=[(26, "R")], comm="ffdnn (a) S 1")
    assert processes.waiting(25) is True
    proc.put(25, state="S", threads=[(26, "S")], comm="ffdnn (a) R 1")
    assert processes.waiting(25) is False


def test_waiting_of_a_process_gone_or_a_thread_cut_short(proc):
    assert processes.waiting(29) is False
    proc.put(20, threads=[(21, "S")])
    (proc.root / "20" / "task" / "21" / "stat").write_text("21 (x")
    (proc.root / "20" / "task" / "22").mkdir()    # a thread gone between the two reads
    assert processes.waiting(20) is False
    proc.put(20, threads=[(21, "R")])
    (proc.root / "20" / "task" / "23").mkdir()
    assert processes.waiting(20) is True


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
    assert sorted(processes.family(30)) == [30, 31, 32, 34, 37]
    assert sorted(processes.family(31)) == [31, 32, 34, 37]
    assert processes.family(34) == [34]
    assert processes.family(99) == [99]


def test_family_lists_each_once(proc):
    proc.put(40)
    proc.put(41, ppid=40)
    proc.put(42, ppid=40)
    assert sorted(processes.family(40)) == [40, 41, 42]


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
        assert processes.family(os.getpid())[:1] == [os.getpid()]
        assert sleeper.pid in processes.family(os.getpid())
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
    assert processes.ended(50)
    assert not w.hung()
    proc.put(50, state="Z", ticks=(100, 10, 0, 0), threads=[(51, "S")])
    assert not processes.ended(50)
    assert w.hung(), "idle, and still there"


def test_ended_reads_each_thread(proc):
    """A command with ') Z' in it is read from its last ')'; a thread whose stat is cut
    short (gone between the two reads) does not stop the look at the others."""
    proc.put(60, state="S", comm="ffdnn (a) Z 1")
    assert not processes.ended(60)
    proc.put(61, state="Z", threads=[(62 + i, "S") for i in range(8)])
    for i in range(7):
        (proc.root / "61" / "task" / str(62 + i) / "stat").write_text(f"{62 + i} (x")
    assert not processes.ended(61), "thread 69 still runs"
    (proc.root / "61" / "task" / "69" / "stat").write_text("69 (x")
    assert processes.ended(61)


def test_an_injected_delay_is_at_work(proc, clock):
    """A thread asleep in a delay the injector was asked for (named ffdnn-delay, the spec's
    delay(ms)) is the run doing what it was told: not hung, however idle; the same thread
    under another name is."""
    proc.put(70, ticks=(100, 10, 0, 0), threads=[(71, "S")])
    (proc.root / "70" / "task" / "71" / "stat").write_text(
        stat(71, 1, "S", (100, 10, 0, 0), comm=processes.DELAY))
    assert processes.waiting(70)
    w = Idle(70, 2.0)
    clock.t += 2.0
    assert not w.hung()
    proc.put(70, ticks=(100, 10, 0, 0), threads=[(71, "S")])
    assert not processes.waiting(70)
    # a name is read from the line's first '(' on: one that only ends in the delay's
    # name is another thread's
    (proc.root / "70" / "task" / "71" / "stat").write_text(
        stat(71, 1, "S", (100, 10, 0, 0), comm=f"a({processes.DELAY}"))
    assert not processes.waiting(70)
    clock.t += 2.0
    assert w.hung()
