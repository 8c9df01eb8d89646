"""Tests for the pthread_create() fault injectors (injectors/, harness/compile/injector_build.py)."""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.compile import injector_build as injectors

pytestmark = pytest.mark.injectors

TESTS_DIR = injectors.SRC_DIR / "tests"
EXPECTED = [
    "ok unarmed call 1: 0, threads 1",
    "ok unarmed call 2: 0, threads 1",
    "ok arm EAGAIN skip 1 count 1: 0",
    "ok armed call 1: 0, threads 1",
    "ok armed call 2: EAGAIN, threads 0",
    "ok armed call 3: 0, threads 1",
    "ok calls: 5",
    "ok eligible: 3",
    "ok failures: 1",
    "ok disarmed call: 0, threads 1",
    "ok target libc.so.6: 0",
    "ok arm EAGAIN skip 0 count 1: 0",
    "ok call, caller not targeted: 0, threads 1",
    "ok target self: 0",
    "ok call, caller targeted: EAGAIN, threads 0",
    "ok target no such object: -1",   # as malloc's: a target no loaded object matches
    "ok arm EAGAIN skip 0 count 1: 0",
    "ok call, unmatched target: 0, threads 1",
    "ok target any: 0",
    "ok call, any caller: EAGAIN, threads 0",
    "ok count exhausted call: 0, threads 1",
    "ok total calls: 11",
    "ok total eligible: 6",
    "ok total failures: 3",
    # tracking (fi_pthread_create_track_caller): threads running, apart from the window
    "ok untracked thread, running while held: 0",
    "ok untracked thread, running after join: 0",
    "ok track self: 0",
    "ok tracked thread, running while held: 1",
    "ok tracked thread, running after join: 0",
    "ok tracked thread, pthread_exit, running while held: 1",
    "ok tracked thread, pthread_exit, running after join: 0",
    "ok track libc.so.6: 0",
    "ok thread of another caller, running while held: 0",
    "ok thread of another caller, running after join: 0",
    "ok track no such object: -1",
    "ok thread, no object tracked, running while held: 0",
    "ok thread, no object tracked, running after join: 0",
    "ok track none: 0",
    "ok untracked: 0",
]


def _cc(*args):
    """Compile with the injector flags; warnings count as failures."""
    cmd = [injectors.CC, *injectors.CFLAGS, "-Werror", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr


def _run(exe, **env):
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})
    return proc.returncode, proc.stdout.splitlines()


def test_preload(built, tmp_path):
    exe = tmp_path / "test_preload"
    _cc("-o", exe, TESTS_DIR / "test_preload.c", "-ldl")
    assert _run(exe, LD_PRELOAD=str(built.preload_so)) == (0, EXPECTED)


def test_preload_missing_fails(tmp_path):
    """Without the injector the C test must fail, not pass vacuously."""
    exe = tmp_path / "test_preload"
    _cc("-o", exe, TESTS_DIR / "test_preload.c", "-ldl")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 1 and proc.stdout.startswith("FAIL resolve")


@pytest.mark.parametrize("how", ["object", "sources"])
def test_wrap(built, tmp_path, how):
    """Link the prebuilt object, or the sources the way the cffi extension does."""
    exe = tmp_path / "test_wrap"
    if how == "object":
        inputs = [built.wrap_object]
    else:
        inputs = [f"-I{injectors.INCLUDE_DIR}", *injectors.WRAP_CFLAGS,
                  *injectors.wrap_sources(tmp_path)]
    _cc("-o", exe, TESTS_DIR / "test_wrap.c", *inputs, *injectors.WRAP_LDFLAGS)
    assert _run(exe) == (0, EXPECTED)


def test_build_cached_and_atomic(built, monkeypatch):
    mtime = built.preload_so.stat().st_mtime_ns

    def no_compile(args):
        raise AssertionError(f"recompiled: {args}")

    monkeypatch.setattr(injectors, "_compile", no_compile)
    again = injectors.build(built.dir.parent)
    assert again == built
    assert built.preload_so.stat().st_mtime_ns == mtime
    assert [p.name for p in built.dir.parent.iterdir()] == [built.dir.name]
    assert sorted(p.name for p in built.dir.iterdir()) == sorted(
        [injectors.PRELOAD_SO, injectors.WRAP_OBJECT, injectors.MALLOC_SO, injectors.MANIFEST,
         "gen"])
    assert sorted(p.name for p in (built.dir / "gen").iterdir()) == [
        "preload_malloc.c", "preload_pthread_create.c", "wrap_pthread_create.c"]


