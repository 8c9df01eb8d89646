"""A private apt state for Debian source and sid packages, never touching the system's.

The mirror is read from the machine's own apt configuration, so no host name is
written here.
"""

import subprocess
from pathlib import Path

from harness.errors import SourceError

SOURCES_DIR = Path("/etc/apt/sources.list.d")


def debian_mirror() -> str:
    """The URI of the machine's Debian entry (deb822 `.sources` or one-line `.list`)."""
    candidates = sorted(SOURCES_DIR.glob("*.sources")) + [Path("/etc/apt/sources.list")]
    for path in candidates:
        if not path.is_file():
            continue
        for line in path.read_text().splitlines():
            words = line.split()
            if words[:1] == ["URIs:"] and len(words) > 1 and "security" not in words[1]:
                return words[1]
            if words[:1] == ["deb"] and "security" not in line:
                return next(w for w in words[1:] if "://" in w)
    raise SourceError("no Debian mirror in the machine's apt configuration (/etc/apt)")


class PrivateApt:
    """apt-get with its own sources, lists and cache under `root`."""

    def __init__(self, root: Path):
        self.root = root
        self._updated = False

    def _options(self) -> list[str]:
        r = self.root
        return ["-o", f"Dir::Etc::SourceList={r / 'sources.list'}",
                "-o", "Dir::Etc::SourceParts=/dev/null",
                "-o", f"Dir::State::Lists={r / 'lists'}",
                "-o", f"Dir::Cache={r / 'cache'}",
                "-o", "Acquire::Languages=none",
                "-o", "APT::Sandbox::User=root"]

    def _run(self, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run(["apt-get", *self._options(), *args], cwd=cwd,
                              capture_output=True, text=True)

    def update(self) -> None:
        if self._updated:
            return
        mirror = debian_mirror()
        for sub in ("lists/partial", "cache/archives/partial"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        (self.root / "sources.list").write_text(
            f"deb-src {mirror} sid main\ndeb-src {mirror} experimental main\n"
            f"deb {mirror} sid main\n")
        print("fetch: apt-get update (private state, Debian sid)", flush=True)
        r = self._run(["update"], self.root)
        if r.returncode != 0:
            raise SourceError(f"apt-get update failed: {last_line(r.stderr)}")
        self._updated = True

    def source(self, spec: str, dest: Path) -> None:
        """`apt-get source --download-only`; a missing .dsc is fine when the orig tarball came."""
        self.update()
        self._run(["source", "--download-only", spec], dest)

    def download(self, package: str, dest: Path) -> Path:
        self.update()
        r = self._run(["download", package], dest)
        debs = sorted(dest.glob(f"{package}_*.deb"))
        if r.returncode != 0 or not debs:
            raise SourceError(f"apt-get download {package} failed: {last_line(r.stderr)}")
        return debs[-1]


_instances: dict = {}


def private(root: Path) -> PrivateApt:
    """One PrivateApt per state directory, so a process runs `apt-get update` once."""
    return _instances.setdefault(root, PrivateApt(root))


def last_line(text: str) -> str:
    lines = [l for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if l.startswith("E:")]
    return (errors or lines or ["no output"])[0]
