"""Generators for the small test models, written on demand and cached by content hash.

Nothing is downloaded: each model is built here from a fixed description (and a
fixed seed where it has weights), so its bytes, and its hash, are reproducible.
"""

import hashlib
import os
from pathlib import Path

from . import onnx_models, ov_models, tf_models, torch_models

GENERATORS = {
    "onnx-identity": onnx_models.identity,
    "onnx-conv": onnx_models.conv,
    # TensorFlow frozen GraphDefs, encoded by hand (models/protobuf.py); NHWC.
    "tf-identity": tf_models.identity,
    "tf-scale": tf_models.scale,
    "tf-det": tf_models.det,
    # ONNX for the OpenVINO backend: static 64x64 shapes (9.0.2 needs them).
    "ov-identity": ov_models.identity,
    "ov-scale": ov_models.scale,
    "ov-classify": ov_models.classify,
    "ov-classify-labels": ov_models.classify_labels,
    "ov-detect": ov_models.detect,
    # TorchScript; these need torch (==2.13.0) importable, imported only when called.
    "torch-identity": torch_models.identity,
    "torch-scale": torch_models.scale,
}


def path(name: str, cache: Path) -> Path:
    """The model file for `name`, generated into `cache` if it is not there yet."""
    if name not in GENERATORS:
        raise KeyError(f"unknown model '{name}' (known: {', '.join(sorted(GENERATORS))})")
    data, suffix = GENERATORS[name]()
    digest = hashlib.sha256(data).hexdigest()[:16]
    out = cache / f"{name}-{digest}{suffix}"
    if not out.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".tmp-{os.getpid()}-{out.name}")
        tmp.write_bytes(data)
        os.replace(tmp, out)
    return out
