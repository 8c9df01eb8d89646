"""A page through real headless chromium (Debian's `chromium` package): the screenshot,
read back with the project's PNG decoder, and the solid squares of one colour in it,
which is how a test finds the diff page's grid cells."""

import shutil
import subprocess
import tempfile
from collections import deque
from pathlib import Path

import numpy as np

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(page: Path, png: Path, size=(1400, 900)) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="ffdnn-chromium-") as profile:
        return subprocess.run(
            [chromium(), *FLAGS, f"--user-data-dir={profile}", f"--screenshot={png}",
             f"--window-size={size[0]},{size[1]}", page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120)


def read_png(path: Path) -> np.ndarray:
    """(height, width, 3) uint8: the project's own decoder (harness/obtain/png.py)."""
    from harness.obtain import png
    return png.decode(Path(path).read_bytes())


def squares(img: np.ndarray, rgb: str, side: int = 16, height: int = None) -> list:
    """(x, y) of the top-left corner of every connected region of colour `rgb` (#rrggbb)
    whose bounding box is side x side pixels (side x height: a cell with a bar across
    its foot): the grid's cells, not the wider badges."""
    want = np.array([int(rgb[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)
    mask = (np.abs(img.astype(np.int16) - want) <= 2).all(axis=2)
    seen = np.zeros_like(mask)
    out = []
    for y0, x0 in zip(*np.nonzero(mask)):
        if seen[y0, x0]:
            continue
        seen[y0, x0] = True
        todo, xs, ys = deque([(y0, x0)]), [], []
        while todo:
            y, x = todo.popleft()
            xs.append(x)
            ys.append(y)
            for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] \
                        and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    todo.append((ny, nx))
        if max(xs) - min(xs) + 1 == side and max(ys) - min(ys) + 1 == (height or side):
            out.append((int(min(xs)), int(min(ys))))
    return sorted(out, key=lambda p: (p[1], p[0]))
