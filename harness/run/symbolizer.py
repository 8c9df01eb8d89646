"""One llvm-symbolizer a fork server keeps running for its children (harness/run/forkserver.py),
so a run names its failed call's stack without starting one of its own: its start, reading
the module's debug information, took 60-130 ms of a sweep run's 300 (harness/run/sites.py
asks it first and starts one per run only when there is none, or it did not answer).

The children share its pipes; each asks under a lock (a POSIX record lock on a file the
server opened: held by one process at a time, let go when that process dies), and frames
its request between two sentinel addresses of its own, echoed with --print-address: what a
child killed halfway wrote or left unread comes before the first and is passed over.

What a child names it also writes to a file the server opened (`Names`), and the next
child reads it first: a place named once is named for every run of the server (a
backend's allocations left behind in every run, named after the checkpoint, where the
kept symbolizer is not asked and a run would start its own)."""

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

COMMAND = ["llvm-symbolizer", "--inlining", "--demangle", "--basenames", "--print-address"]
WAIT = 5.0  # seconds an answer may take before the run starts a symbolizer of its own
SENTINEL = 0xFEED << 40  # far above any offset in a module: the start of a request's own


class Kept:
    """The kept symbolizer: its process, its pipes' ends, the lock file."""

    def __init__(self):
        self.proc = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.lock = tempfile.TemporaryFile(prefix="ffdnn-symbolizer-")  # unlinked at once
        self.to, self.back = self.proc.stdin.fileno(), self.proc.stdout.fileno()

    def ask(self, obj: str, offsets: list) -> list | None:
        """The answer's blocks, one per offset in order (each its function / file:line
        lines, the innermost first); None when there is none within WAIT seconds or
        the symbolizer is gone."""
        mark = SENTINEL + int.from_bytes(os.urandom(4), "big")  # not the PRNG: forked alike
        lines = [mark, *offsets, mark + 1]
        request = "\n" + "".join(f'"{obj}" {hex(o)}\n' for o in lines)
        fcntl.lockf(self.lock, fcntl.LOCK_EX)
        try:
            os.write(self.to, request.encode())
            return _blocks(self.back, mark, len(offsets))
        except OSError:
            return None
        finally:
            fcntl.lockf(self.lock, fcntl.LOCK_UN)


def _blocks(fd: int, mark: int, n: int) -> list | None:
    """Reads the answer from `fd` up to the block of `mark` + 1 (nothing past it: the pipe
    is shared), and gives the n blocks between `mark`'s and it; None on a wait of WAIT
    seconds with nothing, on EOF, or when they are not n."""
    text, deadline = "", time.monotonic() + WAIT
    end = f"\n{hex(mark + 1)}\n"
    while not (end in text and text.endswith("\n\n")):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        data = os.read(fd, 65536)
        if not data:
            return None
        text += data.decode(errors="replace")
    # an empty line (the request's first, ending what a child killed halfway wrote) is
    # answered with one: lines, not blocks, are what counts
    blocks = [lines for b in text.split("\n\n") if (lines := [l for l in b.splitlines() if l])]
    starts = [i for i, b in enumerate(blocks) if _address(b[0]) == mark]
    if not starts:
        return None
    mine = blocks[starts[-1] + 1:]
    if len(mine) != n + 1 or _address(mine[-1][0]) != mark + 1:
        return None
    return [b[1:] for b in mine[:-1]]


def _address(line: str) -> int | None:
    try:
        return int(line, 16)
    except ValueError:
        return None


class Names:
    """The names the server's children found, one line each (object, offset, its frames
    as JSON), appended under the kept symbolizer's lock to a file the server opened and
    unlinked; each child reads what is new since its last look. A line a child killed
    halfway left cut is passed over."""

    def __init__(self, lock):
        fd, path = tempfile.mkstemp(prefix="ffdnn-names-")
        os.unlink(path)
        self.fd, self.lock, self.seen = fd, lock, 0  # the forked children share it
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_APPEND)

    def read(self) -> dict:
        """(object, offset) -> frames (a list, or None: nothing named there), new since
        this process last read."""
        out, data = {}, b""
        while chunk := os.pread(self.fd, 1 << 20, self.seen + len(data)):
            data += chunk
        data = data[:data.rfind(b"\n") + 1]
        self.seen += len(data)
        for line in data.decode(errors="replace").splitlines():
            try:
                obj, off, frames = line.split("\t")
                out[(obj, int(off))] = json.loads(frames)
            except ValueError:
                continue
        return out

    def write(self, named: dict) -> None:
        text = "".join(f"{obj}\t{off}\t{json.dumps(frames)}\n"
                       for (obj, off), frames in named.items() if "\t" not in obj)
        if text:
            fcntl.lockf(self.lock, fcntl.LOCK_EX)
            try:
                os.write(self.fd, text.encode())
            except OSError:
                pass
            finally:
                fcntl.lockf(self.lock, fcntl.LOCK_UN)


_KEPT = None  # this process's (and its children's) kept symbolizer
_NAMES = None  # and the names they found: kept after leave()


def keep(warm: tuple | None = None) -> None:
    """Start the symbolizer this process's children will ask (the fork server, once);
    `warm`, an (object, offset), is asked at once, so the debug information of the
    object the children name their stacks in (the build's module) is read before any of
    them waits on it."""
    global _KEPT, _NAMES
    if _KEPT is None and shutil.which(COMMAND[0]):
        _KEPT = Kept()
        _NAMES = Names(_KEPT.lock)
        if warm is not None:
            _KEPT.ask(warm[0], [warm[1]])


def kept() -> Kept | None:
    return _KEPT


def names() -> Names | None:
    """The names the server's children found (None: no server's)."""
    return _NAMES


def leave() -> None:
    """This process (a child) asks the kept symbolizer no more: from the run's checkpoint
    on the runner's watch judges it idle unless it or a child of its own is at work, and
    the kept one is neither (harness/run/runner.py _wait())."""
    global _KEPT
    _KEPT = None


def stop() -> None:
    """End the kept symbolizer (the fork server, as it exits): its input closed, it ends;
    one that does not within a second is killed."""
    global _KEPT, _NAMES
    if _NAMES is not None:
        os.close(_NAMES.fd)
        _NAMES = None
    if _KEPT is not None:
        k, _KEPT = _KEPT, None
        k.proc.stdin.close()
        try:
            k.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            k.proc.kill()
            k.proc.wait()
        k.proc.stdout.close()
        k.lock.close()
