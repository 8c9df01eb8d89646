"""Is a file the user names with --model a model its backend reads? Checked before any
tree is built or any run starts: a text file given as a model is bad input (one line,
exit 2), not eight ERROR outcomes."""

import zipfile
from pathlib import Path
from xml.etree import ElementTree

from harness.errors import ScenarioError


def _varint(data: bytes, i: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if i >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        b = data[i]
        n |= (b & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not b & 0x80:
            return n, i


def protobuf_fields(data: bytes) -> set:
    """The top-level field numbers of a protobuf message; ValueError when `data` is not
    one (every field must decode and the last must end at the end of the data)."""
    i, seen = 0, set()
    while i < len(data):
        key, i = _varint(data, i)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise ValueError("field 0")
        if wire == 0:
            _, i = _varint(data, i)
        elif wire == 1:
            i += 8
        elif wire == 2:
            size, i = _varint(data, i)
            i += size
        elif wire == 5:
            i += 4
        else:
            raise ValueError(f"wire type {wire}")
        if i > len(data):
            raise ValueError("truncated field")
        seen.add(field)
    return seen


def _onnx(data: bytes) -> str | None:
    try:  # ModelProto: ir_version (1) and graph (7)
        fields = protobuf_fields(data)
    except ValueError as e:
        return f"not an ONNX model ({e})"
    return None if {1, 7} <= fields else "not an ONNX model (no ir_version and graph)"


def _graphdef(data: bytes) -> str | None:
    try:  # GraphDef: node (1), versions (4), library (2)
        fields = protobuf_fields(data)
    except ValueError as e:
        return f"not a TensorFlow GraphDef ({e})"
    return None if 1 in fields else "not a TensorFlow GraphDef (no node)"


def _torchscript(path: Path) -> str | None:
    if not zipfile.is_zipfile(path):
        return "not a TorchScript archive (not a zip file)"
    with zipfile.ZipFile(path) as z:
        if not any(n.endswith(("/data.pkl", "/constants.pkl")) for n in z.namelist()):
            return "not a TorchScript archive (no data.pkl)"
    return None


def _openvino(path: Path, data: bytes) -> str | None:
    if path.suffix != ".xml":
        return _onnx(data)
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as e:
        return f"not an OpenVINO IR ({e})"
    return None if root.tag == "net" else "not an OpenVINO IR (no <net>)"


def check(path: Path, backend: str) -> None:
    """A ScenarioError naming the file and what it is not, else nothing."""
    data = path.read_bytes()
    if not data:
        raise ScenarioError(f"--model {path}: an empty file")
    why = {"onnx": lambda: _onnx(data), "tf": lambda: _graphdef(data),
           "torch": lambda: _torchscript(path),
           "openvino": lambda: _openvino(path, data)}.get(backend, lambda: None)()
    if why:
        raise ScenarioError(f"--model {path}: {why} for the {backend} backend")


def why_not(path: Path) -> str | None:
    """Why a cached model (named by its suffix) is not one, or None."""
    try:
        data = path.read_bytes()
    except OSError as e:
        return e.strerror
    if not data:
        return "empty"
    return {".onnx": lambda: _onnx(data), ".pb": lambda: _graphdef(data),
            ".pt": lambda: _torchscript(path)}.get(path.suffix, lambda: None)()
