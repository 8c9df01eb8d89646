"""The TensorFlow, OpenVINO and Torch models: reproducible, and run by the libraries
the builds link, the way 9.0.2's backends run them.

- TensorFlow: the C API of the tensorflow-cpu 2.18.0 wheel's libtensorflow_cc.so.2
  (FFDNN_TF_LIB, a file or a folder, else the backend installed in the cache);
  skipped when it is not there.
- OpenVINO: ONNX Runtime checks the numerics of the ONNX files; the OpenVINO C API
  (FFDNN_OV_LIB, else the openvino 2026.4.1 backend in the cache), when there, runs
  them through the same pre/post-processing set-up as init_model_ov().
- Torch: LibTorch itself (models/torch_model.cpp against the torch backend);
  skipped when no LibTorch is installed.
"""

import fnmatch
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from harness.obtain import models
from harness.obtain import backends
from harness.paths import cache_root, data_dir
from harness.obtain.models import ov_models, protobuf as pb, tf_models

pytestmark = pytest.mark.unit

TORCH = ("torch-identity", "torch-scale")
LIGHT = sorted(n for n in models.GENERATORS if n not in TORCH)


def find_lib(env: str, backend_dir: str, pattern: str):
    """The library named by `env` (a file, or a folder to search), else the one in the
    cache's backend folder; (path or None, what was looked at)."""
    if os.environ.get(env):
        root = Path(os.environ[env])
        where = f"{env}={root}"
    else:
        root = cache_root() / "backends" / backend_dir
        where = str(root)
    if root.is_file():
        return root.resolve(), where
    found = set()
    for d, _, files in os.walk(root, followlinks=True):
        for f in fnmatch.filter(files, pattern):
            p = Path(d, f)
            if p.exists():  # resolved: a symlink elsewhere would break its $ORIGIN run path
                found.add(p.resolve())
    return (min(found) if found else None), where


# ---- generators: deterministic -------------------------------------------------------

@pytest.mark.parametrize("name", LIGHT)
def test_generation_is_deterministic(name, tmp_path):
    a, suffix = models.GENERATORS[name]()
    b, suffix2 = models.GENERATORS[name]()
    assert a == b and suffix == suffix2
    p = models.path(name, tmp_path)
    assert p.read_bytes() == a and p.suffix == suffix
    assert models.path(name, tmp_path) == p


def test_generators_known():
    for name in ("tf-identity", "tf-scale", "tf-det", "ov-identity", "ov-scale",
                 "ov-classify", "ov-classify-labels", "ov-detect", *TORCH):
        assert name in models.GENERATORS


def test_backend_models_are_named_by_the_entry():
    """A backend's entry names its models and the module of models/ that writes them: no
    other table to edit when a backend is added."""
    for b in backends.BACKENDS.values():
        for name in (b.identity, b.non_identity):
            g = models.GENERATORS[name]
            assert g.module_file == data_dir("models") / f"{b.generator}.py"  # models/
            func = g.__name__.rsplit(".", 1)[1]
            assert re.search(rf"^def {func}\(", g.module_file.read_text(), re.M), g.__name__


# ---- protobuf encoder ----------------------------------------------------------------

def test_varint():
    assert pb.varint(0) == b"\x00"
    assert pb.varint(1) == b"\x01"
    assert pb.varint(127) == b"\x7f"
    assert pb.varint(300) == b"\xac\x02"
    assert pb.varint(-1) == b"\xff" * 9 + b"\x01"  # int64 -1: 10 bytes
    with pytest.raises(ValueError):
        pb.varint(1 << 64)


def test_fields_round_trip():
    msg = (pb.int_field(1, 150) + pb.str_field(2, "testing") + pb.int_field(3, -1)
           + pb.packed_floats(5, [1.0, 0.5]) + pb.message(7, pb.int_field(1, 2)))
    assert msg[:3] == b"\x08\x96\x01"  # the protobuf docs' example: field 1 = 150
    fields = pb.decode(msg)
    assert fields[0] == (1, 0, 150)
    assert fields[1] == (2, 2, b"testing")
    assert fields[2] == (3, 0, (1 << 64) - 1)
    assert struct.unpack("<2f", fields[3][2]) == (1.0, 0.5)
    assert pb.decode(fields[4][2]) == [(1, 0, 2)]


def graph_nodes(data: bytes) -> dict:
    """GraphDef bytes -> {node name: (op, inputs, {attr: AttrValue bytes})}, versions."""
    nodes, versions = {}, None
    for field, _, value in pb.decode(data):
        if field == 1:
            f = pb.decode(value)
            name = next(v for k, _, v in f if k == 1).decode()
            op = next(v for k, _, v in f if k == 2).decode()
            inputs = [v.decode() for k, _, v in f if k == 3]
            attrs = {}
            for k, _, v in f:
                if k == 5:
                    entry = dict((ek, ev) for ek, _, ev in pb.decode(v))
                    attrs[entry[1].decode()] = entry.get(2, b"")
            nodes[name] = (op, inputs, attrs)
        elif field == 4:
            versions = pb.decode(value)
    return nodes, versions


