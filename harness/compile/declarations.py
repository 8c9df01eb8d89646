"""What the per-build cffi module declares: its declaration modules in _cffi_src joined
into one cdef and one C source (pyca/cryptography's build driver), the names a tree
without a HAS_* flag's feature loses, and the hash of what the module is made of."""

import importlib
import types
from pathlib import Path

from harness.compile import injector_build as injectors
from harness.compile._cffi_src import MODULES
from harness.obtain import flags, probe, sourcetext
from harness.paths import digest

MODULE_NAME = "_ffdnn"


def _modules():
    return [importlib.import_module(f"harness.compile._cffi_src.{m}") for m in MODULES]


def _parts():
    mods = _modules()
    cdef = "\n".join(m.TYPES for m in mods) + "\n".join(m.FUNCTIONS for m in mods)
    cdef += "\nconst char *ffdnn_build_stamp(void);\n"
    source = "\n".join(m.INCLUDES for m in mods) + "\n".join(m.CUSTOMIZATIONS for m in mods)
    return cdef, source


def conditional_names() -> dict:
    """HAS_* flag -> the names `lib` loses when the tree lacks what the flag stands for."""
    out = {}
    for m in _modules():
        out.update(getattr(m, "CONDITIONAL_NAMES", {}))
    return out


def conditional_lib(lib, names: dict):
    """`lib` without the names of every HAS_* flag that is 0 (pyca/cryptography's
    build_conditional_library): a tree without DNN_ONNX has no lib.DNN_ONNX."""
    drop = {n for flag, ns in names.items() if not getattr(lib, flag) for n in ns}
    out = types.ModuleType("lib")
    for name in dir(lib):
        if name not in drop and not name.startswith("__"):
            setattr(out, name, getattr(lib, name))
    return out


def cdef_hash() -> str:
    """What the module is made of besides the tree: the declarations, this file and the
    module that compiles it (ffi_build.py; not the loader, whose code is not in it), and
    the injectors it compiles in (their stanzas, C, headers and generator)."""
    here = Path(__file__)
    src = here.with_name("_cffi_src")
    files = (sorted([*src.glob("*.py"), *src.glob("*.c")])
             + [here, here.with_name("ffi_build.py")]
             + [Path(probe.__file__), Path(flags.__file__), Path(sourcetext.__file__)]
             + injectors.sources())
    return digest([f.read_text() for f in files])[:16]
