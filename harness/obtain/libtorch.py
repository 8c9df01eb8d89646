"""Where a CPU LibTorch comes from. Never a CUDA build: on the public package index the
Linux torch wheel is one (hundreds of MB, requiring several GB of nvidia-* wheels), and
the harness needs only the CPU library and its headers.

In order, the first that gives one:
1. `FFDNN_LIBTORCH=DIR`: an unpacked LibTorch (DIR/include, DIR/lib), taken as it is;
2. `FFDNN_TORCH_INDEX=URL`: the pinned torch wheel from that index (PyTorch's CPU wheel
   index, for a machine that reaches it);
3. the pinned CPU wheel already in the cache;
4. the distribution's own `libtorch-dev`, when it is installed;
5. the pinned wheel from pip's configured index, when pip's report of it (metadata
   only, nothing downloaded) says it is a CPU build;
6. the CPU part of that wheel when it is a CUDA build (the public index's for Linux),
   about 540 MB where the wheel with its dependencies is several GB
   (harness/obtain/libtorch_cpupart.py).
Each way is a member of Way (its name is what `python -m harness.obtain.libtorch`
prints), and each has its installer in INSTALLERS.
Otherwise one error line naming each way. `python -m harness.obtain.libtorch` prints which
one `make` would take, and `builds/deps.sh` installs the distribution's package as root
when that is the only one.
"""

import enum
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from harness.obtain import wheels
from harness.errors import BackendError, ExitStatus
from harness.paths import digest

DIR_VARIABLE, INDEX_VARIABLE = "FFDNN_LIBTORCH", "FFDNN_TORCH_INDEX"
VERSION = "2.13.0"  # the pinned torch release whose CPU LibTorch the trees link (backends.BACKENDS)
PACKAGE = "libtorch-dev"
# the oldest distribution LibTorch taken: FFmpeg's torch backend calls at::hasXPU() and
# includes ATen's XPU hooks, which LibTorch 1.13 (Debian bookworm's) does not have
SYSTEM_MIN = "2.0"
LIBS = ("torch", "c10", "torch_cpu")  # what configure links: -ltorch -lc10 -ltorch_cpu
CPU_PART = "-cpu-part"  # the cache entry's suffix for Way.CPU_PART


class Way(str, enum.Enum):
    """The ways to a CPU LibTorch, in the order they are tried (the module's docstring);
    each prints as its name, which builds/deps.sh reads."""
    USER = "user"          # FFDNN_LIBTORCH: an unpacked LibTorch
    INDEX = "index"        # FFDNN_TORCH_INDEX: the pinned wheel from that index
    CACHED = "cached"      # a LibTorch already in the cache
    SYSTEM = "system"      # the distribution's libtorch-dev, installed
    PIP = "pip"            # the pinned wheel from pip's index, a CPU build
    CPU_PART = "cpu-part"  # the CPU part of pip's CUDA wheel (libtorch_cpupart.py)
    NONE = "none"          # no way: why, in the detail

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Route:
    kind: Way
    entry: str      # the cache entry's directory name under backends/
    detail: str     # a path, an index, a version, or why there is none

    def __post_init__(self):
        object.__setattr__(self, "kind", Way(self.kind))  # "index" is Way.INDEX


def layout(include: Path, lib: Path) -> dict:
    """What configure and the loader need from a LibTorch laid out as include/ + lib/."""
    api = include / "torch/csrc/api/include"
    files = [api / "torch/torch.h", include / "torch/script.h",
             *(lib / f"lib{n}.so" for n in LIBS)]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise BackendError(f"LibTorch at {include.parent} has no {missing[0]}")
    if (lib / "libtorch_cuda.so").exists():
        raise BackendError(f"LibTorch at {lib} is a CUDA build (libtorch_cuda.so); "
                           "the CPU build is needed")
    flags = [f"-I{api}"] if include == Path("/usr/include") else [f"-I{include}", f"-I{api}"]
    system = str(lib).startswith("/usr/lib")
    return {"configure": ["--enable-libtorch"], "cflags": flags,
            "ldflags": [] if system else [f"-L{lib}", f"-Wl,-rpath,{lib}"],
            "runtime_dirs": [str(lib)], "files": [str(f) for f in files]}


def multiarch_lib() -> Path:
    return Path("/usr/lib") / (sysconfig.get_config_var("MULTIARCH") or "")


def system_version() -> str:
    """The installed libtorch-dev's version, '' when it is not installed."""
    if not shutil.which("dpkg-query"):
        return ""
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Status} ${Version}", PACKAGE],
                       capture_output=True, text=True)
    words = r.stdout.split()
    return words[-1] if r.returncode == 0 and "installed" in words[:3] else ""


def apt_candidate() -> str:
    """The version `apt-get install libtorch-dev` would install, '' if none."""
    if not shutil.which("apt-cache"):
        return ""
    r = subprocess.run(["apt-cache", "policy", PACKAGE], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.strip().startswith("Candidate:"):
            v = line.split(":", 1)[1].strip()
            return "" if v == "(none)" else v
    return ""


def pip_report(version: str, index: str | None = None) -> tuple:
    """(CPU build?, what it is) for the pinned torch on pip's index, from pip's install
    report: metadata only, nothing is unpacked (and, with the index's metadata files,
    nothing large is downloaded). A CUDA build requires nvidia-* or cuda-* packages."""
    last = "no report"
    for python in wheels.python_tags():
        with tempfile.TemporaryDirectory(prefix="ffdnn-torch-") as tmp:
            r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--dry-run",
                                "--ignore-installed", "--target", tmp, "--report",
                                f"{tmp}/report.json", *wheels.pip_args(python, index),
                                f"torch=={version}"], capture_output=True, text=True)
            if r.returncode != 0 or not Path(tmp, "report.json").is_file():
                last = wheels.pip_error(r.stderr, last)
                continue
            item = json.loads(Path(tmp, "report.json").read_text())["install"][0]
        name = urllib.parse.unquote(item["download_info"]["url"].rsplit("/", 1)[-1])
        needs = [re.split(r"[\s;\[<>=!~(]", d)[0]
                 for d in item["metadata"].get("requires_dist") or []
                 if d.startswith(("nvidia-", "cuda-"))]
        if needs:
            return False, f"{name} is a CUDA build (requires {', '.join(needs[:3])}, ...)"
        return True, name
    return False, f"torch=={version} not found ({last})"