def test_graphdef_structure():
    nodes, versions = graph_nodes(tf_models.identity()[0])
    assert versions == [(1, 0, tf_models.PRODUCER)]
    op, inputs, attrs = nodes["x"]
    assert op == "Placeholder" and inputs == []
    assert pb.decode(attrs["dtype"]) == [(6, 0, tf_models.DT_FLOAT)]
    shape = pb.decode(pb.decode(attrs["shape"])[0][2])
    assert [pb.decode(d)[0][2] for _, _, d in shape] == [1, (1 << 64) - 1, (1 << 64) - 1, 3]
    assert nodes["y"][:2] == ("Identity", ["x"])
    det, _ = graph_nodes(tf_models.det()[0])
    assert set(tf_models.DET_OUTPUTS) <= set(det)
    assert pb.decode(det["image_tensor"][2]["dtype"]) == [(6, 0, tf_models.DT_UINT8)]


# ---- TensorFlow C API ----------------------------------------------------------------

TF_CDEF = """
typedef struct TF_Graph TF_Graph; typedef struct TF_Status TF_Status;
typedef struct TF_ImportGraphDefOptions TF_ImportGraphDefOptions;
typedef struct TF_Operation TF_Operation; typedef struct TF_SessionOptions TF_SessionOptions;
typedef struct TF_Session TF_Session; typedef struct TF_Tensor TF_Tensor;
typedef struct TF_Buffer { const void* data; size_t length; void* deallocator; } TF_Buffer;
typedef struct TF_Output { TF_Operation* oper; int index; } TF_Output;
const char* TF_Version(void);
TF_Graph* TF_NewGraph(void); void TF_DeleteGraph(TF_Graph*);
TF_Status* TF_NewStatus(void); void TF_DeleteStatus(TF_Status*);
int TF_GetCode(const TF_Status*); const char* TF_Message(const TF_Status*);
TF_Buffer* TF_NewBufferFromString(const void*, size_t); TF_Buffer* TF_NewBuffer(void);
void TF_DeleteBuffer(TF_Buffer*);
TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void);
void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions*);
void TF_GraphImportGraphDef(TF_Graph*, const TF_Buffer*, const TF_ImportGraphDefOptions*,
                            TF_Status*);
void TF_GraphToGraphDef(TF_Graph*, TF_Buffer*, TF_Status*);
TF_Operation* TF_GraphOperationByName(TF_Graph*, const char*);
int TF_OperationOutputType(TF_Output);
void TF_GraphGetTensorShape(TF_Graph*, TF_Output, int64_t*, int, TF_Status*);
TF_SessionOptions* TF_NewSessionOptions(void); void TF_DeleteSessionOptions(TF_SessionOptions*);
TF_Session* TF_NewSession(TF_Graph*, const TF_SessionOptions*, TF_Status*);
void TF_CloseSession(TF_Session*, TF_Status*); void TF_DeleteSession(TF_Session*, TF_Status*);
TF_Tensor* TF_AllocateTensor(int, const int64_t*, int, size_t); void TF_DeleteTensor(TF_Tensor*);
void* TF_TensorData(const TF_Tensor*); size_t TF_TensorByteSize(const TF_Tensor*);
int TF_NumDims(const TF_Tensor*); int64_t TF_Dim(const TF_Tensor*, int);
int TF_TensorType(const TF_Tensor*);
void TF_SessionRun(TF_Session*, const TF_Buffer*, const TF_Output*, TF_Tensor* const*, int,
                   const TF_Output*, TF_Tensor**, int, const TF_Operation* const*, int,
                   TF_Buffer*, TF_Status*);
"""
TF_FLOAT, TF_UINT8 = 1, 4


