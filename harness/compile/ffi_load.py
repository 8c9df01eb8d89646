"""The per-build cffi module imported into this process (a worker's), compiled first if
the cache lacks it (ffi_build), its stamp checked against the tree's; its `lib` without
the names the tree's HAS_* flags take away (declarations)."""

import importlib.util

from harness.compile import ffi_build
from harness.compile.declarations import MODULE_NAME, conditional_lib, conditional_names
from harness.errors import StampError
from harness.obtain.tree import check_stamp


def load(tree, variant: str = "preload"):
    """Import the module for `tree` in this process; check its stamp."""
    check_stamp(tree)
    so = ffi_build.check_module(ffi_build.build(tree, variant))
    spec = importlib.util.spec_from_file_location(MODULE_NAME, so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = mod.ffi.string(mod.lib.ffdnn_build_stamp()).decode()
    expected = ffi_build.expected_stamp(tree, variant)
    if got != expected:
        raise StampError(f"{so}: stamp {got} does not match build {expected}")
    return mod.ffi, conditional_lib(mod.lib, conditional_names())
