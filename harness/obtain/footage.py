"""Real footage: photographs shipped in scikit-image's wheel, made into a clip by the
tree's own ffmpeg.

A camera pans over each photograph: a WINDOW x WINDOW crop whose centre walks a
GRID x GRID zigzag over the picture, one frame per stop. The crops are decoded and cut
here (the trees have no PNG decoder) and written as raw rgb24; the tree's ffmpeg reads
them with its rawvideo demuxer, scales them to SIZE and encodes mpeg4 in nut, at 2
frames a second so `fps=2` keeps every frame. The clip is cached by what makes it.
"""

import numpy as np

from harness.errors import HarnessError
from harness.obtain import packages, png
from harness.paths import atomic_dir, cache_root, digest

PACKAGE = "scikit-image"
# member, credit and licence as skimage/data/_fetchers.py states them
PHOTOS = (("skimage/data/astronaut.png", "Eileen Collins, NASA", "public domain"),
          ("skimage/data/chelsea.png", "Stefan van der Walt", "CC0"),
          ("skimage/data/coffee.png", "Rachel Michetti", "CC0"),
          ("skimage/data/camera.png", "Lav Varshney", "CC0"))
WINDOW, SIZE, RATE = 240, 480, 2
FULL, SHORT = {"grid": 7}, {"grid": 3}


def windows(picture: np.ndarray, grid: int):
    """The crops of one photograph, centres on a zigzag over a grid x grid lattice."""
    h, w, _ = picture.shape
    ys = np.linspace(WINDOW // 2, h - WINDOW // 2, grid).round().astype(int)
    xs = np.linspace(WINDOW // 2, w - WINDOW // 2, grid).round().astype(int)
    for i, cy in enumerate(ys):
        for cx in xs if i % 2 == 0 else xs[::-1]:
            y0, x0 = cy - WINDOW // 2, cx - WINDOW // 2
            yield picture[y0:y0 + WINDOW, x0:x0 + WINDOW]


def describe(spec: dict = FULL) -> str:
    n = len(PHOTOS) * spec["grid"] ** 2
    names = ", ".join(m.rsplit("/", 1)[1] for m, _, _ in PHOTOS)
    return (f"{n} frames panned over {names} from {packages.describe(PACKAGE)}, "
            f"{SIZE}x{SIZE} mpeg4 at {RATE} fps")


def clip(tree, run_ffmpeg, spec: dict = FULL):
    """The clip's path, made with `run_ffmpeg(tree, args) -> (Ran, command)` if it is not
    cached. Raises packages.PackageError when scikit-image cannot be fetched."""
    root = packages.fetch(PACKAGE)
    key = digest(spec, WINDOW, SIZE, RATE, PHOTOS, packages.PACKAGES[PACKAGE].sha256,
                 tree.source)[:16]
    final = cache_root() / "clips" / f"photos-{spec['grid']}-{key}"
    path = final / "clip.nut"
    if path.is_file():
        return path
    with atomic_dir(final) as tmp:
        raw = tmp / "frames.rgb"
        with open(raw, "wb") as f:
            for member, _, _ in PHOTOS:
                for crop in windows(png.decode((root / member).read_bytes()), spec["grid"]):
                    f.write(np.ascontiguousarray(crop).tobytes())
        r, cmd = run_ffmpeg(tree, ["-f", "rawvideo", "-pix_fmt", "rgb24",
                                   "-s", f"{WINDOW}x{WINDOW}", "-r", str(RATE), "-i", str(raw),
                                   "-vf", f"scale={SIZE}:{SIZE}", "-c:v", "mpeg4", "-q:v", "3",
                                   "-threads", "1", str(tmp / "clip.nut")])
        raw.unlink()
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["no output"])[-1]
            raise HarnessError(f"could not make the photo clip ({last}): {cmd}")
    return path