class TF:
    """Import a GraphDef and run it, as dnn_backend_tf.c does (one input, N outputs)."""

    def __init__(self, path):
        import cffi
        self.ffi = cffi.FFI()
        self.ffi.cdef(TF_CDEF)
        self.lib = self.ffi.dlopen(str(path))
        self.version = self.ffi.string(self.lib.TF_Version()).decode()

    def check(self, status, what):
        code = self.lib.TF_GetCode(status)
        assert code == 0, f"{what}: TF code {code}: {self.ffi.string(self.lib.TF_Message(status))}"

    def load(self, data: bytes):
        lib, st = self.lib, self.lib.TF_NewStatus()
        graph, buf = lib.TF_NewGraph(), lib.TF_NewBufferFromString(data, len(data))
        opts = lib.TF_NewImportGraphDefOptions()
        lib.TF_GraphImportGraphDef(graph, buf, opts, st)
        lib.TF_DeleteImportGraphDefOptions(opts)
        lib.TF_DeleteBuffer(buf)
        self.check(st, "TF_GraphImportGraphDef")
        lib.TF_DeleteStatus(st)
        return graph

    def output(self, graph, name):
        op = self.lib.TF_GraphOperationByName(graph, name.encode())
        assert op != self.ffi.NULL, f"no op {name!r} in the graph"
        return self.ffi.new("TF_Output *", {"oper": op, "index": 0})

    def input_info(self, graph, name):
        """get_input_tf(): dtype and the 4-D shape (which must have rank 4)."""
        out = self.output(graph, name)
        dims, st = self.ffi.new("int64_t[4]"), self.lib.TF_NewStatus()
        self.lib.TF_GraphGetTensorShape(graph, out[0], dims, 4, st)
        self.check(st, "TF_GraphGetTensorShape (rank 4)")
        self.lib.TF_DeleteStatus(st)
        return self.lib.TF_OperationOutputType(out[0]), list(dims)

    def graphdef(self, graph) -> bytes:
        buf, st = self.lib.TF_NewBuffer(), self.lib.TF_NewStatus()
        self.lib.TF_GraphToGraphDef(graph, buf, st)
        self.check(st, "TF_GraphToGraphDef")
        data = self.ffi.buffer(buf.data, buf.length)[:]
        self.lib.TF_DeleteBuffer(buf)
        return data

    def run(self, data: bytes, input_name, output_names, x: np.ndarray):
        lib, ffi = self.lib, self.ffi
        graph = self.load(data)
        st, opts = lib.TF_NewStatus(), lib.TF_NewSessionOptions()
        sess = lib.TF_NewSession(graph, opts, st)
        lib.TF_DeleteSessionOptions(opts)
        self.check(st, "TF_NewSession")
        dims = ffi.new("int64_t[]", list(x.shape))
        dt = TF_UINT8 if x.dtype == np.uint8 else TF_FLOAT
        tin = lib.TF_AllocateTensor(dt, dims, x.ndim, x.nbytes)
        ffi.memmove(lib.TF_TensorData(tin), np.ascontiguousarray(x).tobytes(), x.nbytes)
        inputs = ffi.new("TF_Tensor *[1]", [tin])
        outs = ffi.new("TF_Output[]", [self.output(graph, n)[0] for n in output_names])
        vals = ffi.new("TF_Tensor *[]", len(output_names))
        lib.TF_SessionRun(sess, ffi.NULL, self.output(graph, input_name), inputs, 1,
                          outs, vals, len(output_names), ffi.NULL, 0, ffi.NULL, st)
        self.check(st, "TF_SessionRun")
        results = []
        for i in range(len(output_names)):
            t = vals[i]
            assert lib.TF_TensorType(t) == TF_FLOAT
            shape = [lib.TF_Dim(t, d) for d in range(lib.TF_NumDims(t))]
            raw = ffi.buffer(lib.TF_TensorData(t), lib.TF_TensorByteSize(t))[:]
            results.append(np.frombuffer(raw, np.float32).reshape(shape).copy())
            lib.TF_DeleteTensor(t)
        lib.TF_DeleteTensor(tin)
        lib.TF_CloseSession(sess, st)
        lib.TF_DeleteSession(sess, st)
        lib.TF_DeleteGraph(graph)
        lib.TF_DeleteStatus(st)
        return results


@pytest.fixture(scope="module")
def tf():
    path, where = find_lib("FFDNN_TF_LIB", "tensorflow-cpu-2.18.0", "libtensorflow_cc.so.2")
    if path is None:
        pytest.skip(f"TensorFlow C library libtensorflow_cc.so.2 not found under {where} "
                    "(set FFDNN_TF_LIB, or install the tf backend)")
    return TF(path)


@pytest.fixture(scope="module")
def rgb_float():
    return np.random.default_rng(5).random((1, 4, 4, 3), dtype=np.float32)


@pytest.mark.parametrize("name", ["tf-identity", "tf-scale"])
def test_tf_processing_input(tf, name):
    graph = tf.load(models.GENERATORS[name]()[0])
    assert tf.input_info(graph, "x") == (TF_FLOAT, [1, -1, -1, 3])
    tf.output(graph, "y")


def test_tf_identity(tf, rgb_float):
    (y,) = tf.run(tf_models.identity()[0], "x", ["y"], rgb_float)
    np.testing.assert_array_equal(y, rgb_float)


def test_tf_scale(tf, rgb_float):
    (y,) = tf.run(tf_models.scale()[0], "x", ["y"], rgb_float)
    assert y.shape == rgb_float.shape
    np.testing.assert_allclose(y, rgb_float * np.float32(0.5) + np.float32(0.25), rtol=1e-6)
    # dynamic H and W: another frame size in the same graph
    (y2,) = tf.run(tf_models.scale()[0], "x", ["y"], np.zeros((1, 7, 5, 3), np.float32))
    np.testing.assert_allclose(y2, 0.25)


