"""What the backend modules' installers share: a pinned wheel's C parts, the checks that
name a missing piece in one line, and the symlinks configure and the loader look for."""

import os
import shutil
import subprocess
from pathlib import Path

from harness.errors import BackendError
from harness.obtain import wheels


def wheel(spec: str, dest: Path, *prefixes: str) -> dict:
    """Fetch and unpack the C parts of one pinned wheel (harness/obtain/wheels.py: any Python
    tag that has it, this machine's platform); what it really was, for `versions`."""
    package, version = spec.split("==")
    return wheels.fetch(package, version, dest, *prefixes)


def need(what: str, *paths: Path) -> None:
    """A piece the wheel should have shipped: one line naming the first one missing."""
    for p in paths:
        if not p.exists():
            raise BackendError(f"{what} has no {p.name} (looked for {p})")


def one(directory: Path, pattern: str, what: str) -> Path:
    found = sorted(directory.glob(pattern))
    if not found:
        raise BackendError(f"{what} has no {pattern} in {directory}")
    return found[-1]


def need_system_lib(name: str, package: str) -> None:
    """-l<name> in extra libs links against the machine's lib<name>.so (a -dev package)."""
    cc = shutil.which("cc") or shutil.which("gcc") or "cc"
    r = subprocess.run([cc, f"-print-file-name=lib{name}.so"], capture_output=True, text=True)
    if not os.path.isabs(r.stdout.strip()):
        raise BackendError(f"-l{name} needs lib{name}.so: apt-get install {package}")


def link(target: Path, *names: Path) -> None:
    for name in names:
        name.parent.mkdir(parents=True, exist_ok=True)
        if not name.exists():
            os.symlink(os.path.relpath(target, name.parent), name)
