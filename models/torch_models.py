"""TorchScript models for 9.0.2's LibTorch backend (dnn_backend_torch.cpp).

What the backend expects:
- a torch.jit module whose forward takes one float tensor NCHW [1, 3, H, W] (RGB,
  planar, in [0, 1]) and returns one 4-D tensor NCHW, read as RGB in [0, 1] (x 255);
  H and W are whatever the frame has;
- at least one parameter: th_start_inference() reads the device from
  `*jit_model->parameters().begin()`, which dereferences an empty list's end on a
  module without parameters (a crash);
- `input=` and `output=` are ignored (a warning); dnn_processing only.

The models are written by LibTorch itself, the very library the trees link: the small
program models/torch_model.cpp, compiled once against the torch backend
(harness/obtain/backends/torch.py, a CPU LibTorch by harness/obtain/libtorch.py's rule) and kept in the
cache. No torch Python package is needed: on the public index the Linux torch wheel is a
CUDA build, and a second torch in .venv would be one more multi-GB download.
"""

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GAIN, BIAS = 0.75, 0.125  # unlike tf-scale, so the two whole-clip rows differ
SOURCE = Path(__file__).with_name("torch_model.cpp")
LIBS = ("-ltorch", "-ltorch_cpu", "-lc10")


def _backend():
    from harness.obtain import backends
    return backends.install("torch")


def recipe() -> str:
    """What the models' bytes depend on besides this file: the program and the LibTorch
    it is built against (its cache entry and versions)."""
    b = _backend()
    return hashlib.sha256(SOURCE.read_bytes() + str(b.root).encode() +
                          repr(sorted(b.versions.items())).encode()).hexdigest()[:16]


def helper() -> Path:
    """models/torch_model.cpp compiled against the torch backend, once per recipe."""
    from harness.errors import BackendError
    from harness.paths import atomic_dir, cache_root
    b = _backend()
    final = cache_root() / "models" / f"torch_model-{recipe()}"
    exe = final / "torch_model"
    if exe.is_file():
        return exe
    cxx = shutil.which("c++") or shutil.which("g++")
    if not cxx:
        raise BackendError("no C++ compiler for models/torch_model.cpp (apt-get install g++)")
    print(f"models: compiling torch_model.cpp against {b.root.name} (about a minute)",
          file=sys.stderr, flush=True)
    with atomic_dir(final) as tmp:
        cmd = [cxx, "-std=c++17", "-O1", "-o", str(tmp / "torch_model"), str(SOURCE),
               *b.cflags, *b.ldflags, *(f"-Wl,-rpath,{d}" for d in b.runtime_dirs), *LIBS]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            errors = [l for l in r.stderr.splitlines() if "error" in l] or r.stderr.splitlines()
            raise BackendError(f"models/torch_model.cpp does not build against "
                               f"{b.root.name}: {(errors or ['no output'])[0]}")
    return exe


def _call(*args: str) -> str:
    from harness.errors import BackendError
    r = subprocess.run([str(helper()), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise BackendError(f"torch_model {args[0]}: "
                           f"{(r.stderr.strip().splitlines() or ['exit %d' % r.returncode])[-1]}")
    return r.stdout


def _save(gain: float, bias: float) -> bytes:
    # a fixed file name: LibTorch names the archive's top folder after it
    with tempfile.TemporaryDirectory(prefix="ffdnn-torch-model-") as tmp:
        out = Path(tmp) / "model.pt"
        _call("save", repr(gain), repr(bias), str(out))
        return out.read_bytes()


def run(path: Path) -> tuple:
    """(parameter count, output shape, output values) of the model for the program's
    fixed input x = i / 12, i = 0..11, shape [1, 3, 2, 2]: LibTorch's own reading."""
    lines = _call("run", str(path)).splitlines()
    params = int(lines[0].split()[1])
    shape = [int(w) for w in lines[1].split()[1:]]
    return params, shape, [float(v) for v in lines[2:]]


def identity():
    """y = 1 * x + 0: exact identity on the frame, with two parameters."""
    return _save(1.0, 0.0), ".pt"


def scale():
    """y = 0.75 * x + 0.125: a non-identity model whose output stays in [0.125, 0.875]."""
    return _save(GAIN, BIAS), ".pt"
