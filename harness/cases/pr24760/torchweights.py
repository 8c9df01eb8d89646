"""Read a PyTorch state dict (`torch.save` of a dict of tensors) into numpy, without torch.

Both of torch's file layouts hold a pickle whose tensors are `torch._utils.
_rebuild_tensor_v2(storage, offset, size, stride, ...)` calls on persistent storages:

- legacy (what facenet-pytorch ships): four pickles in a row (magic number, protocol,
  system info, the object), then a pickle of the storage keys in file order, then per
  key a little-endian int64 element count and the raw elements;
- zip (torch >= 1.6): `<archive>/data.pkl`, each storage a member `<archive>/data/<key>`.

The unpickler here resolves only the names a state dict uses (an OrderedDict, the
rebuild function, typed storage classes); any other global is refused, so loading a
file runs none of its code.
"""

import io
import pickle
import struct
import zipfile
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
          "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
          "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_}


class WeightsError(ValueError):
    """The file is not a state dict this reader understands."""


@dataclass
class _Storage:
    key: str
    dtype: type


@dataclass
class _Tensor:
    storage: _Storage
    offset: int
    size: tuple
    stride: tuple


def _rebuild_tensor_v2(storage, offset, size, stride, *_ignored):
    return _Tensor(storage, offset, tuple(size), tuple(stride))


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor_v2
        if module == "torch" and name in DTYPES:
            return name
        raise WeightsError(f"refusing to load {module}.{name} from a weights file")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise WeightsError(f"unknown persistent id {pid!r}")
        _, kind, key, _location, _numel = pid[:5]
        if kind not in DTYPES:
            raise WeightsError(f"unsupported storage type {kind!r}")
        return _Storage(str(key), DTYPES[kind])


def _array(t: _Tensor, raw: dict) -> np.ndarray:
    flat = np.frombuffer(raw[t.storage.key], dtype=t.storage.dtype)
    item = flat.itemsize
    view = np.lib.stride_tricks.as_strided(flat[t.offset:], shape=t.size,
                                           strides=[s * item for s in t.stride])
    return np.array(view)  # a contiguous copy


def _legacy(data: bytes) -> tuple:
    f = io.BytesIO(data)
    if pickle.load(f) != LEGACY_MAGIC:
        raise WeightsError("not a PyTorch file (bad magic number)")
    pickle.load(f)  # protocol version
    pickle.load(f)  # system info (endianness, type sizes)
    obj = _Unpickler(f).load()
    keys = pickle.load(f)
    storages = {}
    _collect(obj, storages)
    raw = {}
    for key in keys:
        (count,) = struct.unpack("<q", f.read(8))
        st = storages.get(key)
        width = np.dtype(st.dtype).itemsize if st else 0
        if st is None:
            raise WeightsError(f"storage {key} is not used by any tensor")
        raw[key] = f.read(count * width)
    return obj, raw


def _zipped(data: bytes) -> tuple:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        pkl = [n for n in z.namelist() if n.endswith("/data.pkl")]
        if not pkl:
            raise WeightsError("zip file without data.pkl")
        root = pkl[0][: -len("data.pkl")]
        obj = _Unpickler(io.BytesIO(z.read(pkl[0]))).load()
        storages = {}
        _collect(obj, storages)
        raw = {k: z.read(f"{root}data/{k}") for k in storages}
    return obj, raw


def _collect(obj, out: dict) -> None:
    for v in obj.values() if isinstance(obj, dict) else ():
        if isinstance(v, _Tensor):
            out[v.storage.key] = v.storage


def load(data: bytes) -> "OrderedDict[str, np.ndarray]":
    """The state dict in `data` (the bytes of a .pt file) as name -> numpy array."""
    obj, raw = (_zipped if data[:4] == b"PK\x03\x04" else _legacy)(data)
    if not isinstance(obj, dict):
        raise WeightsError(f"expected a state dict, found {type(obj).__name__}")
    return OrderedDict((k, _array(v, raw)) for k, v in obj.items() if isinstance(v, _Tensor))