def tf_detect_post_proc(outputs, width, height, threshold=0.5):
    """dnn_detect_post_proc_tf() of 9.0.2, in float32 as the C does it."""
    count = int(outputs[0].ravel()[0])
    conf, labels, pos = (o.ravel().astype(np.float32) for o in outputs[1:])
    boxes = []
    for i in range(count):
        if conf[i] < np.float32(threshold):
            continue
        y0, x0, y1, x1 = pos[i * 4:i * 4 + 4]
        x, y = int(x0 * np.float32(width)), int(y0 * np.float32(height))
        boxes.append({"x": x, "y": y, "w": int(x1 * np.float32(width)) - x,
                      "h": int(y1 * np.float32(height)) - y, "label": int(labels[i]),
                      "confidence": int(conf[i] * np.float32(10000))})
    return boxes


def test_tf_det(tf):
    data = tf_models.det()[0]
    graph = tf.load(data)
    # uint8: ff_frame_to_dnn_detect() aborts on a float model input
    assert tf.input_info(graph, "image_tensor") == (TF_UINT8, [1, -1, -1, 3])
    frame = np.random.default_rng(6).integers(0, 256, (1, 64, 64, 3), dtype=np.uint8)
    outs = tf.run(data, "image_tensor", list(tf_models.DET_OUTPUTS), frame)
    assert [o.shape for o in outs] == [(1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 4)]
    assert all(o.ndim == 4 for o in outs)  # the backend reads TF_Dim(t, 1..3) of each
    assert tf_detect_post_proc(outs, 64, 64) == [
        {"x": 16, "y": 16, "w": 32, "h": 32, "label": 0, "confidence": 9000}]
    small = tf.run(data, "image_tensor", list(tf_models.DET_OUTPUTS),
                   np.zeros((1, 4, 4, 3), np.uint8))
    for a, b in zip(outs, small):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["tf-identity", "tf-scale", "tf-det"])
def test_tf_reads_what_was_written(tf, name):
    """TF's own serialisation of the imported graph has the same nodes, inputs and
    attributes (TF orders map entries its own way and adds an empty `library`)."""
    ours = models.GENERATORS[name]()[0]
    theirs = tf.graphdef(tf.load(ours))
    assert graph_nodes(theirs) == graph_nodes(ours)


# ---- OpenVINO models: ONNX Runtime ---------------------------------------------------

def ort_run(data: bytes, feeds: dict):
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


@pytest.mark.parametrize("name", ["ov-identity", "ov-scale", "ov-classify", "ov-detect"])
def test_ov_models_static(name):
    """9.0.2's get_input_ov() fails on a dynamic input shape; one input, one output."""
    model = onnx.load_from_string(models.GENERATORS[name]()[0])
    (inp,) = model.graph.input
    assert inp.name == "x"
    dims = inp.type.tensor_type.shape.dim
    assert all(d.HasField("dim_value") for d in dims), "static input"
    assert len(model.graph.output) == 1


@pytest.fixture(scope="module")
def nchw():
    return np.random.default_rng(7).random((1, 3, 64, 64), dtype=np.float32)


def test_ov_identity_ort(nchw):
    (y,) = ort_run(ov_models.identity()[0], {"x": nchw})
    np.testing.assert_array_equal(y, nchw)


def test_ov_scale_ort(nchw):
    (y,) = ort_run(ov_models.scale()[0], {"x": nchw})
    np.testing.assert_allclose(y, nchw * np.float32(0.5) + np.float32(0.25), rtol=1e-6)


def classify_expected(x):
    w, b = ov_models.classify_weights()
    logits = x.reshape(-1, 3).mean(0) / 255 @ w + b
    e = np.exp(logits - logits.max())
    return (e / e.sum())[None]


def test_ov_classify_ort():
    rng = np.random.default_rng(8)
    crops = [rng.integers(0, 256, (1, 32, 32, 3)).astype(np.float32)]
    # every corner of the colour cube: the logits are linear in the mean colour, so
    # the least confident case is a corner
    crops += [np.broadcast_to(np.array(c, np.float32) * 255, (1, 32, 32, 3)).copy()
              for c in np.ndindex(2, 2, 2)]
    for x in crops:
        (y,) = ort_run(ov_models.classify()[0], {"x": x})
        assert y.shape == (1, 3)
        np.testing.assert_allclose(y, classify_expected(x), rtol=1e-5, atol=1e-6)
        assert int(y.argmax()) == 1 and y.max() > 0.6  # "dog", above the 0.5 default