def test_build_content_addressed(built, tmp_path):
    src = shutil.copytree(injectors.SRC_DIR, tmp_path / "src")
    with open(src / "pthread_create.fi", "a") as f:
        f.write("# changed\n")
    other = injectors.build(built.dir.parent, src_dir=src)
    assert other.dir != built.dir and other.preload_so.is_file()


def test_build_error_one_line(tmp_path):
    src = shutil.copytree(injectors.SRC_DIR, tmp_path / "src")
    with open(src / "fi_pthread_create_hooks.h", "a") as f:
        f.write("int broken(void) { return }\n")
    cache = tmp_path / "cache"
    with pytest.raises(injectors.InjectorBuildError) as info:
        injectors.build(cache, src_dir=src)
    msg = str(info.value)
    assert "\n" not in msg and "fi_pthread_create_hooks.h" in msg and "error" in msg
    assert list(cache.iterdir()) == []  # no temp dir left behind


def test_stanza_error_one_line(tmp_path):
    """A stanza that does not parse: one line naming its file and line, nothing built."""
    src = shutil.copytree(injectors.SRC_DIR, tmp_path / "src")
    with open(src / "malloc.fi", "a") as f:
        f.write("\nvoid *valloc(size_t size)\n    call: fi_malloc_through(size, eligible)\n")
    cache = tmp_path / "cache"
    with pytest.raises(injectors.InjectorBuildError,
                       match=r"^injector stanza: malloc.fi: valloc has no 'fail:' line$"):
        injectors.build(cache, src_dir=src)
    assert list(cache.iterdir()) == []


@pytest.mark.skipif(sys.platform != "darwin", reason="DYLD interposer: macOS only")
def test_darwin_interpose(tmp_path):
    lib = tmp_path / "libfi_pthread_create.dylib"
    _cc("-dynamiclib", f"-I{injectors.INCLUDE_DIR}", "-o", lib,
        injectors.generated("pthread_create", "darwin", tmp_path))
    exe = tmp_path / "test_preload"
    _cc("-o", exe, TESTS_DIR / "test_preload.c")
    assert _run(exe, DYLD_INSERT_LIBRARIES=str(lib)) == (0, EXPECTED)


# A delay window (fi_<family>_arm_delay, the spec's delay(ms)) in a real process: the call
# sleeps its milliseconds under the thread name a watch from outside reads (this test,
# another process, as the runner watches a worker), then goes through; its name comes
# back; the call is counted among those the window acted on.
DELAYED = """
import ctypes, sys, threading, time
lib = ctypes.CDLL(None)
family = sys.argv[1]
arm = getattr(lib, f"fi_{family}_arm_delay")
failures = getattr(lib, f"fi_{family}_failures")
failures.restype = ctypes.c_ulong
assert arm(0, 0, 1) == -1, "a delay of 0 ms is refused"
print("ready", flush=True)
sys.stdin.readline()
before = failures()
assert arm(400, 0, 1) == 0
t0 = time.monotonic()
if family == "pthread_create":
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()
else:
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    p = libc.malloc(64)
    assert p, "served after the delay"
    libc.free(ctypes.c_void_p(p))
print(round(time.monotonic() - t0, 2), failures() - before, flush=True)
"""


def _names(pid: int) -> set:
    out = set()
    for t in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out.add((t / "comm").read_text().strip())
        except OSError:
            pass
    return out


@pytest.mark.parametrize("family", ["pthread_create", "malloc"])
def test_delay_window(built, family):
    p = subprocess.Popen([sys.executable, "-c", DELAYED, family], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "LD_PRELOAD": str(built.preload(family))})
    try:
        assert p.stdout.readline().strip() == "ready", p.stderr.read()
        p.stdin.write("go\n")
        p.stdin.flush()
        seen = set()
        while p.poll() is None:
            seen |= _names(p.pid)
            time.sleep(0.01)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 0, err[-2000:]
    took, acted = out.split()
    assert float(took) >= 0.4, "the call slept its 400 ms"
    assert int(acted) == 1 and "ffdnn-delay" in seen, (out, seen)
