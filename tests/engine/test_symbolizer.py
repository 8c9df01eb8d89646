"""The symbolizer a fork server keeps for its children (harness/run/symbolizer.py) names a
stack as one started per run does, from a forked child too, and a child killed halfway
through its request leaves nothing the next one takes for its own answer."""

import os
import shutil
import subprocess
import time

import pytest

from harness.run import sites, symbolizer

pytestmark = pytest.mark.skipif(not (shutil.which("llvm-symbolizer") and shutil.which("gcc")),
                                reason="needs llvm-symbolizer and gcc")

SOURCE = """
static int inner(int x) { return x * 3; }
__attribute__((noinline)) int outer(int x) { return inner(x) + 1; }
__attribute__((noinline)) int other(int x) { return x - 1; }
"""


@pytest.fixture(scope="module")
def obj(tmp_path_factory):
    """A small shared object with debug information, and its functions' offsets."""
    d = tmp_path_factory.mktemp("sym")
    (d / "sym.c").write_text(SOURCE)
    subprocess.run(["gcc", "-g", "-O1", "-shared", "-fPIC", "-o", d / "sym.so", d / "sym.c"],
                   check=True)
    nm = subprocess.run(["nm", d / "sym.so"], capture_output=True, text=True, check=True)
    at = {f[2]: int(f[0], 16) for f in (l.split() for l in nm.stdout.splitlines())
          if len(f) == 3 and f[2] in ("outer", "other")}
    return str(d / "sym.so"), [at["outer"] + 1, at["other"] + 1]


@pytest.fixture
def kept():
    symbolizer.keep()
    yield symbolizer.kept()
    symbolizer.stop()


def test_kept_names_as_one_per_run(obj, kept):
    path, offsets = obj
    symbolizer.stop()
    alone = sites._symbolize(path, offsets)
    assert [alone[o][0].split(" (")[0] for o in offsets] == ["outer", "other"]
    symbolizer.keep()
    assert symbolizer.kept().ask(path, offsets) is not None, "the kept one answered"
    assert sites._symbolize(path, offsets) == alone


def test_a_forked_child_asks_it(obj, kept):
    path, offsets = obj
    want = sites._symbolize(path, offsets)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        ok = symbolizer.kept().ask(path, offsets) is not None and \
            sites._symbolize(path, offsets) == want
        os.write(w, b"1" if ok else b"0")
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    assert os.read(r, 1) == b"1"
    os.close(r)


@pytest.mark.parametrize("left", ["unread answer", "half a request"])
def test_what_a_killed_child_left_is_passed_over(obj, kept, left):
    """A child killed after it asked (its answer, sentinels and all, still in the pipe) or
    while it wrote (half a line): the next asker gets its own answer, not that one."""
    path, offsets = obj
    want = kept.ask(path, offsets)
    mark = symbolizer.SENTINEL + 5
    other = f'"{path}" {hex(mark)}\n"{path}" {hex(offsets[1])}\n"{path}" {hex(offsets[0])}\n'
    os.write(kept.to, (other + f'"{path}" {hex(mark + 1)}\n' if left == "unread answer"
                       else other + f'"{path}" 0x1').encode())
    time.sleep(0.2)
    assert kept.ask(path, offsets) == want
    assert kept.ask(path, offsets[::-1]) == want[::-1]


def _in_child(job) -> bytes:
    """Runs `job` in a forked child (as the fork server's runs are) and gives what it
    returned."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.write(w, job())
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    out = os.read(r, 4096)
    os.close(r)
    return out


def test_a_place_named_once_is_named_for_every_child(obj, kept, monkeypatch):
    """What one child names, the next reads instead of asking a symbolizer (the kept one
    left, as after a run's checkpoint; none started); a line a child killed halfway left
    cut is passed over."""
    path, offsets = obj
    named = sites._symbolize(path, offsets)

    def first():
        symbolizer.leave()
        sites._NAMED.clear()
        got = sites._named({path: set(offsets)})
        os.write(symbolizer.names().fd, f"{path}\t{offsets[0]}\t[\"cut".encode())
        return b"1" if all(got[(path, o)] == named[o] for o in offsets) else b"0"

    def second():
        symbolizer.leave()
        sites._NAMED.clear()
        monkeypatch.setattr(sites, "_symbolize", lambda *a: b"asked")
        got = sites._named({path: set(offsets)})
        return b"1" if all(got[(path, o)] == named[o] for o in offsets) else repr(got).encode()

    assert _in_child(first) == b"1"
    assert _in_child(second) == b"1"
