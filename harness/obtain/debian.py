"""A tree as a Debian suite builds it (`--release debian:bookworm`): the release's orig
tarball with the patches of Debian's source package applied (its
`debian/patches/series`, in order, as dpkg-source applies them before a build).

The package's debian tarball is pinned by its sha256 like the orig tarball
(harness/obtain/releases.py) and fetched through a private apt state of the suite
(harness/obtain/apt.py). What Debian's package configures is not taken: the tree is
configured as every tree of the harness is, so only Debian's source changes count.
"""

import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.errors import BuildError, SourceError, first_error
from harness.obtain import apt
from harness.paths import atomic_file, cache_root, file_sha256

PREFIX = "debian:"  # --release debian:SUITE


@dataclass(frozen=True)
class Packaging:
    """Debian's packaging of a release in one suite: the source package's version and its
    debian tarball, pinned."""
    suite: str
    version: str   # the source package's, epoch included: 7:5.1.9-0+deb12u1
    sha256: str
    size: int

    @property
    def name(self) -> str:  # ffmpeg_5.1.9-0+deb12u1.debian.tar.xz
        return f"ffmpeg_{self.version.split(':', 1)[-1]}.debian.tar.xz"


def cached_path(pkg: Packaging) -> Path:
    return cache_root() / "src" / pkg.name


def verify(path: Path, pkg: Packaging) -> None:
    digest = file_sha256(path)
    if digest != pkg.sha256:
        raise SourceError(f"{path}: sha256 {digest} is not the pinned {pkg.sha256} of "
                          f"Debian's ffmpeg {pkg.version} ({pkg.suite})")


def fetch(pkg: Packaging) -> Path:
    """The verified debian tarball, from the cache or Debian's source package."""
    dest = cached_path(pkg)
    if dest.is_file():
        verify(dest, pkg)
        return dest
    if not shutil.which("apt-get"):
        raise SourceError(f"Debian's ffmpeg {pkg.version}: no apt-get here to fetch its "
                          "source package")
    print(f"fetch: Debian's ffmpeg {pkg.version} ({pkg.suite}) source package",
          file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="ffdnn-debian-") as work:
        apt.state_for(cache_root(), pkg.suite).source(f"ffmpeg={pkg.version}", Path(work))
        got = Path(work) / pkg.name
        if not got.is_file():
            raise SourceError(f"Debian's ffmpeg {pkg.version}: {pkg.name} is not on the "
                              f"mirror's {pkg.suite} (the suite may have moved on; "
                              "harness/obtain/releases.py pins the version)")
        verify(got, pkg)
        with atomic_file(dest) as tmp:
            shutil.copyfile(got, tmp)
    return dest


def series(text: str) -> list:
    """(patch, strip level) of each line of a quilt series: `name [-pN]`, `#` comments."""
    out = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        level = next((int(m.group(1)) for w in words[1:]
                      if (m := re.fullmatch(r"-p(\d+)", w))), 1)
        out.append((words[0], level))
    return out


def apply(pkg: Packaging, src: Path) -> list:
    """Apply the package's patches to the source tree `src` (a git repository), each with
    `git apply` at its strip level, in the series' order: their names."""
    tarball = fetch(pkg)
    with tempfile.TemporaryDirectory(prefix="ffdnn-debian-") as work:
        subprocess.run(["tar", "-xf", str(tarball), "-C", work, "debian/patches"],
                       capture_output=True)  # a package with no patches has no such folder
        patches = Path(work) / "debian" / "patches"
        listed = series((patches / "series").read_text()) \
            if (patches / "series").is_file() else []
        for name, level in listed:
            r = subprocess.run(["git", "apply", "--index", f"-p{level}", str(patches / name)],
                               cwd=src, capture_output=True, text=True)
            if r.returncode != 0:
                raise BuildError(f"Debian's patch {name} ({pkg.version}) does not apply to "
                                 f"the orig tarball: {first_error(r.stderr)}")
    return [name for name, _ in listed]
