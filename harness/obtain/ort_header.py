"""ONNX Runtime's C header: the onnxruntime wheel ships the library but no header.

One chain, each step tried in order (the C API is versioned, so an older header
against the wheel's newer library is fine):
1. `FFDNN_ORT_INCLUDE=DIR`: a directory the user names, holding onnxruntime_c_api.h
   (or DIR/onnxruntime/onnxruntime_c_api.h);
2. the distribution's own development package, where installed (Debian's and Ubuntu's
   libonnxruntime-dev put it in /usr/include/onnxruntime);
3. Debian's libonnxruntime-dev, downloaded through the private apt state (the mirror from
   the machine's apt configuration, or FFDNN_DEBIAN_MIRROR) and unpacked with dpkg-deb.
When all fail, one error line names each step and why it failed.
"""

import os
import shutil
import subprocess
from pathlib import Path

from harness.obtain import apt
from harness.errors import BackendError, HarnessError, first_error

VARIABLE = "FFDNN_ORT_INCLUDE"
HEADER = "onnxruntime_c_api.h"
PACKAGE = "libonnxruntime-dev"
SYSTEM_INCLUDE = Path("/usr/include/onnxruntime")


def _holding(d: Path) -> Path | None:
    for c in (d, d / "onnxruntime"):
        if (c / HEADER).is_file():
            return c
    return None


def _copy(src: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for h in src.glob("*.h"):
        shutil.copy2(h, dest / h.name)


def _user(dest: Path, work: Path) -> dict:
    value = os.environ.get(VARIABLE)
    if not value:
        raise HarnessError(f"{VARIABLE} not set")
    found = _holding(Path(value).expanduser())
    if not found:
        raise HarnessError(f"{VARIABLE}={value} has no {HEADER}")
    _copy(found, dest)
    return {"onnxruntime header": str(found)}


def _system(dest: Path, work: Path, include: Path = SYSTEM_INCLUDE) -> dict:
    found = _holding(include)
    if not found:
        raise HarnessError(f"{PACKAGE} not installed (no {include / HEADER})")
    _copy(found, dest)
    version = ""
    if shutil.which("dpkg-query"):
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", PACKAGE],
                           capture_output=True, text=True)
        version = r.stdout.strip() if r.returncode == 0 else ""
    return {PACKAGE: f"{version or 'unknown'} (installed)"}


def _debian(dest: Path, work: Path) -> dict:
    from harness.paths import cache_root
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        raise HarnessError("apt-get and dpkg-deb are needed to fetch Debian's package")
    deb = apt.private(cache_root() / "apt").download(PACKAGE, work)
    r = subprocess.run(["dpkg-deb", "-x", str(deb), str(work / "deb")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise HarnessError(f"dpkg-deb -x {deb.name} failed: {first_error(r.stderr)}")
    found = _holding(work / "deb/usr/include")
    if not found:
        raise HarnessError(f"{deb.name} has no {HEADER}")
    _copy(found, dest)
    return {PACKAGE: deb.name.split("_")[1]}


STEPS = ((VARIABLE, _user), (f"installed {PACKAGE}", _system),
         (f"Debian's {PACKAGE}", _debian))


def install(dest: Path, work: Path, steps=STEPS) -> dict:
    """Put the C headers into `dest`; return what they came from (for `versions`)."""
    why = []
    for name, step in steps:
        try:
            return step(dest, work)
        except HarnessError as e:
            why.append(f"{name}: {e}")
    raise BackendError(f"no ONNX Runtime C header ({HEADER}): " + "; ".join(why))
