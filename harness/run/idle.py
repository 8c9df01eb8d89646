"""When a process that should have ended is hung (Idle): judged at once, every thread of it
and of the processes below it asleep in a wait only they can end, or by the backstop, idle
for `quiet` seconds on end; from what /proc says of them (harness/run/procfs.py)."""

import math
import os
import time

from harness.run import procfs

QUIET = 2.0   # seconds a process that should have ended must sit idle to be judged hung
SYNC_QUIET = 0.5  # the same where tasks run only on the caller's thread or on threads FFmpeg starts
IDLE = 0.05   # of one CPU: what "idle" may use (a loop that polls with a sleep)
AT_ONCE = os.environ.get("FFDNN_HANG_AT_ONCE", "1") != "0"  # 0: the idle timer alone


class Idle:
    """Watches a process that should have ended by now: hung() is true once it and every
    process it started (addr2line naming the stacks after EOF, say) can make no progress:
    - at once: every thread of them asleep in a wait only they end (a futex wait, a wait
      for a child: waits_for_good), with no timer set and no deadline before the backstop
      below would judge them anyway (2 `quiet` and a second), and none of them run
      between two looks (blocked); nothing outside them can end such a wait first;
    - or, the backstop, once they have used no more than IDLE of a CPU for `quiet`
      seconds on end and no thread of them is running, waiting for a CPU or reading a
      disk (a loop that waits for what never comes, polling with a sleep, as FFmpeg's
      flush loops do).
    Work restarts the watch: a process at work, or waiting for a child at work, is not
    judged, however long it takes; a process that has exited (its runner not yet told) is
    never hung. Once hung, `seen` says what the last look found: each process's CPU
    seconds since the look before and its threads' states (and, judged at once, the
    call each thread waits in), and why() says which rule judged it."""

    def __init__(self, pid: int, quiet: float = QUIET):
        self.pid, self.quiet, self.seen = pid, quiet, {}
        # no timer (quiet inf, judged at once only): no CPU to count from
        self.since, self.cpu = time.monotonic(), self._cpu() if quiet < math.inf else {}
        self.look, self.looked, self.at_once = None, self.since, False
        self.beyond = 2 * quiet + 1.0  # the backstop judges by then, if nothing runs
        self.delayed = False  # a thread of it was seen sleeping an injected delay

    def _cpu(self) -> dict:
        return {p: procfs.cpu_seconds(p) for p in procfs.family(self.pid)}

    def hung(self) -> bool:
        now = time.monotonic()
        look = procfs.blocked(self.pid, self.beyond) if AT_ONCE else None
        if look is not None and look == self.look:  # nothing ran since, nothing can
            self.at_once, self.seen = True, {}
            for (p, _), (state, call, _, _) in sorted(look.items()):
                seen = self.seen.setdefault(p, {"cpu": 0.0, "threads": "", "waits": []})
                seen["threads"] += state
                seen["waits"] += [call] if call else []
            return True
        if look != self.look:
            self.look, self.looked = look, now
        # an injected delay is work asked for, at every look (not only once `quiet` has
        # passed: a delay that ends between two looks left the window before it idle);
        # the watch starts afresh when it ends
        if procfs.delaying(self.pid):
            self.delayed = True
            return False
        if self.delayed:
            self.delayed = False
            self.since, self.cpu = now, self._cpu() if self.quiet < math.inf else {}
            return False
        if now - self.since < self.quiet:
            return False
        if procfs.ended(self.pid):  # it ended between the runner's wait and this look: not hung
            return False
        cpu = self._cpu()
        used = {p: c - self.cpu.get(p, 0.0) for p, c in cpu.items()}
        if sum(used.values()) <= IDLE * (now - self.since) and \
                not any(procfs.waiting(p) for p in cpu):
            self.seen = {p: {"cpu": u,
                             "threads": "".join(state for _, state in procfs.threads(p) or ())}
                         for p, u in used.items()}
            return True
        self.since, self.cpu = now, cpu  # still working: watch on
        return False

    def idle_for(self) -> float:
        return time.monotonic() - self.since

    def why(self) -> str:
        """What judged it hung: "idle for S s", or every thread blocked for good since."""
        if self.at_once:
            return (f"every thread waiting on the others, none run for "
                    f"{time.monotonic() - self.looked:.1f} s")
        return f"idle for {self.idle_for():.1f} s"
