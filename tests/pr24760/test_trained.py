"""The trained model and the real footage of the unchanged check (issue 19): the weights
read without torch are ONet's, the converted ONNX computes what a numpy forward pass of
the same weights computes and tells a face from a background, the PNG decoder is
lossless, and the rows over the photographs are the same before and after."""

import dataclasses
import struct
import zlib

import numpy as np
import pytest

from harness.cases import pr24760 as case
from harness.experiments import trained
from harness.judge.trained import report
from harness.obtain import footage, packages, png

# ONet's layers as facenet_pytorch/models/mtcnn.py defines them: name -> shape
ONET_SHAPES = {
    "conv1.weight": (32, 3, 3, 3), "conv2.weight": (64, 32, 3, 3),
    "conv3.weight": (64, 64, 3, 3), "conv4.weight": (128, 64, 2, 2),
    "dense5.weight": (256, 1152), "dense6_1.weight": (2, 256), "dense6_2.weight": (4, 256),
    "dense6_3.weight": (10, 256), "prelu5.weight": (256,),
}
# crops of astronaut.png (x0, y0, x1, y1) and what ONet must say of them
CROPS = (((165, 60, 285, 190), "face"), ((170, 80, 280, 190), "face"),
         ((0, 0, 100, 100), "not_face"), ((300, 300, 450, 450), "not_face"))
TOLERANCE = 1e-4
FACE = (165, 60, 285, 190)   # the astronaut's face in astronaut.png


def _fetched(name):
    try:
        return packages.fetch(name)
    except packages.PackageError as e:
        pytest.skip(f"{name}: {e}")


@pytest.fixture(scope="module")
def onet_weights():
    _fetched("facenet-pytorch")
    from harness.cases.pr24760 import mtcnn
    return mtcnn.weights()


@pytest.fixture(scope="module")
def astronaut():
    root = _fetched(footage.PACKAGE)
    return png.decode((root / "skimage/data/astronaut.png").read_bytes())


# --- a numpy ONet, written from the layer list, to check the ONNX graph against ---

def _conv(x, w, b):
    """Valid (unpadded) convolution, stride 1, by im2col."""
    c, h, wd = x.shape
    o, _, k, _ = w.shape
    oh, ow = h - k + 1, wd - k + 1
    cols = np.stack([x[:, i:i + oh, j:j + ow] for i in range(k) for j in range(k)], axis=1)
    out = w.reshape(o, c * k * k) @ cols.reshape(c * k * k, oh * ow)
    return out.reshape(o, oh, ow) + b[:, None, None]


def _prelu(x, a):
    a = a.reshape((-1,) + (1,) * (x.ndim - 1))
    return np.where(x >= 0, x, a * x)


