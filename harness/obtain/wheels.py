"""Wheels fetched for what the harness takes from them, not for the running interpreter.

A backend's wheel is only a carrier of its C library and headers, which do not depend
on the Python version: so pip is asked for this machine's platform and any CPython tag
that has the pinned release (the running interpreter's first, then the newest), and
only when no tag has it for the newest release of the pin's line (2.18.0 -> 2.18.*).
"""

import os
import platform
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from harness.errors import BackendError

# tried after the running interpreter's own, newest first
PYTHON_TAGS = ("3.13", "3.12", "3.11", "3.10")


def python_tags() -> list:
    own = f"{sys.version_info.major}.{sys.version_info.minor}"
    return [own] + [t for t in PYTHON_TAGS if t != own]


def platforms() -> list:
    """The manylinux tags this machine runs (its glibc and architecture), newest first;
    empty where that cannot be told (pip then uses the running interpreter's)."""
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        libc = ""
    name, _, version = libc.partition(" ")
    arch = platform.machine()
    if name != "glibc" or not arch or not version.startswith("2."):
        return []
    minor = int(version.split(".")[1])
    tags = [f"manylinux_2_{m}_{arch}" for m in range(minor, 16, -1)]
    return tags + [f"manylinux2014_{arch}", f"linux_{arch}"]


def pip_args(python: str, index: str | None = None, tags=None, deps=False) -> list:
    """pip's options for one wheel (with `deps`, its dependencies too): a Python tag
    ("" for a pure-Python wheel) on this machine's platforms, or on the platform `tags`."""
    args = ([] if deps else ["--no-deps"]) + ["--only-binary=:all:"] + \
        (["--python-version", python] if python else [])
    for p in platforms() if tags is None else tags:
        args += ["--platform", p]
    if index:
        args += ["--index-url", index]
    return args


def line_of(version: str) -> str:
    """2.18.0 -> 2.18.*: the release line a fallback may take the newest of."""
    parts = version.split(".")
    return ".".join(parts[:2]) + ".*" if len(parts) > 2 else version


def pip_error(stderr: str, none: str) -> str:
    """pip's last `ERROR:` line (the one naming what it could not find), else `none`."""
    return next((l for l in reversed(stderr.splitlines()) if l.startswith("ERROR:")), none)


def _say(text: str) -> None:
    print(f"fetch: {text}", file=sys.stderr, flush=True)


def download(package: str, version: str, work: Path, index: str | None = None) -> Path:
    """One wheel of `package`, no dependencies, into `work`: the pin under the first
    Python tag that has it, else the newest of its line. One error line naming what
    was tried when nothing fits."""
    pin, line = f"{package}=={version}", f"{package}=={line_of(version)}"
    last = "no wheel"
    for spec in dict.fromkeys((pin, line)):
        for python in python_tags():
            with tempfile.TemporaryDirectory(prefix="ffdnn-pip-", dir=work) as tmp:
                r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", tmp,
                                    *pip_args(python, index), spec],
                                   capture_output=True, text=True)
                wheels = sorted(Path(tmp).glob("*.whl"))
                if r.returncode == 0 and wheels:
                    if spec != pin:
                        _say(f"{pin} has no wheel for this platform; took {wheels[0].name}")
                    got = work / wheels[0].name
                    os.replace(wheels[0], got)
                    return got
                last = pip_error(r.stderr, last)
    where = f" from {index}" if index else ""
    raise BackendError(f"pip could not fetch {package}=={version} (nor {line_of(version)}) "
                       f"for Python {', '.join(python_tags())} on "
                       f"{(platforms() or ['this platform'])[0]}{where}: {last}")


def unzip(wheel: Path, dest: Path, *prefixes: str) -> None:
    """Unpack the wheel, or only the members under `prefixes` (the C parts of a wheel
    whose Python part would be 140-180 MB more)."""
    with zipfile.ZipFile(wheel) as z:
        names = [n for n in z.namelist() if n.startswith(prefixes)] if prefixes else None
        z.extractall(dest, members=names)


def fetch(package: str, version: str, dest: Path, *prefixes: str, index=None) -> dict:
    """Fetch and unpack one wheel; return what it really was, for `versions`: the
    version from its file name (a local label such as +cpu is a different build) and
    the file name itself (Python tag, build tag, platform)."""
    with tempfile.TemporaryDirectory(prefix="ffdnn-whl-") as work:
        _say(f"{package}=={version} wheel (C library and headers only)")
        wheel = download(package, version, Path(work), index)
        unzip(wheel, dest, *prefixes)
    return {package: wheel.name.split("-")[1], "wheel": wheel.name}