def test_ov_classify_labels():
    data, suffix = ov_models.classify_labels()
    assert (data, suffix) == (b"cat\ndog\nbird\n", ".txt")
    n = onnx.load_from_string(ov_models.classify()[0]).graph.output[0]
    assert n.type.tensor_type.shape.dim[1].dim_value == len(data.splitlines())


def ssd_post_proc(row_block, width, height, threshold=0.5):
    """dnn_detect_post_proc_ssd() of 9.0.2 for one [1, 1, N, 7] output."""
    boxes = []
    for det in row_block.reshape(-1, 7).astype(np.float32):
        _, label, conf, x0, y0, x1, y1 = det
        if conf < np.float32(threshold):
            continue
        x, y = int(x0 * np.float32(width)), int(y0 * np.float32(height))
        boxes.append({"x": x, "y": y, "w": int(x1 * np.float32(width)) - x,
                      "h": int(y1 * np.float32(height)) - y, "label": int(label),
                      "confidence": int(conf * np.float32(10000))})
    return boxes


def test_ov_detect_ort():
    x = np.random.default_rng(9).integers(0, 256, (1, 64, 64, 3)).astype(np.float32)
    (y,) = ort_run(ov_models.detect()[0], {"x": x})
    assert y.shape == (1, 1, 1, 7)
    np.testing.assert_array_equal(y.ravel(), np.array(ov_models.DETECT_ROW, np.float32))
    assert ssd_post_proc(y, 64, 64) == [
        {"x": 16, "y": 16, "w": 32, "h": 32, "label": 0, "confidence": 9000}]


# ---- OpenVINO C API: init_model_ov()'s set-up ----------------------------------------

OV_CDEF = """
typedef struct ov_core ov_core_t; typedef struct ov_model ov_model_t;
typedef struct ov_output_const_port ov_output_const_port_t;
typedef struct ov_preprocess_prepostprocessor ov_preprocess_prepostprocessor_t;
typedef struct ov_preprocess_input_info ov_preprocess_input_info_t;
typedef struct ov_preprocess_input_tensor_info ov_preprocess_input_tensor_info_t;
typedef struct ov_preprocess_input_model_info ov_preprocess_input_model_info_t;
typedef struct ov_preprocess_output_info ov_preprocess_output_info_t;
typedef struct ov_preprocess_output_tensor_info ov_preprocess_output_tensor_info_t;
typedef struct ov_preprocess_preprocess_steps ov_preprocess_preprocess_steps_t;
typedef struct ov_layout ov_layout_t; typedef struct ov_compiled_model ov_compiled_model_t;
typedef struct ov_infer_request ov_infer_request_t; typedef struct ov_tensor ov_tensor_t;
typedef struct { int64_t rank; int64_t* dims; } ov_shape_t;
int ov_core_create(ov_core_t**); void ov_core_free(ov_core_t*);
int ov_core_read_model(const ov_core_t*, const char*, const char*, ov_model_t**);
void ov_model_free(ov_model_t*);
int ov_model_const_input_by_name(const ov_model_t*, const char*, ov_output_const_port_t**);
int ov_model_outputs_size(const ov_model_t*, size_t*);
int ov_const_port_get_shape(const ov_output_const_port_t*, ov_shape_t*);
int ov_port_get_element_type(const ov_output_const_port_t*, int*);
void ov_output_const_port_free(ov_output_const_port_t*);
int ov_shape_free(ov_shape_t*);
int ov_preprocess_prepostprocessor_create(const ov_model_t*, ov_preprocess_prepostprocessor_t**);
void ov_preprocess_prepostprocessor_free(ov_preprocess_prepostprocessor_t*);
int ov_preprocess_prepostprocessor_get_input_info_by_name(
    const ov_preprocess_prepostprocessor_t*, const char*, ov_preprocess_input_info_t**);
int ov_preprocess_input_info_get_tensor_info(const ov_preprocess_input_info_t*,
                                             ov_preprocess_input_tensor_info_t**);
int ov_preprocess_input_tensor_info_set_layout(ov_preprocess_input_tensor_info_t*, ov_layout_t*);
int ov_preprocess_input_tensor_info_set_element_type(ov_preprocess_input_tensor_info_t*, int);
int ov_preprocess_input_info_get_model_info(const ov_preprocess_input_info_t*,
                                            ov_preprocess_input_model_info_t**);
int ov_preprocess_input_model_info_set_layout(ov_preprocess_input_model_info_t*, ov_layout_t*);
int ov_preprocess_prepostprocessor_get_output_info_by_index(
    const ov_preprocess_prepostprocessor_t*, size_t, ov_preprocess_output_info_t**);
int ov_preprocess_output_info_get_tensor_info(const ov_preprocess_output_info_t*,
                                              ov_preprocess_output_tensor_info_t**);
int ov_preprocess_output_set_element_type(ov_preprocess_output_tensor_info_t*, int);
int ov_preprocess_input_info_get_preprocess_steps(const ov_preprocess_input_info_t*,
                                                  ov_preprocess_preprocess_steps_t**);
int ov_preprocess_preprocess_steps_convert_element_type(ov_preprocess_preprocess_steps_t*, int);
int ov_preprocess_preprocess_steps_mean(ov_preprocess_preprocess_steps_t*, float);
int ov_preprocess_preprocess_steps_scale(ov_preprocess_preprocess_steps_t*, float);
int ov_preprocess_prepostprocessor_build(const ov_preprocess_prepostprocessor_t*, ov_model_t**);
int ov_layout_create(const char*, ov_layout_t**); void ov_layout_free(ov_layout_t*);
int ov_core_compile_model(const ov_core_t*, const ov_model_t*, const char*, const size_t,
                          ov_compiled_model_t**, ...);
void ov_compiled_model_free(ov_compiled_model_t*);
int ov_compiled_model_create_infer_request(const ov_compiled_model_t*, ov_infer_request_t**);
void ov_infer_request_free(ov_infer_request_t*);
int ov_tensor_create(const int, const ov_shape_t, ov_tensor_t**);
int ov_tensor_data(const ov_tensor_t*, void**); int ov_tensor_get_shape(const ov_tensor_t*, ov_shape_t*);
void ov_tensor_free(ov_tensor_t*);
int ov_infer_request_set_input_tensor(ov_infer_request_t*, const ov_tensor_t*);
int ov_infer_request_infer(ov_infer_request_t*);
int ov_infer_request_get_output_tensor_by_index(const ov_infer_request_t*, const size_t,
                                                ov_tensor_t**);
const char* ov_get_last_err_msg(void);
"""
OV_F32, OV_U8 = 4, 16  # ov_element_type_e of OpenVINO 2026.4 (ov_common.h)


