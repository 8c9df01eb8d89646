"""The small test models by name, written on demand and cached by content hash.

Nothing is downloaded: each model is built from a fixed description (and a fixed seed
where it has weights) by a generator of the project's models/ (a data directory, as
injectors/ is: in a checkout at its top level, in a wheel inside the package;
harness/paths.py's data_dir()), imported as a module of this package, so its bytes are
reproducible; the cache names a file by the hash of its recipe (the generator's source).
"""

import hashlib
import importlib
import importlib.util
from pathlib import Path

from harness.paths import atomic_file, data_dir

# the generators (models/README.md: each one's provenance) are this package's modules
SOURCES = data_dir("models")
__path__.append(str(SOURCES))


def _lazy(module: str, func: str, deps: tuple = ()):
    """The generator `module.func` (a dotted module: this package's own, or a case's),
    imported when called: importing `models` (as every pytest process and the CLI do) then
    costs nothing, not onnx's or torch's import. `deps`: other files its output depends
    on (paths)."""
    def generate():
        return getattr(importlib.import_module(module), func)()
    generate.__name__ = f"{module}.{func}"
    generate.module_file = Path(importlib.util.find_spec(module).origin)
    generate.deps = tuple(Path(d) for d in deps)
    return generate


# what the models of ONNX Runtime, OpenVINO and TensorFlow are written with: a model
# built on them (a case's) depends on them too
WRITERS = (SOURCES / "protobuf.py", SOURCES / "tf_models.py", SOURCES / "ov_models.py")


def register(name: str, module: str, func: str, deps: tuple = WRITERS) -> None:
    """A model of a case's (harness/cases/<name>/): `name` written by `module.func()` (bytes,
    suffix), generated and cached as the backends' own are. A case registers its models
    when it is loaded; the engine knows them by name from then on."""
    if name in GENERATORS and GENERATORS[name].__name__ != f"{module}.{func}":
        raise KeyError(f"model '{name}' is registered twice")
    GENERATORS[name] = _lazy(module, func, deps)


def _backend_models() -> dict:
    """Each backend's models, from its module (harness/obtain/backends/<name>.py): its
    identity and non-identity models and every model its graphs name, each written by the
    module of models/ that the backend whose models share its prefix names, by the
    function named after the model (`ov-scale` -> ov_models.scale(), `tf-det` ->
    tf_models.det()). ONNX for ONNX Runtime; TensorFlow frozen GraphDefs encoded by hand
    (models/protobuf.py), NHWC; ONNX for OpenVINO with static 64x64 shapes (9.0.2 needs
    them); TorchScript written by LibTorch itself (models/torch_model.cpp, built against
    the torch backend; no torch Python package)."""
    from harness.obtain.backends import BACKENDS
    module = {b.identity.split("-", 1)[0]: b.generator for b in BACKENDS.values()}
    names = {n for b in BACKENDS.values()
             for n in (b.identity, b.non_identity,
                       *(m for g in b.all_graphs().values() for m in g.models.values()))}
    return {n: _lazy(f"{__name__}.{module[n.split('-', 1)[0]]}",
                     n.split("-", 1)[1].replace("-", "_"), WRITERS)
            for n in sorted(names)}


GENERATORS = _backend_models()  # and the models cases register (register())


def recipe(name: str) -> str:
    """A hash of what makes the model: its generator module's source and this file's.
    For the TorchScript ones also the LibTorch that writes them. Generating is skipped
    when the file for this recipe is already in the cache."""
    h = hashlib.sha256(name.encode())
    for f in (GENERATORS[name].module_file, Path(__file__), *GENERATORS[name].deps):
        h.update(f.read_bytes() if f.is_file() else b"")
    if name.startswith("torch-"):  # the bytes are LibTorch's: its program and its build
        h.update(importlib.import_module(f"{__name__}.torch_models").recipe().encode())
    return h.hexdigest()[:16]


def path(name: str, cache: Path) -> Path:
    """The model file for `name`, generated into `cache` if it is not there yet."""
    if name not in GENERATORS:
        raise KeyError(f"unknown model '{name}' (known: {', '.join(sorted(GENERATORS))}; a "
                       "case's models are known once the case is loaded)")
    key = recipe(name)
    found = sorted(cache.glob(f"{name}-{key}.*")) if cache.is_dir() else []
    if found:
        return found[0]
    data, suffix = GENERATORS[name]()
    out = cache / f"{name}-{key}{suffix}"
    with atomic_file(out) as tmp:
        tmp.write_bytes(data)
    return out
