"""A pinned FFmpeg release's tarball (harness/obtain/releases.py pins them): found,
fetched and verified by sha256.

Order: a tarball the user names (--source or FFDNN_SOURCE), the cache, the
upstream release when the network allows, Debian's ffmpeg source package.
"""

import os
import shutil
import sys
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from harness.obtain import apt, debian
from harness.errors import SourceError
from harness.paths import atomic_file, cache_root, file_sha256


@dataclass(frozen=True)
class Release:
    version: str
    sha256: str
    size: int
    upstream_url: str
    debian_spec: str
    debian_name: str
    debian_suite: str = "sid"
    packaging: object = None  # harness.obtain.debian.Packaging: Debian's patches on top

    @property
    def name(self) -> str:
        """What --release calls it: `5.1.9`, or `debian:bookworm`."""
        return f"{debian.PREFIX}{self.packaging.suite}" if self.packaging else self.version

    def describe(self) -> str:
        """`FFmpeg 5.1.9`, or `FFmpeg 5.1.9 as Debian bookworm patches it (7:5.1.9-0+deb12u1)`."""
        p = self.packaging
        return f"FFmpeg {self.version}" + (
            f" as Debian {p.suite} patches it ({p.version})" if p else "")


def release(version: str, sha256: str, size: int, debian_revision,
            debian_suite: str = "sid") -> Release:
    """A release pinned by its tarball's sha256 and size, found upstream or as the orig
    tarball of Debian's `ffmpeg` source package of that revision (`4`, or a stable
    update's `0+deb13u1`) in that suite (sid, or a stable release's: `bookworm`)."""
    return Release(version, sha256, size,
                   upstream_url=f"https://ffmpeg.org/releases/ffmpeg-{version}.tar.xz",
                   debian_spec=f"ffmpeg=7:{version}-{debian_revision}",
                   debian_name=f"ffmpeg_{version}.orig.tar.xz", debian_suite=debian_suite)


def cached_path(release: Release) -> Path:
    return cache_root() / "src" / f"ffmpeg-{release.version}.tar.xz"


def verify(path: Path, release: Release) -> None:
    digest = file_sha256(path)
    if digest != release.sha256:
        raise SourceError(f"{path}: sha256 {digest} is not the pinned "
                          f"{release.sha256} of FFmpeg {release.version}")


def _store(path: Path, dest: Path, release: Release) -> Path:
    verify(path, release)
    with atomic_file(dest) as tmp:
        shutil.copyfile(path, tmp)
    return dest


def _from_upstream(release: Release, work: Path) -> Path | None:
    out = work / Path(release.upstream_url).name
    try:
        with urllib.request.urlopen(release.upstream_url, timeout=10) as r, open(out, "wb") as f:
            shutil.copyfileobj(r, f)
    except OSError:
        return None
    return out


def _from_debian(release: Release, work: Path) -> Path | None:
    if not shutil.which("apt-get"):
        return None
    apt.state_for(cache_root(), release.debian_suite).source(release.debian_spec, work)
    out = work / release.debian_name
    return out if out.is_file() else None


def fetch(user_source: str | None, release: Release) -> Path:
    """Return the path of a verified tarball of `release` in the cache."""
    dest = cached_path(release)
    user_source = user_source or os.environ.get("FFDNN_SOURCE")
    if user_source:
        path = Path(user_source).expanduser()
        if not path.is_file():
            raise SourceError(f"{path}: no such tarball")
        verify(path, release)  # a bad tarball is the one line, before any progress
        print(f"fetch: using {path}", file=sys.stderr, flush=True)
        return _store(path, dest, release)
    if dest.is_file():
        verify(dest, release)
        return dest
    with tempfile.TemporaryDirectory(prefix="ffdnn-fetch-") as work:
        for name, how in (("upstream", _from_upstream), ("Debian source package", _from_debian)):
            print(f"fetch: FFmpeg {release.version} from {name}", file=sys.stderr, flush=True)
            got = how(release, Path(work))
            if got and got.is_file():
                return _store(got, dest, release)
    raise SourceError(f"FFmpeg {release.version} tarball not reachable upstream or from "
                      "Debian; pass one with --source FILE")