class OV:
    """The OpenVINO 2.0 C API calls of 9.0.2's get_input_ov(), init_model_ov() and
    fill_model_input_ov(), for one input named `x`."""

    def __init__(self, path):
        import cffi
        self.ffi = cffi.FFI()
        self.ffi.cdef(OV_CDEF)
        self.lib = self.ffi.dlopen(str(path))
        core = self.ffi.new("ov_core_t **")
        self.ok(self.lib.ov_core_create(core), "ov_core_create")
        self.core = core[0]

    def ok(self, status, what):
        if status != 0:
            msg = self.lib.ov_get_last_err_msg()
            text = self.ffi.string(msg).decode(errors="replace") if msg != self.ffi.NULL else ""
            raise AssertionError(f"{what}: status {status}: {text[:300]}")

    def new(self, ctype):
        return self.ffi.new(ctype + " *")

    def shape(self, port):
        s = self.new("ov_shape_t")
        status = self.lib.ov_const_port_get_shape(port, s)
        if status != 0:
            return None
        out = [s.dims[i] for i in range(s.rank)]
        self.lib.ov_shape_free(s)
        return out

    def read(self, path):
        model = self.new("ov_model_t *")
        self.ok(self.lib.ov_core_read_model(self.core, str(path).encode(), self.ffi.NULL, model),
                "ov_core_read_model")
        return model[0]

    def input_port(self, model, name="x"):
        port = self.new("ov_output_const_port_t *")
        self.ok(self.lib.ov_model_const_input_by_name(model, name.encode(), port), "input")
        return port[0]

    def model_input(self, path):
        """get_input_ov(): the input's static shape, or None where it fails."""
        model = self.read(path)
        shape = self.shape(self.input_port(model))
        self.lib.ov_model_free(model)
        return shape

    def run(self, path, frame: np.ndarray, func: str, layout=None):
        """init_model_ov() then one inference of `frame` (u8, NHWC, the built model's
        input shape). Returns (built input shape, [outputs as float32 arrays])."""
        lib, ffi = self.lib, self.ffi
        model = self.read(path)
        pp = self.new("ov_preprocess_prepostprocessor_t *")
        self.ok(lib.ov_preprocess_prepostprocessor_create(model, pp), "ppp create")
        ii = self.new("ov_preprocess_input_info_t *")
        self.ok(lib.ov_preprocess_prepostprocessor_get_input_info_by_name(pp[0], b"x", ii), "in")
        ti = self.new("ov_preprocess_input_tensor_info_t *")
        self.ok(lib.ov_preprocess_input_info_get_tensor_info(ii[0], ti), "tensor info")
        layouts = {}
        for desc in ("NHWC", "NCHW"):
            lay = self.new("ov_layout_t *")
            self.ok(lib.ov_layout_create(desc.encode(), lay), "layout")
            layouts[desc] = lay[0]
        self.ok(lib.ov_preprocess_input_tensor_info_set_layout(ti[0], layouts["NHWC"]), "NHWC")
        mi = self.new("ov_preprocess_input_model_info_t *")
        self.ok(lib.ov_preprocess_input_info_get_model_info(ii[0], mi), "model info")
        if layout:
            self.ok(lib.ov_preprocess_input_model_info_set_layout(mi[0], layouts[layout]), "ml")
        self.ok(lib.ov_preprocess_input_tensor_info_set_element_type(ti[0], OV_U8), "u8")
        scale = 255.0 if func == "process" else 1.0  # the `scale` option's default
        n = self.new("size_t")
        self.ok(lib.ov_model_outputs_size(model, n), "outputs size")
        for i in range(n[0]):
            oi = self.new("ov_preprocess_output_info_t *")
            self.ok(lib.ov_preprocess_prepostprocessor_get_output_info_by_index(pp[0], i, oi), "o")
            oti = self.new("ov_preprocess_output_tensor_info_t *")
            self.ok(lib.ov_preprocess_output_info_get_tensor_info(oi[0], oti), "out tensor")
            f32 = func != "process" or scale != 1.0
            self.ok(lib.ov_preprocess_output_set_element_type(oti[0], OV_F32 if f32 else OV_U8),
                    "output type")
        if scale != 1.0:
            steps = self.new("ov_preprocess_preprocess_steps_t *")
            self.ok(lib.ov_preprocess_input_info_get_preprocess_steps(ii[0], steps), "steps")
            self.ok(lib.ov_preprocess_preprocess_steps_convert_element_type(steps[0], OV_F32), "c")
            self.ok(lib.ov_preprocess_preprocess_steps_mean(steps[0], 0.0), "mean")
            self.ok(lib.ov_preprocess_preprocess_steps_scale(steps[0], scale), "scale")
        built = self.new("ov_model_t *")
        self.ok(lib.ov_preprocess_prepostprocessor_build(pp[0], built), "build")
        in_shape = self.shape(self.input_port(built[0]))
        if list(frame.shape) != in_shape:
            return in_shape, None
        compiled = self.new("ov_compiled_model_t *")
        self.ok(lib.ov_core_compile_model(self.core, built[0], b"CPU", 0, compiled), "compile")
        req = self.new("ov_infer_request_t *")
        self.ok(lib.ov_compiled_model_create_infer_request(compiled[0], req), "request")
        dims = ffi.new("int64_t[]", in_shape)
        tensor = self.new("ov_tensor_t *")
        self.ok(lib.ov_tensor_create(OV_U8, {"rank": len(in_shape), "dims": dims}, tensor), "t")
        data = self.new("void *")
        self.ok(lib.ov_tensor_data(tensor[0], data), "tensor data")
        ffi.memmove(data[0], np.ascontiguousarray(frame, np.uint8).tobytes(), frame.size)
        self.ok(lib.ov_infer_request_set_input_tensor(req[0], tensor[0]), "set input")
        self.ok(lib.ov_infer_request_infer(req[0]), "infer")
        outputs = []
        for i in range(n[0]):
            out = self.new("ov_tensor_t *")
            self.ok(lib.ov_infer_request_get_output_tensor_by_index(req[0], i, out), "output")
            s = self.new("ov_shape_t")
            self.ok(lib.ov_tensor_get_shape(out[0], s), "output shape")
            shape = [s.dims[k] for k in range(s.rank)]
            self.ok(lib.ov_tensor_data(out[0], data), "output data")
            count = int(np.prod(shape))
            outputs.append(np.frombuffer(ffi.buffer(data[0], 4 * count)[:], np.float32)
                           .reshape(shape).copy())
            lib.ov_shape_free(s)
            lib.ov_tensor_free(out[0])
        lib.ov_tensor_free(tensor[0])
        lib.ov_infer_request_free(req[0])
        lib.ov_compiled_model_free(compiled[0])
        lib.ov_model_free(built[0])
        lib.ov_preprocess_prepostprocessor_free(pp[0])
        for lay in layouts.values():
            lib.ov_layout_free(lay)
        lib.ov_model_free(model)
        return in_shape, outputs


