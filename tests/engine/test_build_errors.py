"""Build failures leave the cache as it was and say what went wrong in one line."""

import errno
import os
import signal
import subprocess
import sys

import pytest

from harness.errors import HarnessError
from harness.paths import PROJECT, atomic_dir, atomic_file
from tests.conftest import BACKENDS


# the two atomic writers: a cache entry that is a directory, one that is a file
WRITE = {"atomic_dir": (atomic_dir, lambda tmp: (tmp / "half-written").write_text("x")),
         "atomic_file": (atomic_file, lambda tmp: tmp.write_text("x"))}


@pytest.mark.unit
@pytest.mark.parametrize("writer", WRITE)
@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyboardInterrupt()])
def test_atomic_writer_leaves_nothing_on_failure(tmp_path, exc, writer):
    atomic, write = WRITE[writer]
    final = tmp_path / "entry"
    with pytest.raises(type(exc)):
        with atomic(final) as tmp:
            write(tmp)
            raise exc
    assert list(tmp_path.iterdir()) == []


@pytest.mark.unit
@pytest.mark.parametrize("writer", WRITE)
def test_atomic_writer_disk_full_is_one_line(tmp_path, writer):
    with pytest.raises(HarnessError, match="disk full while writing"):
        with WRITE[writer][0](tmp_path / "entry"):
            raise OSError(errno.ENOSPC, "No space left on device")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.unit
def test_atomic_file_replaces_whole(tmp_path):
    """The old file stays until the new one is whole, then the new one is in its place."""
    final = tmp_path / "configure"
    final.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_file(final) as tmp:
            tmp.write_text("half")
            raise RuntimeError("boom")
    assert [p.name for p in tmp_path.iterdir()] == ["configure"] and final.read_text() == "old"
    with atomic_file(final) as tmp:
        tmp.write_text("new")
        assert final.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["configure"] and final.read_text() == "new"


@pytest.mark.unit
def test_atomic_dir_publishes_whole(tmp_path):
    with atomic_dir(tmp_path / "entry") as tmp:
        (tmp / "done").write_text("x")
    assert [p.name for p in tmp_path.iterdir()] == ["entry"]
    assert (tmp_path / "entry" / "done").is_file()


def _harness(*args, env):
    """The CLI as a terminal starts it: SIGINT at its default, whatever this process
    inherited (a suite started in the background by a non-interactive shell, as `make test
    &` or a CI runner may do, ignores SIGINT, and a child that inherits SIG_IGN never sees
    Ctrl-C: the build it means to interrupt runs to its end)."""
    return subprocess.Popen([sys.executable, "-m", "harness", *args], cwd=PROJECT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.trees
def test_missing_compiler(scratch_cache):
    env = {**os.environ, "FFDNN_CACHE": str(scratch_cache), "PATH": "/nonexistent"}
    p = _harness("build", "--tree", "base", "--backend", "default", env=env)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 2
    assert err.strip() == "error: no C compiler: install gcc (apt-get install build-essential)"


@pytest.mark.trees
def test_interrupted_build_leaves_no_entry(scratch_cache):
    """Ctrl-C while make compiles before (a copy of base, the series applied): exit 130,
    one error line, no entry but base's, no process left at work in the cache."""
    env = {**os.environ, "FFDNN_CACHE": str(scratch_cache)}
    p = _harness("build", "--tree", "before", "--backend", BACKENDS, env=env)
    seen = []
    for line in p.stderr:  # progress is on stderr; interrupt while make runs, at its first object
        seen.append(line.rstrip())
        if "[before] compile: 1 object" in line:
            break
    else:
        p.wait()
        pytest.fail(f"never saw '[before] compile: 1 object' (exit {p.returncode}); the "
                    f"build said: {seen[-5:]}")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130
    assert err.strip().splitlines()[-1] == ("error: interrupted (SIGINT); its processes ended, "
                                            "nothing half-built was kept")
    assert out == "", "nothing on stdout: a build that did not finish reports no tree"
    assert [p.name for p in (scratch_cache / "trees").iterdir()] == \
        [p.name for p in (scratch_cache / "trees").glob("base-*")], "only base, linked"
    assert _working_in(scratch_cache) == [], "make and its compilers were stopped"


def _working_in(root):
    pids = []
    for proc in os.listdir("/proc"):
        try:
            if proc.isdigit() and os.readlink(f"/proc/{proc}/cwd").startswith(str(root)):
                pids.append(int(proc))
        except OSError:
            continue
    return pids
