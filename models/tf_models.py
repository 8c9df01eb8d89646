"""TensorFlow frozen GraphDef (.pb) models, written without TensorFlow.

The protobuf is encoded by hand (models/protobuf.py) from the field numbers of
tensorflow/core/framework/{graph,node_def,attr_value,tensor,tensor_shape,versions}.proto:

    GraphDef         node = 1 (repeated NodeDef), versions = 4 (VersionDef)
    VersionDef       producer = 1, min_consumer = 2
    NodeDef          name = 1, op = 2, input = 3 (repeated), device = 4,
                     attr = 5 (map<string, AttrValue>: entry key = 1, value = 2)
    AttrValue        b = 5, type = 6 (DataType), shape = 7, tensor = 8
    TensorShapeProto dim = 2 (repeated Dim: size = 1), unknown_rank = 3
    TensorProto      dtype = 1, tensor_shape = 2, tensor_content = 4 (the values
                     here: raw little-endian; float_val = 5 would do as well)

What 9.0.2's TF backend (dnn_backend_tf.c) expects:
- the input is a Placeholder found by name (`input=`), float (or uint8), whose
  shape has a known rank of 4, NHWC, with dim 0 equal to 1 or -1 (get_input_tf
  asserts it); H and W may be -1;
- dnn_processing feeds float RGB in [0, 1] and reads output 0 of the op named by
  `output=` as NHWC float [1, H, W, 3] in [0, 1];
- every output is read with TF_Dim(t, 1..3), so every output must be rank 4;
- dnn_detect takes exactly 4 outputs, in the order given by `output=` (names
  separated by '&'): count, scores, classes, boxes; see det(). Its input must be
  uint8: ff_frame_to_dnn_detect() picks the sws format with get_pixel_format(),
  which av_assert0()s (aborts) on anything but DNN_UINT8, and the TF backend maps
  a DT_FLOAT placeholder to DNN_FLOAT.
"""

import struct

from . import protobuf as pb

DT_FLOAT, DT_INT32, DT_UINT8 = 1, 3, 4
# TF_GRAPH_DEF_VERSION of TensorFlow 2.18.0 (tensorflow/core/public/version.h). A
# producer of 21 or less would make a rank-0 Placeholder shape mean "unknown".
PRODUCER = 1994

INPUT, OUTPUT = "x", "y"
DET_INPUT = "image_tensor"
DET_OUTPUTS = ("num_detections", "detection_scores", "detection_classes", "detection_boxes")
# The one detection: (y0, x0, y1, x1) normalised, as the TF object-detection API orders it.
DET_BOX = (0.25, 0.25, 0.75, 0.75)
DET_SCORE = 0.9
DET_CLASS = 0


# ---- AttrValue / NodeDef / GraphDef -------------------------------------------------

def shape_proto(dims) -> bytes:
    """TensorShapeProto of known rank; -1 is an unknown dimension."""
    return b"".join(pb.message(2, pb.int_field(1, d)) for d in dims)


def tensor_proto(dtype: int, dims, floats=None, ints=None) -> bytes:
    parts = [pb.int_field(1, dtype), pb.bytes_field(2, shape_proto(dims))]
    if floats is not None:
        parts.append(pb.bytes_field(4, b"".join(struct.pack("<f", float(v)) for v in floats)))
    if ints is not None:
        parts.append(pb.bytes_field(4, b"".join(struct.pack("<i", int(v)) for v in ints)))
    return b"".join(parts)


def attr_type(dtype: int) -> bytes:
    return pb.int_field(6, dtype)


def attr_shape(dims) -> bytes:
    return pb.bytes_field(7, shape_proto(dims))


def attr_tensor(tensor: bytes) -> bytes:
    return pb.bytes_field(8, tensor)


def attr_bool(value: bool) -> bytes:
    return pb.int_field(5, 1 if value else 0)


def node(name: str, op: str, inputs=(), **attrs) -> bytes:
    """A NodeDef; attrs are written sorted by key, so the bytes do not depend on call order."""
    parts = [pb.str_field(1, name), pb.str_field(2, op)]
    parts += [pb.str_field(3, i) for i in inputs]
    parts += [pb.map_entry(5, k, attrs[k]) for k in sorted(attrs)]
    return pb.message(1, *parts)