@pytest.fixture(scope="module")
def ov():
    path, where = find_lib("FFDNN_OV_LIB", "openvino-2026.4.1", "libopenvino_c.so*")
    if path is None:
        pytest.skip(f"OpenVINO C library libopenvino_c.so not found under {where} "
                    "(set FFDNN_OV_LIB, or install the openvino backend)")
    return OV(path)


@pytest.fixture(scope="module")
def ov_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("ov-models")
    return lambda name: models.path(name, d)


@pytest.mark.parametrize("name,want", [("ov-identity", lambda x: x),
                                       ("ov-scale", lambda x: 0.5 * x + 0.25)])
def test_ov_processing_in_openvino(ov, ov_files, name, want):
    path = ov_files(name)
    assert ov.model_input(path) == [1, 3, 64, 64]
    frame = np.random.default_rng(10).integers(0, 256, (1, 64, 64, 3), dtype=np.uint8)
    in_shape, (y,) = ov.run(path, frame, "process", layout="NCHW")
    assert in_shape == [1, 64, 64, 3]  # OpenVINO transposes the NHWC frame itself
    expected = want(frame.astype(np.float32) / 255).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(y, expected, atol=1e-6)
    # without layout=nchw the frame's NHWC bytes would go into the NCHW input as is
    in_shape, _ = ov.run(path, frame, "process", layout=None)
    assert in_shape == [1, 3, 64, 64]


