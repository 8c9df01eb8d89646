"""The generated models are reproducible and do what their names say (checked with
ONNX Runtime itself, the same library the builds link)."""

import numpy as np
import onnxruntime as ort
import pytest

from harness.obtain import models

pytestmark = pytest.mark.unit


def run(path, x):
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(["y"], {"x": x})[0]


@pytest.fixture(scope="module")
def frame():
    return np.random.default_rng(1).random((1, 3, 16, 24), dtype=np.float32)


def test_same_bytes_same_path(tmp_path):
    a = models.path("onnx-conv", tmp_path)
    b = models.path("onnx-conv", tmp_path)
    assert a == b and a.read_bytes() == b.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == [a.name], "no temporary file left"


def test_identity_is_identity(tmp_path, frame):
    np.testing.assert_array_equal(run(models.path("onnx-identity", tmp_path), frame), frame)


def test_conv_is_not_identity(tmp_path, frame):
    y = run(models.path("onnx-conv", tmp_path), frame)
    assert y.shape == frame.shape
    assert np.abs(y - frame).mean() > 0.05
    assert y.min() >= 0 and y.max() <= 1


def test_unknown_model(tmp_path):
    with pytest.raises(KeyError, match="unknown model 'nope'"):
        models.path("nope", tmp_path)
