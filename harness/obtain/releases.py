"""The FFmpeg releases the harness can fetch by version, each pinned by the sha256 of its
tarball as measured when it was added, and fetched by harness/obtain/source.py: upstream,
else Debian's ffmpeg source package. None is everyone's default: a case's layout names
the release its series was adapted to (Layout.release), its trees' release unless a
command names another (--release).

On the release a series was adapted to every patch must apply (strict). On any other
each patch is tried with `git am -3` and one that does not apply is left out, with the
reason, so before/after are the commits that do apply.

`debian:<suite>` is the release a Debian suite ships with the patches of its source
package applied (harness/obtain/debian.py): a distribution's tree, on which every patch
of the series is tried with `git am -3` as on another release.
"""

import dataclasses

from harness.errors import SourceError
from harness.obtain.debian import PREFIX as DEBIAN_PREFIX, Packaging
from harness.obtain.source import Release, release

RELEASES = {
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
    # Debian 7:9.0.2-4 (sid)
    "9.0.2": release("9.0.2", "8c3850283eb25fa026482078a04051e0be17347b09ef81a0849bec15a96e002e",
                     12040788, 4),
}

# Releases pinned for `probe --releases` only: the case expresses nothing there, so no
# tree of theirs is built (--release refuses them, saying so).
PROBE_ONLY = {
    # Debian 7:4.3.7-0+deb11u1 (bullseye, Debian 11); the orig tarball's sha256 as in the
    # .dsc, measured here. No asynchronous execution in its DNN code: no thread start to fail
    "4.3.7": release("4.3.7", "177d074943251bec33e1f9bc5979378ff5771882482ba9b3aee2cb18dd400554",
                     9402808, "0+deb11u1", "bullseye"),
}

# Debian's ffmpeg source package per suite: the release it packages and its debian
# tarball's sha256 and size, measured here (the same in the .dsc). sid's index also
# lists 7:9.0.2-4, whose .dsc and debian tarball the mirror did not hold when pinned.
DEBIAN = {
    # one patch (libavcodec/rangecoder.h)
    "bookworm": ("5.1.9", Packaging("bookworm", "7:5.1.9-0+deb12u1",
                                    "71b20472ecd2764bc98e3229d34c0f7c8dcfe4a6cbacc23fd5604c23bac04632",
                                    53444)),
    # no debian/patches: the orig tarball as it is
    "trixie": ("7.1.5", Packaging("trixie", "7:7.1.5-0+deb13u1",
                                  "a1be51d8a10744952fe94fa318bf71bbc8074bed0951382c079ab7ef227f74ef",
                                  54176)),
    # no debian/patches
    "sid": ("8.1.2", Packaging("sid", "7:8.1.2-2",
                               "92c2192f4bda036c3052fca0e264492dab0a160e747938ef4c320030605d160b",
                               56340)),
}


def _numbers(version: str) -> tuple:
    """`5.1.9` as (5, 1, 9): releases in the order they came out."""
    return tuple(int(p) for p in version.split("."))


def versions() -> list:
    """The pinned releases' versions, oldest first."""
    return sorted(RELEASES, key=_numbers)


def get(version: str) -> Release:
    """The release --release `version` names (`8.1.2`, `debian:bookworm`)."""
    if version.startswith(DEBIAN_PREFIX):
        suite = version[len(DEBIAN_PREFIX):]
        if suite not in DEBIAN:
            raise SourceError(f"unknown Debian suite '{suite}' in --release {version} "
                              f"(supported: {', '.join(DEBIAN_PREFIX + s for s in DEBIAN)}; "
                              "each pinned in harness/obtain/releases.py)")
        upstream, pkg = DEBIAN[suite]
        return dataclasses.replace(RELEASES[upstream], debian_suite=suite, packaging=pkg)
    if version in PROBE_ONLY:
        raise SourceError(f"FFmpeg {version} is pinned for `probe --releases` only (what "
                          "can be expressed there, and why not); no tree of it is built "
                          "(harness/obtain/releases.py)")
    if version not in RELEASES:
        raise SourceError(f"unknown FFmpeg release '{version}' (supported: "
                          f"{', '.join(versions())}, or a Debian suite's: "
                          f"{', '.join(DEBIAN_PREFIX + s for s in DEBIAN)}; each is pinned by sha256 in "
                          "harness/obtain/releases.py)")
    return RELEASES[version]


def probed() -> list:
    """Every pinned release `probe --releases` shows, the probe-only ones too, oldest first."""
    every = {**RELEASES, **PROBE_ONLY}
    return [every[v] for v in sorted(every, key=_numbers)]


def find(name: str | None) -> Release | None:
    """The release --release `name` names, or None when none is pinned by that name."""
    try:
        return get(name) if name else None
    except SourceError:
        return None


def strict(rel: Release, base: str | None) -> bool:
    """Whether every patch of a series adapted to release `base` (a layout's release) must
    apply on `rel`: `rel` is that release, as upstream ships it."""
    return rel.version == base and rel.packaging is None


if __name__ == "__main__":  # the CI workflows' matrix of releases: the standard library only
    import json
    print(json.dumps([{"release": v} for v in versions()]))