def graph(*nodes: bytes) -> bytes:
    return b"".join(nodes) + pb.message(4, pb.int_field(1, PRODUCER))


def placeholder(name: str, dims=(1, -1, -1, 3), dtype=DT_FLOAT) -> bytes:
    return node(name, "Placeholder", dtype=attr_type(dtype), shape=attr_shape(dims))


def const(name: str, values, dims=()) -> bytes:
    values = list(values) if hasattr(values, "__iter__") else [values]
    return node(name, "Const", dtype=attr_type(DT_FLOAT),
                value=attr_tensor(tensor_proto(DT_FLOAT, dims, floats=values)))


def const_i32(name: str, values, dims) -> bytes:
    return node(name, "Const", dtype=attr_type(DT_INT32),
                value=attr_tensor(tensor_proto(DT_INT32, dims, ints=values)))


def binary(name: str, op: str, a: str, b: str) -> bytes:
    return node(name, op, [a, b], T=attr_type(DT_FLOAT))


# ---- the models ---------------------------------------------------------------------

def identity():
    """y = Identity(x); x float [1, -1, -1, 3] NHWC. Output frames equal input frames.
    With a NoOp named "init", which load_tf_model() runs once when a graph has one (as a
    graph with variables does), so the model's loading makes that TF_SessionRun() too."""
    return graph(placeholder(INPUT),
                 node(OUTPUT, "Identity", [INPUT], T=attr_type(DT_FLOAT)),
                 node("init", "NoOp")), ".pb"


SCALE, OFFSET = 0.5, 0.25


def scale():
    """y = 0.5 * x + 0.25 (Mul, AddV2 with scalar Consts): a non-identity model whose
    output stays in [0.25, 0.75], so it is never clipped."""
    return graph(placeholder(INPUT),
                 const("scale", SCALE),
                 const("offset", OFFSET),
                 binary("scaled", "Mul", INPUT, "scale"),
                 binary(OUTPUT, "AddV2", "scaled", "offset")), ".pb"


def det():
    """A constant one-box detector for dnn_detect's TF post-processing.

    Input `image_tensor` uint8 [1, -1, -1, 3] (RGB, 0..255; a float input aborts
    9.0.2, see the module doc). Four rank-4 float outputs, in the order
    dnn_detect_post_proc_tf reads them (output[0] count, [1] scores, [2] classes,
    [3] boxes), so `output=` must list them in this order:
      num_detections    [1, 1, 1, 1] = 1
      detection_scores  [1, 1, 1, 1] = 0.9
      detection_classes [1, 1, 1, 1] = 0
      detection_boxes   [1, 1, 1, 4] = (y0, x0, y1, x1) = (0.25, 0.25, 0.75, 0.75)
    On a 64x64 frame: one box x=16 y=16 w=32 h=32, confidence 9000/10000, label "0"
    (or the first line of a `labels` file).

    Each output is its constant plus 0 * Sum(Cast<float>(image_tensor)) (keep_dims,
    shape [1, 1, 1, 1]), so the graph really reads its input. The constants alone
    would do too: TF 2.18 accepts a feed of a placeholder that no fetch depends on.
    """
    consts = {
        "num_detections": ([1.0], (1, 1, 1, 1)),
        "detection_scores": ([DET_SCORE], (1, 1, 1, 1)),
        "detection_classes": ([float(DET_CLASS)], (1, 1, 1, 1)),
        "detection_boxes": (list(DET_BOX), (1, 1, 1, 4)),
    }
    nodes = [placeholder(DET_INPUT, dtype=DT_UINT8),
             node("image_float", "Cast", [DET_INPUT], SrcT=attr_type(DT_UINT8),
                  DstT=attr_type(DT_FLOAT), Truncate=attr_bool(False)),
             const_i32("axes", [0, 1, 2, 3], (4,)),
             node("sum", "Sum", ["image_float", "axes"], T=attr_type(DT_FLOAT),
                  Tidx=attr_type(DT_INT32), keep_dims=attr_bool(True)),
             const("zero", 0.0),
             binary("dep", "Mul", "sum", "zero")]
    for name in DET_OUTPUTS:
        values, dims = consts[name]
        nodes += [const(f"{name}_value", values, dims),
                  binary(name, "AddV2", f"{name}_value", "dep")]
    return graph(*nodes), ".pb"
