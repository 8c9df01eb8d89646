"""Tests for the malloc() family fault injector (injectors/malloc.fi), built through
harness.compile.injector_build.build like the harness builds it."""
import os
import subprocess
import sys

import pytest

from harness.compile import injector_build as injectors

pytestmark = pytest.mark.injectors

TESTS_DIR = injectors.SRC_DIR / "tests"
EXPECTED = [
    "ok unarmed malloc 1: ptr 0",
    "ok unarmed malloc 2: ptr 0",
    "ok arm ENOMEM skip 1 count 1: 0",
    "ok armed malloc 1: ptr 0",
    "ok armed malloc 1 let through, poisoned: 1",
    "ok armed malloc 2: NULL ENOMEM",
    "ok armed malloc 3: ptr 0",
    "ok calls: 5",
    "ok eligible: 3",
    "ok failures: 1",
    "ok arm ENOMEM skip 0 count 3: 0",
    "ok armed posix_memalign: returns ENOMEM",
    "ok armed calloc: NULL ENOMEM",
    "ok arm ENOMEM skip 0 count 1: 0",
    "ok armed realloc: NULL ENOMEM",
    "ok posix_memalign, count exhausted: returns 0",
    "ok posix_memalign let through, poisoned: 1",
    "ok arm EAGAIN skip 0 count 1: 0",
    "ok posix_memalign returns the armed error: returns EAGAIN",
    "ok disarmed malloc: ptr 0",
    "ok target libc.so.6: 0",
    "ok arm ENOMEM skip 0 count 1: 0",
    "ok malloc, caller not targeted: ptr 0",
    "ok strdup, libc targeted: NULL ENOMEM",
    "ok target self: 0",
    "ok arm ENOMEM skip 0 count 1: 0",
    "ok strdup, libc not targeted: ptr 0",
    "ok malloc, caller targeted: NULL ENOMEM",
    "ok target no such object: -1",
    "ok arm ENOMEM skip 0 count 1: 0",
    "ok malloc, unmatched target: ptr 0",
    "ok target any: 0",
    "ok malloc, any caller: NULL ENOMEM",
    "ok count exhausted malloc: ptr 0",
    "ok arm error 0: -1",
    "ok total calls: 19",
    "ok total eligible: 12",
    "ok total failures: 8",
    "ok leaks: track self: 0",
    "ok leaks: none yet: 0 blocks, 0 bytes, 0 untracked",
    "ok leaks: posix_memalign: 0",
    "ok leaks: 4 kept, libc's not: 4 blocks, 156 bytes, 0 untracked",
    "ok leaks: one freed, one grown: 3 blocks, 4116 bytes, 0 untracked",
    "ok leaks: the one left has a stack: size 4000",
    "ok leaks: no second: -1",
    "ok leaks: all freed: 0 blocks, 0 bytes, 0 untracked",
    "ok leaks: two streams kept: blocks 2",
    "ok leaks: one closed: blocks 1",
    "ok leaks: both closed: 0 blocks, 0 bytes, 0 untracked",
    "ok leaks: the table full: 24576 blocks, 24576 bytes, 1 untracked",
    "ok leaks: the table emptied: 0 blocks, 0 bytes, 1 untracked",
    "ok leaks: track again: 0",
    "ok leaks: forgotten: 0 blocks, 0 bytes, 0 untracked",
    "ok leaks: stop: 0",
    "ok leaks: kept until stopped: 1 blocks, 10 bytes, 0 untracked",
    "ok leaks: freed once stopped: 0 blocks, 0 bytes, 0 untracked",
    "ok leaks: track no such object: -1",
    "ok leaks: none kept: 0 blocks, 0 bytes, 0 untracked",
]


@pytest.fixture(scope="session")
def test_malloc(tmp_path_factory):
    exe = tmp_path_factory.mktemp("test-malloc") / "test_malloc"
    _cc("-o", exe, TESTS_DIR / "test_malloc.c", *injectors.LDLIBS)
    return exe


