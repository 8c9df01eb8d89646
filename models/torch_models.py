"""TorchScript models for 9.0.2's LibTorch backend (dnn_backend_torch.cpp).

What the backend expects:
- a torch.jit module whose forward takes one float tensor NCHW [1, 3, H, W] (RGB,
  planar, in [0, 1]) and returns one 4-D tensor NCHW, read as RGB in [0, 1] (x 255);
  H and W are whatever the frame has;
- at least one parameter: th_start_inference() reads the device from
  `*jit_model->parameters().begin()`, which dereferences an empty list's end on a
  module without parameters (a crash);
- `input=` and `output=` are ignored (a warning); dnn_processing only.

torch is imported inside the generators, so the package imports without it. Only
torch==2.13.0 (CPU wheel) is meant to be installed for this.
"""

import io
import linecache
import warnings

GAIN, BIAS = 0.75, 0.125  # unlike tf-scale, so the two whole-clip rows differ

# The module's source, compiled under a fixed pseudo file name registered in
# linecache: torch.jit.script() reads a method's source through inspect and writes
# its file name into the archive's .debug_pkl, so a class defined in this file would
# put this checkout's absolute path into the model's bytes (and its hash).
_FILE = "ffdnn_torch_models.py"
_SOURCE = """\
import torch


class Affine(torch.nn.Module):
    def __init__(self, gain: float, bias: float):
        super().__init__()
        self.gain = torch.nn.Parameter(torch.tensor([gain], dtype=torch.float32),
                                       requires_grad=False)
        self.bias = torch.nn.Parameter(torch.tensor([bias], dtype=torch.float32),
                                       requires_grad=False)

    def forward(self, x):
        return x * self.gain + self.bias
"""
_classes = {}


def _affine_class():
    """Affine, defined once per process: a second definition of a class of the same
    name would be scripted as ___torch_mangle_N, changing the bytes."""
    if "Affine" not in _classes:
        linecache.cache[_FILE] = (len(_SOURCE), None, _SOURCE.splitlines(True), _FILE)
        namespace = {"__name__": "ffdnn_torch_models"}
        exec(compile(_SOURCE, _FILE, "exec"), namespace)
        _classes["Affine"] = namespace["Affine"]
    return _classes["Affine"]


def _save(gain: float, bias: float) -> bytes:
    import torch

    with warnings.catch_warnings():
        # torch 2.13 deprecates TorchScript, which is what 9.0.2's backend loads
        warnings.filterwarnings("ignore", r".*torch\.jit", DeprecationWarning)
        module = torch.jit.script(_affine_class()(gain, bias).eval())
        buf = io.BytesIO()
        torch.jit.save(module, buf)
    return buf.getvalue()


def identity():
    """y = 1 * x + 0: exact identity on the frame, with two parameters."""
    return _save(1.0, 0.0), ".pt"


def scale():
    """y = 0.75 * x + 0.125: a non-identity model whose output stays in [0.125, 0.875]."""
    return _save(GAIN, BIAS), ".pt"