def _maxpool(x, k, s):
    c, h, w = x.shape
    oh, ow = -(-(h - k) // s) + 1, -(-(w - k) // s) + 1   # ceil_mode
    out = np.full((c, oh, ow), -np.inf, np.float32)
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = x[:, i * s:i * s + k, j * s:j * s + k].max(axis=(1, 2))
    return out


def onet_numpy(w, rgb48):
    """ONet's face / not-face probabilities for one 48x48 RGB crop."""
    x = ((rgb48.astype(np.float32) - 127.5) * 0.0078125).transpose(2, 0, 1)
    for i in range(1, 5):
        x = _prelu(_conv(x, w[f"conv{i}.weight"], w[f"conv{i}.bias"]), w[f"prelu{i}.weight"])
        if i < 4:
            x = _maxpool(x, *((3, 2), (3, 2), (2, 2))[i - 1])
    f = x.transpose(2, 1, 0).reshape(-1)           # permute(0, 3, 2, 1) without the batch
    h = _prelu(w["dense5.weight"] @ f + w["dense5.bias"], w["prelu5.weight"])
    logits = w["dense6_1.weight"] @ h + w["dense6_1.bias"]
    e = np.exp(logits - logits.max())
    return e / e.sum()


def crop48(picture, box):
    x0, y0, x1, y1 = box
    ys = (np.arange(48) * (y1 - y0) / 48).astype(int) + y0
    xs = (np.arange(48) * (x1 - x0) / 48).astype(int) + x0
    return picture[ys][:, xs]


@pytest.mark.unit
def test_weights_are_onets(onet_weights):
    assert {k: v.shape for k, v in onet_weights.items() if k in ONET_SHAPES} == ONET_SHAPES
    assert all(v.dtype == np.float32 for v in onet_weights.values())


@pytest.mark.unit
@pytest.mark.parametrize("box,expected", CROPS, ids=[f"{e}-{b[0]}-{b[1]}" for b, e in CROPS])
def test_onnx_onet_matches_numpy_and_knows_a_face(onet_weights, astronaut, box, expected):
    import onnxruntime as ort
    from harness.cases.pr24760 import mtcnn
    session = ort.InferenceSession(mtcnn.onet()[0], providers=["CPUExecutionProvider"])
    rgb = crop48(astronaut, box)
    bgr = rgb[:, :, ::-1].astype(np.float32)[None]   # what dnn_classify gives OpenVINO
    (got,) = session.run(None, {"x": np.ascontiguousarray(bgr)})
    want = onet_numpy(onet_weights, rgb)
    np.testing.assert_allclose(got[0], want, atol=TOLERANCE)
    assert mtcnn.LABELS[int(np.argmax(got[0]))] == expected
    assert got[0].max() > 0.99


def _iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


@pytest.mark.unit
def test_pnet_detector_finds_the_face_and_onet_confirms_it(onet_weights, astronaut):
    """MTCNN's cascade through the two converted graphs: PNet's best box over the whole
    photograph is the face, its rows are SSD rows inside the frame, ONet calls it a face."""
    import onnxruntime as ort
    from harness.cases.pr24760 import mtcnn
    det = ort.InferenceSession(mtcnn.pnet_detect()[0], providers=["CPUExecutionProvider"])
    side = mtcnn.DETECT_SIZE
    pick = np.arange(side) * 512 // side
    small = astronaut[pick][:, pick]
    (rows,) = det.run(None, {"x": np.ascontiguousarray(small[:, :, ::-1], np.float32)[None]})
    assert rows.shape == (1, 1, mtcnn.MAX_BOXES, 7)
    kept = rows[0, 0][rows[0, 0, :, 2] > 0]
    assert len(kept) and (kept[:, 3:] >= 0).all() and (kept[:, 3:] < 1).all()
    assert (kept[:, 5] >= kept[:, 3]).all() and (kept[:, 6] >= kept[:, 4]).all()
    best = tuple(int(v * 512) for v in kept[np.argmax(kept[:, 2]), 3:])
    assert kept[:, 2].max() > 0.9
    assert _iou(best, FACE) > 0.4, f"best box {best}, face {FACE}"
    assert onet_numpy(onet_weights, crop48(astronaut, best))[1] > 0.9


def _png(pixels: np.ndarray, filters: list) -> bytes:
    """A PNG with the given row filters, encoded here to test the decoder against."""
    h, w, c = pixels.shape
    bpp, raw, prev = c, b"", np.zeros(w * c, np.int32)
    for y in range(h):
        row = pixels[y].reshape(-1).astype(np.int32)
        left = np.concatenate([np.zeros(bpp, np.int32), row[:-bpp]])
        upleft = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]])
        kind = filters[y % len(filters)]
        if kind == 4:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
        else:
            pred = [0, left, prev, (left + prev) // 2][kind] * np.ones_like(row)
        raw += bytes([kind]) + ((row - pred) & 0xFF).astype(np.uint8).tobytes()
        prev = row
    colour = {1: 0, 3: 2, 4: 6}[c]

    def chunk(kind, body):
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc
    return (png.SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.mark.unit
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_png_decoder_is_lossless(channels):
    rng = np.random.default_rng(19)
    pixels = rng.integers(0, 256, (13, 17, channels), dtype=np.uint8)
    got = png.decode(_png(pixels, [0, 1, 2, 3, 4]))
    want = np.repeat(pixels[:, :, :1], 3, axis=2) if channels == 1 else pixels[:, :, :3]
    np.testing.assert_array_equal(got, want)


@pytest.mark.openvino
@pytest.mark.dnn_classify
def test_trained_rows_same_before_and_after(tree):
    builds = [tree("before"), tree("after")]
    have = builds[0].backends
    if "openvino" not in have:
        pytest.skip("the trees were built without OpenVINO (make test BACKENDS=all)")
    p = trained.plan(have, builds[0], short=True, rows=case.TRAINED_ROWS)
    if not p.rows:
        pytest.skip("; ".join(p.skipped))
    assert [r.label for r, _ in p.rows] == [r.label for r in case.TRAINED_ROWS], p.skipped
    trained.run(builds, p)
    _, bad = report(p, [b.name for b in builds], short=True)
    assert bad == []


@pytest.mark.unit
@pytest.mark.parametrize("field,value", [("version", "0.0.0"), ("sha256", "0" * 64)])
def test_a_package_that_cannot_be_fetched_skips_every_row_naming_it(monkeypatch, tmp_path,
                                                                     field, value):
    monkeypatch.setenv("FFDNN_CACHE", str(tmp_path))
    pin = packages.PACKAGES["facenet-pytorch"]
    monkeypatch.setitem(packages.PACKAGES, "facenet-pytorch",
                        dataclasses.replace(pin, **{field: value}))
    with pytest.raises(packages.PackageError, match="facenet-pytorch=="):
        packages.fetch("facenet-pytorch")
    assert not (tmp_path / "packages").exists() or not any((tmp_path / "packages").iterdir())


@pytest.mark.openvino
@pytest.mark.dnn_classify
def test_rows_of_an_unfetchable_model_are_skipped_not_run(tree, monkeypatch):
    before = tree("before")
    pin = packages.PACKAGES["facenet-pytorch"]
    monkeypatch.setitem(packages.PACKAGES, "facenet-pytorch",
                        dataclasses.replace(pin, version="0.0.0"))
    p = trained.plan({"openvino"}, before, short=True, rows=case.TRAINED_ROWS)
    assert [r.packages for r, _ in p.rows] == [(), ()]
    assert len(p.skipped) == 3 and all("facenet-pytorch==0.0.0" in s for s in p.skipped)
