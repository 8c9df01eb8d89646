"""A private apt state for Debian source and sid packages (and a stable suite's source
packages, in a state of their own), never touching the system's.

The mirror is read from the machine's own apt configuration, so no host name is
written here.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

from harness.errors import SourceError, first_error

APT_ETC = Path("/etc/apt")
OS_RELEASE = Path("/etc/os-release")
MIRROR_VARIABLE = "FFDNN_DEBIAN_MIRROR"


def _one_line_uris(text: str):
    """(uri, suite) of each `deb`/`deb-src` line of a one-line sources.list; the
    bracketed options (`[arch=amd64 signed-by=...]`) may hold spaces."""
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words or words[0] not in ("deb", "deb-src"):
            continue
        words = words[1:]
        if words and words[0].startswith("["):
            while words and not words[0].endswith("]"):
                words = words[1:]
            words = words[1:]
        if len(words) >= 2:
            yield words[0], words[1]


def _deb822_uris(text: str):
    """(uri, suite) of each enabled stanza of a deb822 `.sources` file."""
    for stanza in re.split(r"\n\s*\n", text):
        fields, key = {}, None
        for line in stanza.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            if line[0].isspace() and key:  # a continuation line
                fields[key] += " " + line.strip()
                continue
            key, _, value = line.partition(":")
            key = key.strip().lower()
            fields[key] = value.strip()
        types = fields.get("types", "").split()
        if fields.get("enabled", "yes").lower() == "no" or not set(types) & {"deb", "deb-src"}:
            continue
        for uri in fields.get("uris", "").split():
            for suite in fields.get("suites", "").split() or [""]:
                yield uri, suite


def mirror_in(files: list) -> str | None:
    """The first archive URI (not a security one) in `files`, read by their kind:
    deb822 for `*.sources`, one-line otherwise."""
    for path in files:
        if not path.is_file():
            continue
        parse = _deb822_uris if path.suffix == ".sources" else _one_line_uris
        for uri, suite in parse(path.read_text(errors="replace")):
            if "security" not in uri and not suite.endswith("-security"):
                return uri.rstrip("/")
    return None


def os_id(os_release: Path = OS_RELEASE) -> str:
    if not os_release.is_file():
        return ""
    m = re.search(r'^ID="?([^"\n]*)"?$', os_release.read_text(), re.M)
    return m.group(1) if m else ""


def debian_mirror(etc: Path = APT_ETC, os_release: Path = OS_RELEASE) -> str:
    """A Debian mirror: FFDNN_DEBIAN_MIRROR, else the machine's own apt configuration
    (deb822 `sources.list.d/*.sources`, then one-line `sources.list` and
    `sources.list.d/*.list`) when the machine is Debian. An Ubuntu machine's archive
    holds other packages under the same names, so it is never taken for Debian's."""
    if os.environ.get(MIRROR_VARIABLE):
        return os.environ[MIRROR_VARIABLE].rstrip("/")
    system = os_id(os_release)
    if system and system != "debian":
        raise SourceError(f"this machine's apt is not Debian's ({system}): set "
                          f"{MIRROR_VARIABLE} to a Debian mirror's URL")
    parts = etc / "sources.list.d"
    files = sorted(parts.glob("*.sources")) + [etc / "sources.list"] + sorted(parts.glob("*.list"))
    mirror = mirror_in(files)
    if not mirror:
        raise SourceError(f"no Debian mirror in the machine's apt configuration ({etc}): "
                          f"set {MIRROR_VARIABLE}")
    return mirror


# the suites a private state reads by default: source packages of sid and experimental,
# binary packages of sid
SID = ("sid", "experimental")


class PrivateApt:
    """apt-get with its own sources, lists and cache under `root`, reading `suites`'
    source packages (and, with `binary`, the first one's binary packages)."""

    def __init__(self, root: Path, suites: tuple = SID, binary: bool = True):
        self.root = root
        self.suites = suites
        self.binary = binary
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

    def sources_list(self, mirror: str) -> str:
        return ("".join(f"deb-src {mirror} {suite} main\n" for suite in self.suites)
                + (f"deb {mirror} {self.suites[0]} main\n" if self.binary else ""))

    def update(self) -> None:
        if self._updated:
            return
        mirror = debian_mirror()
        for sub in ("lists/partial", "cache/archives/partial"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        (self.root / "sources.list").write_text(self.sources_list(mirror))
        print(f"fetch: apt-get update (private state, Debian {self.suites[0]})",
              file=sys.stderr, flush=True)
        r = self._run(["update"], self.root)
        if r.returncode != 0:
            raise SourceError(f"apt-get update failed: {first_error(r.stderr)}")
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
            raise SourceError(f"apt-get download {package} failed: {first_error(r.stderr)}")
        return debs[-1]


_instances: dict = {}


def private(root: Path, suites: tuple = SID, binary: bool = True) -> PrivateApt:
    """One PrivateApt per state directory, so a process runs `apt-get update` once."""
    return _instances.setdefault(root, PrivateApt(root, suites, binary))


def state_for(cache: Path, suite: str) -> PrivateApt:
    """The private state that reads a Debian suite's source packages: sid's (and
    experimental's) under `cache`/apt, another suite's (bookworm) under `cache`/apt-<suite>."""
    if suite in SID:
        return private(cache / "apt")
    return private(cache / f"apt-{suite}", (suite,), binary=False)
