"""Generators for the small test models, written on demand and cached by content hash.

Nothing is downloaded: each model is built here from a fixed description (and a
fixed seed where it has weights), so its bytes are reproducible; the cache names a
file by the hash of its recipe (the generator's source).
"""

import hashlib
import importlib
from pathlib import Path

from harness.paths import atomic_file


def _lazy(module: str, func: str, deps: tuple = ()):
    """The generator `module.func`, imported when called: importing `models` (as every
    pytest process and the CLI do) then costs nothing, not onnx's or torch's import."""
    def generate():
        return getattr(importlib.import_module(f"{__name__}.{module}"), func)()
    generate.__name__ = f"{module}.{func}"
    generate.module_file = Path(__file__).with_name(f"{module}.py")
    generate.deps = deps   # other files of models/ its output depends on
    return generate


def _backend_models() -> dict:
    """Each backend's models, from its module (harness/obtain/backends/<name>.py): its
    identity and non-identity models and every model its graphs name, each written by the
    module of models/ that the backend whose models share its prefix names, by the function
    named after the model (`ov-scale` -> ov_models.scale(), `tf-det` -> tf_models.det()).
    ONNX for ONNX Runtime; TensorFlow frozen GraphDefs encoded by hand (models/protobuf.py),
    NHWC; ONNX for OpenVINO with static 64x64 shapes (9.0.2 needs them); TorchScript
    written by LibTorch itself (models/torch_model.cpp, built against the torch backend; no
    torch Python package)."""
    from harness.obtain.backends import BACKENDS
    module = {b.identity.split("-", 1)[0]: b.generator for b in BACKENDS.values()}
    names = {n for b in BACKENDS.values()
             for n in (b.identity, b.non_identity,
                       *(m for g in b.all_graphs().values() for m in g.models.values()))}
    return {n: _lazy(module[n.split("-", 1)[0]], n.split("-", 1)[1].replace("-", "_"))
            for n in sorted(names)}


GENERATORS = {
    **_backend_models(),
    # #24702's claims (issue 8): outputs 9.0.2's post-processing rejects
    "claims-tf-u8-out": _lazy("claims_models", "tf_u8_out"),
    "claims-tf-u8-out-gray": _lazy("claims_models", "tf_u8_out_gray"),
    "claims-ov-detect-empty": _lazy("claims_models", "ov_detect_const_empty"),
    "claims-ov-classify-empty": _lazy("claims_models", "ov_classify_const_empty"),
    "claims-ov-classify-no-scores": _lazy("claims_models", "ov_classify_no_scores"),
    "claims-ov-detect-no-rows": _lazy("claims_models", "ov_detect_no_rows"),
    "claims-tf-det-too-many": _lazy("claims_models", "tf_det_too_many"),
    # trained: MTCNN's ONet from facenet-pytorch's weights (fetched, pinned; issue 19)
    "mtcnn-onet": _lazy("mtcnn", "onet", deps=("torchweights.py",)),
    "mtcnn-onet-labels": _lazy("mtcnn", "onet_labels"),
    "mtcnn-pnet-detect": _lazy("mtcnn", "pnet_detect", deps=("torchweights.py",)),
}


def recipe(name: str) -> str:
    """A hash of what makes the model: its generator module's source and this file's.
    For the TorchScript ones also the LibTorch that writes them. Generating is skipped
    when the file for this recipe is already in the cache."""
    module = GENERATORS[name].module_file
    h = hashlib.sha256(name.encode())
    deps = ("protobuf.py", "tf_models.py", "ov_models.py")  # what claims_models builds on
    deps += GENERATORS[name].deps
    for f in (module, Path(__file__), *(module.with_name(d) for d in deps)):
        h.update(f.read_bytes() if f.is_file() else b"")
    if name.startswith("torch-"):  # the bytes are LibTorch's: its program and its build
        h.update(importlib.import_module(f"{__name__}.torch_models").recipe().encode())
    return h.hexdigest()[:16]


def path(name: str, cache: Path) -> Path:
    """The model file for `name`, generated into `cache` if it is not there yet."""
    if name not in GENERATORS:
        raise KeyError(f"unknown model '{name}' (known: {', '.join(sorted(GENERATORS))})")
    key = recipe(name)
    found = sorted(cache.glob(f"{name}-{key}.*")) if cache.is_dir() else []
    if found:
        return found[0]
    data, suffix = GENERATORS[name]()
    out = cache / f"{name}-{key}{suffix}"
    with atomic_file(out) as tmp:
        tmp.write_bytes(data)
    return out
