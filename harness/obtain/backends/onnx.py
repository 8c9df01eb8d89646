"""ONNX Runtime: the library from the onnxruntime wheel, the C header from the chain of
harness/obtain/ort_header.py (the wheel ships none)."""

import tempfile
from pathlib import Path

from harness.errors import BackendError
from harness.obtain import ort_header
from harness.obtain.backends.backend import Backend
from harness.obtain.backends.fetch import link, wheel


def install(dest: Path, version: str) -> dict:
    versions = wheel(f"onnxruntime=={version}", dest / "wheel", "onnxruntime/capi/")
    with tempfile.TemporaryDirectory(prefix="ffdnn-ort-") as work:
        versions.update(ort_header.install(dest / "include", Path(work)))
    libs = sorted((dest / "wheel/onnxruntime/capi").glob("libonnxruntime.so.*"))
    if not libs:
        raise BackendError("onnxruntime wheel has no libonnxruntime.so.*")
    lib = dest / "lib"
    # The SONAME is libonnxruntime.so.1, which the wheel does not ship under that name.
    link(libs[0], lib / "libonnxruntime.so", lib / "libonnxruntime.so.1")
    return {"versions": versions,
            "configure": ["--enable-libonnxruntime"],
            "cflags": [f"-I{dest / 'include'}"],
            "ldflags": [f"-L{lib}", f"-Wl,-rpath,{lib}"],
            "runtime_dirs": [str(lib)]}


BACKEND = Backend(
    name="onnx", package="onnxruntime", version="1.32.0", install=install,
    library="libonnxruntime", label="ONNX", product="ONNX Runtime", dnn_type="DNN_ONNX",
    option="onnx", marker="onnx", processing=":threads_per_operation=1",
    identity="onnx-identity", non_identity="onnx-conv", generator="onnx_models",
)
