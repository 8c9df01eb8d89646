"""FFmpeg releases the harness can fetch by version (--release), each pinned by the
sha256 of its tarball as measured when it was added, and fetched the way the pinned
release is (harness/obtain/source.py): upstream, else Debian's ffmpeg source package.

The series (builds/patches/) was adapted to SERIES_BASE: there every patch must apply.
On any other release each patch is tried with `git am -3` and one that does not apply
is left out, with the reason, so before/after are the commits that do apply.
"""

from harness.errors import SourceError
from harness.obtain.source import FFMPEG, Release, release

SERIES_BASE = FFMPEG.version

RELEASES = {
    FFMPEG.version: FFMPEG,
    # Debian 7:5.1.9-0+deb12u1 (bookworm, Debian 12); the orig tarball's sha256 measured
    # here, and the same in the .dsc
    "5.1.9": release("5.1.9", "d9b593bb2ba93d4b50f74177e0cdcd41747e708596367deed0c30348a71dd176",
                     10034840, "0+deb12u1", "bookworm"),
    # Debian 7:7.1.5-0+deb13u1 (trixie, Debian 13, and sid); the orig tarball's sha256
    # measured here, and the same in the .dsc
    "7.1.5": release("7.1.5", "de668509caf9e35e3cd162473441fdb29538c6d96ed080292b3cf9e6fc5d558f",
                     11050340, "0+deb13u1"),
    # Debian 7:8.1.2-2; the orig tarball's sha256 measured here, and the same in the .dsc
    "8.1.2": release("8.1.2", "464beb5e7bf0c311e68b45ae2f04e9cc2af88851abb4082231742a74d97b524c",
                     11710924, 2),
}


def versions() -> list:
    """The pinned releases' versions, oldest first."""
    return sorted(RELEASES, key=lambda v: tuple(int(p) for p in v.split(".")))


def get(version: str | None) -> Release:
    """The release of that version (None: the pinned one)."""
    if not version:
        return FFMPEG
    if version not in RELEASES:
        raise SourceError(f"unknown FFmpeg release '{version}' (supported: "
                          f"{', '.join(versions())}; each is pinned by sha256 in "
                          "harness/obtain/releases.py)")
    return RELEASES[version]


def strict(rel: Release) -> bool:
    """Whether every patch of the series must apply (the release it was adapted to)."""
    return rel.version == SERIES_BASE
