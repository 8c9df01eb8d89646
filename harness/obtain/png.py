"""Decode a PNG into an RGB array with zlib and numpy.

The trees are configured without a PNG decoder (and without zlib), so photographs are
decoded here and handed to the tree's ffmpeg as raw rgb24 frames. Only what the pinned
photographs use: 8-bit greyscale, RGB or RGBA, not interlaced, all five row filters.
"""

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}   # colour type -> samples per pixel


class PngError(ValueError):
    pass


def _chunks(data: bytes):
    pos = len(SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def _paeth_row(cur: bytearray, prev: bytes, bpp: int) -> None:
    for i in range(len(cur)):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        cur[i] = (cur[i] + pred) & 0xFF


def _unfilter(raw: bytes, height: int, stride: int, bpp: int) -> np.ndarray:
    out = np.zeros((height, stride), np.uint8)
    prev = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:      # Sub: cumulative per channel
            r = np.frombuffer(bytes(row), np.uint8).reshape(-1, bpp).astype(np.uint32)
            row = bytearray((np.cumsum(r, axis=0) & 0xFF).astype(np.uint8).tobytes())
        elif kind == 2:    # Up
            row = bytearray(((np.frombuffer(bytes(row), np.uint8).astype(np.uint16)
                              + np.frombuffer(prev, np.uint8)) & 0xFF).astype(np.uint8).tobytes())
        elif kind == 3:    # Average
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((a + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            _paeth_row(row, prev, bpp)
        elif kind != 0:
            raise PngError(f"unknown row filter {kind}")
        prev = bytes(row)
        out[y] = np.frombuffer(prev, np.uint8)
    return out


def decode(data: bytes) -> np.ndarray:
    """The picture as uint8 [height, width, 3] RGB (greyscale repeated, alpha dropped)."""
    if not data.startswith(SIGNATURE):
        raise PngError("not a PNG file")
    header, idat = None, []
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    if header is None:
        raise PngError("no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in CHANNELS or interlace:
        raise PngError(f"unsupported PNG: depth {depth}, colour type {colour}, "
                       f"interlace {interlace}")
    bpp = CHANNELS[colour]
    pixels = _unfilter(zlib.decompress(b"".join(idat)), height, width * bpp, bpp)
    pixels = pixels.reshape(height, width, bpp)
    if bpp in (1, 2):
        return np.repeat(pixels[:, :, :1], 3, axis=2)
    return np.ascontiguousarray(pixels[:, :, :3])