def _cc(*args):
    """Compile with the injector flags; warnings count as failures."""
    cmd = [injectors.CC, *injectors.CFLAGS, "-Werror", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr


def _run(args, **env):
    base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=60, env={**base, **env})
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


def test_built(built):
    assert built.malloc_so == built.dir / injectors.MALLOC_SO and built.malloc_so.is_file()
    assert built.preload_so.is_file() and built.wrap_object.is_file()


def test_preload_malloc(built, test_malloc):
    assert _run([test_malloc], LD_PRELOAD=str(built.malloc_so)) == (0, EXPECTED, "")


def test_preload_malloc_missing_fails(test_malloc):
    """Without the injector the C test must fail, not pass vacuously."""
    status, out, _ = _run([test_malloc])
    assert status == 1 and out[0].startswith("FAIL resolve fi_malloc_arm")


def test_preload_malloc_with_pthread_create(built, test_malloc):
    """Both interposers in one process, as a worker would run."""
    both = f"{built.preload_so} {built.malloc_so}"
    assert _run([test_malloc], LD_PRELOAD=both) == (0, EXPECTED, "")


def test_operator_new_kept(built, tmp_path):
    """What C++'s operator new returns to a tracked caller (new, new[], nothrow, aligned)
    is kept until operator delete frees it, as FFmpeg's LibTorch backend allocates its
    tensors; a bad_alloc thrown below the interposer reaches the caller's catch."""
    exe = tmp_path / "test_new"
    cmd = [os.environ.get("CXX", "c++"), "-O0", "-std=c++17", "-Wall", "-Wextra", "-Werror",
           "-o", str(exe), str(TESTS_DIR / "test_new.cpp"), *injectors.LDLIBS]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    assert _run([exe], LD_PRELOAD=str(built.malloc_so)) == (0, [
        "ok new, new[]: 2 blocks, 104 bytes",
        "ok nothrow, aligned: 4 blocks, 242 bytes",
        "ok all deleted: 0 blocks, 0 bytes",
        "ok bad_alloc: caught through the interposer",
        "ok none kept: 0 blocks, 0 bytes",
    ], "")
    assert _run([exe])[:2] == (1, ["FAIL resolve fi_malloc_leaks_track"])


def test_bootstrap_arena(test_malloc, tmp_path):
    """The test build allocates while resolving the real functions (as dlsym does on
    some C libraries): those blocks come from the arena and realloc() moves them out."""
    lib = tmp_path / "libfi_malloc_arena_test.so"
    _cc("-DFI_MALLOC_TEST_ARENA", f"-I{injectors.INCLUDE_DIR}", "-shared", "-o", lib,
        injectors.generated("malloc", "preload", tmp_path), *injectors.LDLIBS)
    assert _run([test_malloc], LD_PRELOAD=str(lib)) == (0, EXPECTED, "fi_malloc: arena ok\n")


def test_python_under_preload(built):
    """A whole interpreter runs on the interposer; arming it targeted at an object that
    never allocates leaves it untouched, and targeting works from ctypes."""
    code = "\n".join([
        "import ctypes, json",
        "lib = ctypes.CDLL(None)",
        "for n in ('fi_malloc_calls', 'fi_malloc_eligible', 'fi_malloc_failures'):",
        "    getattr(lib, n).restype = ctypes.c_ulong",
        "assert lib.fi_malloc_target_caller(b'libfi_malloc.so') == 0",
        "assert lib.fi_malloc_arm(12, 0, 1000) == 0",
        "before = lib.fi_malloc_calls()",
        "data = [bytes(1000 + i) for i in range(2000)]",
        "lib.fi_malloc_disarm()",
        "print(json.dumps([lib.fi_malloc_calls() > before, lib.fi_malloc_eligible(),",
        "                  lib.fi_malloc_failures()]))",
    ])
    status, out, err = _run([sys.executable, "-c", code], LD_PRELOAD=str(built.malloc_so))
    assert (status, out) == (0, ["[true, 0, 0]"]), err
