"""A page through real headless chromium (Debian's `chromium` package): the screenshot,
read back without an image library (8-bit RGB/RGBA PNG, as chromium writes them), and
the solid squares of one colour in it, which is how a test finds the diff page's grid
cells."""

import shutil
import struct
import subprocess
import tempfile
import zlib
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


def _unfilter(kind: int, line: bytes, prev: list, bpp: int) -> list:
    cur = list(line)
    if kind == 1:
        for i in range(bpp, len(cur)):
            cur[i] = (cur[i] + cur[i - bpp]) & 255
    elif kind == 2:
        cur = [(c + p) & 255 for c, p in zip(cur, prev)]
    elif kind == 3:
        for i in range(len(cur)):
            left = cur[i - bpp] if i >= bpp else 0
            cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 255
    elif kind == 4:
        for i in range(len(cur)):
            a = cur[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
            cur[i] = (cur[i] + pred) & 255
    return cur


def read_png(path: Path) -> np.ndarray:
    """(height, width, 3) uint8 from an 8-bit, non-interlaced RGB or RGBA PNG."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    assert depth == 8 and interlace == 0 and ctype in (2, 6), (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), width * bpp
    rows, prev = [], [0] * stride
    for y in range(height):
        start = y * (stride + 1)
        prev = _unfilter(raw[start], raw[start + 1:start + 1 + stride], prev, bpp)
        rows.append(prev)
    return np.array(rows, dtype=np.uint8).reshape(height, width, bpp)[:, :, :3]


def squares(img: np.ndarray, rgb: str, side: int = 16) -> list:
    """(x, y) of the top-left corner of every connected region of colour `rgb` (#rrggbb)
    whose bounding box is side x side pixels: the grid's cells, not the wider badges."""
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
        if max(xs) - min(xs) + 1 == side and max(ys) - min(ys) + 1 == side:
            out.append((int(min(xs)), int(min(ys))))
    return sorted(out, key=lambda p: (p[1], p[0]))
