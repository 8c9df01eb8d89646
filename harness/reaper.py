"""What a command started ends with it: the process groups of its builds, copies, module
compiles, fork servers and workers, and the temporary directories they write.

- SIGTERM and SIGINT (install()): every group registered is killed at once, then the
  command unwinds as on Ctrl-C (KeyboardInterrupt), so each atomic writer removes its
  `.tmp-*` and the runner stops; the exit status is 128 + the signal's number.
- SIGKILL, where no handler runs: a guard process (started with the first group or
  directory registered, in a session of its own) holds a pipe from the command; when
  the pipe ends without the command having dropped everything, it ends the groups still
  registered (SIGTERM, then SIGKILL) and removes the directories.

A group is a process started by spawn() (start_new_session=True): its pid is its group's id.
"""

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

GUARD = r"""
import os, shutil, signal, sys, time
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
groups, dirs = set(), set()
for line in sys.stdin:
    op, _, arg = line.rstrip("\n").partition(" ")
    {"+g": groups.add, "-g": groups.discard, "+d": dirs.add, "-d": dirs.discard}[op](arg)
for sig, pause in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 0.2)):
    for g in groups:
        for kill in (os.killpg, os.kill):
            try:
                kill(int(g), sig)
            except OSError:
                pass
    if groups:
        time.sleep(pause)
for d in dirs:
    shutil.rmtree(d, ignore_errors=True) if os.path.isdir(d) else None
    try:
        os.unlink(d)
    except OSError:
        pass
"""

_lock = threading.RLock()
_groups, _dirs = set(), set()
_guard = None
_signal = None  # the signal that is ending the command, once one did


def _tell(line: str) -> None:
    global _guard
    with _lock:
        if _guard is None:
            # its own session (a signal to the command's group does not reach it), and
            # none of the command's output (a reader of it is not kept waiting); not
            # spawn(): the guard is what ends the groups, never one of them, and it
            # outlives the command by design (a SIGKILL of the command is its cue)
            _guard = subprocess.Popen([sys.executable, "-S", "-c", GUARD],
                                      stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, text=True,
                                      start_new_session=True)
            atexit.register(_close_guard)  # a process that never installed(): at its exit
        try:
            _guard.stdin.write(line + "\n")
            _guard.stdin.flush()
        except (OSError, ValueError):
            pass


def add_group(pid: int) -> None:
    """A process group the command started; killed at once when it is ending."""
    with _lock:
        _groups.add(pid)
        _tell(f"+g {pid}")
    if _signal is not None:  # started while the command ends: it ends too
        _kill(pid)


def drop_group(pid: int) -> None:
    with _lock:
        if pid in _groups:
            _groups.discard(pid)
            _tell(f"-g {pid}")


def add_dir(path) -> None:
    with _lock:
        _dirs.add(str(path))
        _tell(f"+d {path}")


def drop_dir(path) -> None:
    with _lock:
        if str(path) in _dirs:
            _dirs.discard(str(path))
            _tell(f"-d {path}")


@contextlib.contextmanager
def temporary(path):
    """`path` (a directory or file the caller made) is removed if the command is killed."""
    add_dir(path)
    try:
        yield path
    finally:
        drop_dir(path)


class Group(subprocess.Popen):
    """A long-lived child started in a process group of its own (start_new_session=True:
    its pid is its group's id) and registered (add_group): ended with the command, by its
    signal handler or its guard. kill_group() ends the group; drop() unregisters it once
    it has ended. As a context manager: an exception in the block (Ctrl-C included)
    kills the whole group and waits for it before the caller's cleanup runs, and the
    group is dropped on the way out. `reaped=False`: not registered (a child that ends
    with the command by another way, as a fork server on its pipe's EOF)."""

    def __init__(self, cmd, *, reaped: bool = True, **popen_kwargs):
        super().__init__(cmd, start_new_session=True, **popen_kwargs)
        if reaped:
            add_group(self.pid)

    def kill_group(self, sig=signal.SIGKILL) -> None:
        _kill(self.pid, sig)

    def drop(self) -> None:
        drop_group(self.pid)

    def __exit__(self, exc_type, value, traceback):
        try:
            if exc_type is not None:
                self.kill_group()
                self.wait()
            return super().__exit__(exc_type, value, traceback)
        finally:
            self.drop()


def spawn(cmd, **popen_kwargs) -> Group:
    """The one way harness/ starts a long-lived child: Popen(cmd, **popen_kwargs) in a
    process group of its own, ended with the command (Group). Short runs (git, nm)
    stay subprocess.run calls."""
    return Group(cmd, **popen_kwargs)


def _kill(pid: int, sig=signal.SIGKILL) -> None:
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, sig)
            return
        except OSError:
            continue


def live_groups() -> set:
    """The process groups with a process that is not a zombie (from /proc)."""
    out = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z":
                out.add(int(fields[2]))
    return out


def end_groups(grace: float = 1.0) -> None:
    """End every group registered: SIGTERM (make passes it on, a compiler removes its
    temporary files), then, for what is left after `grace` seconds, SIGKILL. Each stays
    registered until its owner reaps it."""
    with _lock:
        groups = set(_groups)
    if not groups:
        return
    for pid in groups:
        _kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while groups & live_groups() and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in groups:
        _kill(pid)


def _on_signal(signum, frame):
    global _signal
    if _signal is None:
        _signal = signum
        end_groups()
        raise KeyboardInterrupt


def signalled() -> int | None:
    """The signal that ended the command (SIGTERM, SIGINT), or None."""
    return _signal


@contextlib.contextmanager
def installed():
    """SIGTERM and SIGINT end the command's groups and unwind it; at the end, whatever is
    left registered is ended and removed, and the guard told to stop."""
    global _signal
    _signal = None
    main = threading.current_thread() is threading.main_thread()
    saved = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGINT)} \
        if main else {}
    try:
        yield
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
        end_groups()
        with _lock:
            for pid in list(_groups):
                drop_group(pid)
            for d in list(_dirs):
                shutil.rmtree(d, ignore_errors=True) if os.path.isdir(d) else None
                with contextlib.suppress(OSError):
                    os.unlink(d)
                drop_dir(d)
        _close_guard()


def _close_guard() -> None:
    """Tell the guard the command is over (its pipe closed: it ends what is still
    registered) and reap it."""
    global _guard
    with _lock:
        guard, _guard = _guard, None
    if guard is not None:
        guard.stdin.close()
        guard.wait()
