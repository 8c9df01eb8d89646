"""Generators for the small test models, written on demand and cached by content hash.

Nothing is downloaded: each model is built here from a fixed description (and a
fixed seed where it has weights), so its bytes, and its hash, are reproducible.
"""

import hashlib
import os
from pathlib import Path

from . import onnx_models

GENERATORS = {
    "onnx-identity": onnx_models.identity,
    "onnx-conv": onnx_models.conv,
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