def test_ov_dynamic_shape_is_refused(ov, ov_files):
    """Why the OpenVINO models are static: get_input_ov() on onnx-identity fails."""
    assert ov.model_input(ov_files("onnx-identity")) is None


def test_ov_detect_in_openvino(ov, ov_files):
    path = ov_files("ov-detect")
    assert ov.model_input(path) == [1, 64, 64, 3]  # dims[1] > 3: read as NHWC
    frame = np.random.default_rng(11).integers(0, 256, (1, 64, 64, 3), dtype=np.uint8)
    in_shape, outputs = ov.run(path, frame, "detect")
    assert in_shape == [1, 64, 64, 3] and len(outputs) == 1
    assert outputs[0].shape == (1, 1, 1, 7)
    assert ssd_post_proc(outputs[0], 64, 64) == [
        {"x": 16, "y": 16, "w": 32, "h": 32, "label": 0, "confidence": 9000}]


def test_ov_classify_in_openvino(ov, ov_files):
    path = ov_files("ov-classify")
    crop = np.random.default_rng(12).integers(0, 256, (1, 32, 32, 3), dtype=np.uint8)
    in_shape, outputs = ov.run(path, crop, "classify")
    assert in_shape == [1, 32, 32, 3] and len(outputs) == 1
    # OpenVINO's CPU plugin defaults to bf16 inference precision where the CPU has
    # it (this machine does), and 9.0.2 sets no precision: MatMul is not exact
    np.testing.assert_allclose(outputs[0], classify_expected(crop.astype(np.float32)),
                               atol=5e-3)
    assert int(outputs[0].argmax()) == 1


# ---- Torch ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch_models():
    """The generators' LibTorch (the torch backend, a CPU build): skipped when it is
    not installed, never fetched from a test."""
    from harness.obtain import backends, libtorch
    from harness.errors import HarnessError
    try:
        r = libtorch.route(backends.BACKENDS["torch"].version, cache_root() / "backends")
    except HarnessError as e:
        pytest.skip(str(e))
    if r.kind not in ("cached", "system", "user"):
        pytest.skip(f"no LibTorch installed ({r.kind}: {r.detail}); run: python -m harness "
                    "build --backend torch --tree base")
    from harness.obtain.models import torch_models
    return torch_models


@pytest.mark.parametrize("name", TORCH)
def test_torch_deterministic(torch_models, name, tmp_path):
    a, suffix = models.GENERATORS[name]()
    b, _ = models.GENERATORS[name]()
    assert a == b and suffix == ".pt"
    assert models.path(name, tmp_path).read_bytes() == a
    assert str(Path(__file__).resolve().parents[2]).encode() not in a, "no checkout path"
    assert str(tmp_path).encode() not in a, "no temporary path"


def test_torch_same_bytes_in_a_new_process(torch_models):
    """The cache names the file by its hash: a fresh interpreter, generating the two
    in the other order, writes the same bytes."""
    code = ("import sys; from harness.obtain import models; g = models.GENERATORS; "
            "s = g['torch-scale']()[0]; i = g['torch-identity']()[0]; "
            "sys.stdout.buffer.write(i + b'|' + s)")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", code], cwd=root,
                       capture_output=True, check=True)
    ident, scale_ = models.GENERATORS["torch-identity"]()[0], models.GENERATORS["torch-scale"]()[0]
    assert r.stdout == ident + b"|" + scale_


@pytest.mark.parametrize("name,want", [("torch-identity", lambda x: x),
                                       ("torch-scale", lambda x: 0.75 * x + 0.125)])
def test_torch_runs(torch_models, name, want, tmp_path):
    """Loaded by LibTorch as 9.0.2's backend loads it (torch::jit::load): parameters
    present, NCHW in and out, the values of y = f(x) for x = i / 12."""
    params, shape, values = torch_models.run(models.path(name, tmp_path))
    assert params == 2, "9.0.2's backend reads the device from the first parameter"
    assert shape == [1, 3, 2, 2]
    x = np.arange(12, dtype=np.float32) / np.float32(12)
    np.testing.assert_allclose(values, want(x), rtol=1e-6, atol=0)
