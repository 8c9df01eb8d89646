"""The command killed, for real, at each stage (a tree's copy, its compile, a module's
compile, a sweep with and without fork servers), by SIGTERM and by SIGKILL: afterwards
no process it started is left (none carries its scratch cache in its environment), no
`.tmp-*` in the cache and no worker's temporary directory."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.paths import PROJECT, cache_root
from tests.conftest import BACKENDS

pytestmark = [pytest.mark.trees, pytest.mark.base]


def scratch(tmp_path, trees=("base",), ext=False):
    """A cache of its own: the real cache's downloads and models, the real entries of
    `trees` (each name a prefix; "*" every one), with `ext` the compiled modules and the
    injectors too. What the command builds is built here."""
    real, cache = cache_root(), tmp_path / "cache"
    (cache / "trees").mkdir(parents=True)
    for part in ("src", "backends", "apt", "packages", "models", "clips"):
        if (real / part).exists():
            os.symlink(real / part, cache / part)
    for e in (real / "trees").iterdir():
        if not e.name.startswith(".tmp-") and any(
                t == "*" or e.name.startswith(f"{t}-") for t in trees):
            os.symlink(e, cache / "trees" / e.name)
    if ext:
        (cache / "ext").mkdir()
        for e in (real / "ext").iterdir():
            if not e.name.startswith(".tmp-"):
                os.symlink(e, cache / "ext" / e.name)
        for e in real.glob("injectors-*"):
            os.symlink(e, cache / e.name)
    (tmp_path / "tmp").mkdir()
    return cache


def started_by(cache: Path) -> list:
    """Processes whose environment names this cache: every one the command started."""
    out, mark = [], f"FFDNN_CACHE={cache}\0".encode()
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                env = Path(f"/proc/{pid}/environ").read_bytes()
                if mark in env:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                    out.append(f"{pid}: {cmd[:120].decode(errors='replace')}")
            except OSError:
                continue
    return out


def kill_at(cache: Path, marker: str, sig, *args, env=None) -> tuple:
    """Run the command; once `marker` is on its stderr (and a second later), send `sig`.
    (exit status, stderr): after the processes it started are gone (or 20 s passed)."""
    env = {**os.environ, "FFDNN_CACHE": str(cache), "TMPDIR": str(cache.parent / "tmp"),
           "FFDNN_BACKENDS": BACKENDS, **(env or {})}
    with subprocess.Popen([sys.executable, "-m", "harness", *args], cwd=PROJECT, env=env,
                          stderr=subprocess.PIPE, text=True) as p:
        seen = []
        for line in p.stderr:
            seen.append(line)
            if marker in line:
                time.sleep(1.0)
                p.send_signal(sig)
                break
        else:
            pytest.fail(f"never reached {marker!r}: {''.join(seen)[-2000:]}")
        err = "".join(seen) + p.stderr.read()
        status = p.wait(60)
    deadline = time.monotonic() + 20
    while started_by(cache) and time.monotonic() < deadline:
        time.sleep(0.2)
    return status, err


def nothing_left(cache: Path, status: int, sig, err: str) -> None:
    assert status == (128 + sig if sig != signal.SIGKILL else -sig), err[-2000:]
    if sig == signal.SIGTERM:
        assert err.strip().splitlines()[-1].startswith("error: interrupted (SIGTERM)"), err
    assert started_by(cache) == [], "processes left"
    assert list(cache.rglob(".tmp-*")) == [], "temporaries left in the cache"
    tmp = cache.parent / "tmp"
    assert [p.name for p in tmp.iterdir() if p.name.startswith(("ffdnn-", "tmp"))] == [], \
        "worker directories left"


SIGNALS = [pytest.param(signal.SIGTERM, id="TERM"), pytest.param(signal.SIGKILL, id="KILL")]


# where a build is killed (the progress line it is killed at), what it builds, and the
# cache directory that must hold nothing of it afterwards
BUILD_STEPS = {
    "copying-a-tree": ("] copy: source and objects of base", "before", "trees/before-*"),
    "compiling-a-tree": ("] compile: 1 object", "before", "trees/before-*"),
    "compiling-a-module": ("] module: compiling", "base", "ext/*"),
}


@pytest.mark.parametrize("sig", SIGNALS)
@pytest.mark.parametrize("step", BUILD_STEPS)
def test_killed_while_building(tree, tmp_path, sig, step):
    """TERM or KILL while a tree is copied, compiled, or its module compiled: no process,
    no .tmp-*, and nothing of what was being built left in the cache."""
    line, name, left = BUILD_STEPS[step]
    tree("base")
    cache = scratch(tmp_path)
    status, err = kill_at(cache, line, sig, "build", "--tree", name)
    nothing_left(cache, status, sig, err)
    assert not list(cache.glob(left))


@pytest.mark.onnx
@pytest.mark.after
@pytest.mark.parametrize("forkserver", ["1", "0"], ids=["forkserver", "fresh"])
@pytest.mark.parametrize("sig", SIGNALS)
def test_killed_in_a_sweep(tree, tmp_path, sig, forkserver):
    from harness.compile import ffi_build
    ffi_build.build(tree("after"))  # in the real cache, once: the sweep compiles nothing
    cache = scratch(tmp_path, trees=("*",), ext=True)
    status, err = kill_at(cache, "after-onnx-dnn_processing-sweep-malloc", sig,
                          "sweep", "--build", "after", "--backend-name", "onnx",
                          "--fault", "malloc", "--results", "",
                          env={"FFDNN_FORKSERVER": forkserver})
    nothing_left(cache, status, sig, err)