def route(version: str, cache: Path) -> Route:
    """The first way to a CPU LibTorch, without fetching anything."""
    pinned = f"torch-{version}"
    if os.environ.get(DIR_VARIABLE):
        d = Path(os.environ[DIR_VARIABLE]).expanduser().resolve()
        return Route(Way.USER, "libtorch-dir-" + digest(str(d))[:12], str(d))
    if os.environ.get(INDEX_VARIABLE):
        return Route(Way.INDEX, pinned, os.environ[INDEX_VARIABLE])
    for entry in (pinned, pinned + CPU_PART):
        if (cache / entry / "backend.json").is_file():
            return Route(Way.CACHED, entry, str(cache / entry))
    installed, old = system_version(), ""
    if installed and new_enough(installed):
        return Route(Way.SYSTEM, f"{PACKAGE}-{installed}", installed)
    if installed:
        old = f"; the installed {PACKAGE} {installed} is older than {SYSTEM_MIN}"
    cpu, what = pip_report(version)
    if cpu:
        return Route(Way.PIP, pinned, what)
    if "is a CUDA build" in what:
        return Route(Way.CPU_PART, pinned + CPU_PART, what + old)
    candidate = apt_candidate()
    if candidate and not installed:
        what += f"; apt has {PACKAGE} {candidate}" + \
            ("" if new_enough(candidate) else f", older than {SYSTEM_MIN}")
    return Route(Way.NONE, "", what + old)


def new_enough(debian_version: str) -> bool:
    """Is a distribution version (2.6.0+dfsg-7, 1:2.6.0-1) at least SYSTEM_MIN?"""
    upstream = debian_version.split(":", 1)[-1].split("+")[0].split("-")[0]
    try:
        have = tuple(int(x) for x in upstream.split(".")[:2])
    except ValueError:
        return False
    return have >= tuple(int(x) for x in SYSTEM_MIN.split("."))


def no_cpu_libtorch(why: str) -> BackendError:
    return BackendError(f"no CPU LibTorch: {why}; set {INDEX_VARIABLE} to PyTorch's CPU "
                        f"wheel index or {DIR_VARIABLE} to an unpacked LibTorch, install the "
                        f"distribution's {PACKAGE} ({SYSTEM_MIN} or newer), or leave LibTorch "
                        "out (BACKENDS=onnx,openvino,tf)")


def install(r: Route, version: str, dest: Path) -> dict:
    """Make the cache entry `dest` for route `r`; the backend's info."""
    return INSTALLERS[r.kind](r, version, dest)


def _none(r: Route, version: str, dest: Path) -> dict:
    raise no_cpu_libtorch(r.detail)


def _user(r: Route, version: str, dest: Path) -> dict:
    d = Path(r.detail)
    info = layout(d / "include", d / "lib")
    return {"versions": {"libtorch": _version_of(d / "include"), "dir": str(d)}, **info}


def _system(r: Route, version: str, dest: Path) -> dict:
    info = layout(Path("/usr/include"), multiarch_lib())
    return {"versions": {PACKAGE: r.detail}, **info}


def _cpu_part(r: Route, version: str, dest: Path) -> dict:
    from harness.obtain import libtorch_cpupart
    return libtorch_cpupart.install(version, dest, layout)


def _wheel(r: Route, version: str, dest: Path) -> dict:
    """The pinned wheel, a CPU build: from the index named, or pip's when it says so."""
    index = r.detail if r.kind is Way.INDEX else None
    if r.kind is not Way.INDEX:
        cpu, what = pip_report(version)
        if not cpu:
            raise no_cpu_libtorch(what)
    versions = wheels.fetch("torch", version, dest / "wheel", "torch/include/", "torch/lib/",
                            index=index)
    t = dest / "wheel/torch"
    if (t / "lib/libtorch_cuda.so").exists():
        raise no_cpu_libtorch(f"torch=={version} resolved to a CUDA build "
                              f"({versions['wheel']})")
    return {"versions": versions, **layout(t / "include", t / "lib")}


INSTALLERS = {Way.NONE: _none, Way.USER: _user, Way.SYSTEM: _system,
              Way.CPU_PART: _cpu_part, Way.INDEX: _wheel, Way.CACHED: _wheel, Way.PIP: _wheel}


def _version_of(include: Path) -> str:
    """TORCH_VERSION from torch/version.h (an unpacked LibTorch says it there)."""
    h = include / "torch/csrc/api/include/torch/version.h"
    if h.is_file():
        for line in h.read_text(errors="replace").splitlines():
            if "#define TORCH_VERSION " in line:
                return line.split()[-1].strip('"')
    return "unknown"


def main() -> int:
    """Print the route `make` would take, `<kind> <detail>` (builds/deps.sh reads the
    kind: `none` is when only the distribution's package is left)."""
    from harness.paths import cache_root
    try:
        r = route(VERSION, cache_root() / "backends")
    except BackendError as e:
        print(f"error: {e}", file=sys.stderr)
        return ExitStatus.BAD_INPUT
    print(f"{r.kind} {r.detail}")
    return ExitStatus.OK


if __name__ == "__main__":
    sys.exit(main())
