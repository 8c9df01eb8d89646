"""Models for checking three claims of PR #24702 (commits 3, 4 and 8) on FFmpeg 9.0.2.

Not registered in models/__init__.py; each function returns (bytes, suffix) like the
other generators.

- tf_u8_out / tf_u8_out_gray: TensorFlow processing models whose output is uint8.
  9.0.2's TF backend leaves the output DNNData's scale and mean at 0 (av_calloc) and
  takes dt from TF_TensorType() (DT_UINT8 = 4 = DNN_UINT8), so
  ff_proc_from_dnn_to_frame() matches neither of its two accepted (scale, mean, dt)
  combinations and returns AVERROR(ENOSYS): a real default post-processing failure.
  rgb: for dnn_processing / derain (NHWC [1, H, W, 3]); gray: for sr ([1, H, W, 1]).
- ov_detect_empty: OpenVINO dnn_detect model with a constant zero-element SSD output
  [1, 1, 0, 7].
- ov_classify_empty: OpenVINO dnn_classify model with zero classes, output [1, 0].
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from . import tf_models as tf
from .ov_models import CLASSIFY_SIZE, DETECT_OUTPUT, CLASSIFY_OUTPUT, HEIGHT, WIDTH

INPUT, OUTPUT = "x", "y"


def _tf_u8(channels):
    # y = Cast<uint8>(x * 255); x float NHWC in [0, 1].
    return tf.graph(tf.placeholder(INPUT, dims=(1, -1, -1, channels)),
                    tf.const("k255", 255.0),
                    tf.binary("scaled", "Mul", INPUT, "k255"),
                    tf.node(OUTPUT, "Cast", ["scaled"], SrcT=tf.attr_type(tf.DT_FLOAT),
                            DstT=tf.attr_type(tf.DT_UINT8), Truncate=tf.attr_bool(False))), ".pb"


def tf_u8_out():
    """TF, x float [1, -1, -1, 3] -> y uint8 [1, H, W, 3]."""
    return _tf_u8(3)


def tf_u8_out_gray():
    """TF, x float [1, -1, -1, 1] -> y uint8 [1, H, W, 1] (for sr)."""
    return _tf_u8(1)


def _onnx(nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, "ffdnn", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, producer_name="ffmpeg-dnn-fault-harness",
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m.SerializeToString(deterministic=True), ".onnx"


def ov_detect_empty():
    """x float NHWC [1, 64, 64, 3] -> detection_out [1, 1, 0, 7]: constant, no proposals
    (plus 0 * ReduceSum(x) broadcast, so the output depends on the input)."""
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, HEIGHT, WIDTH, 3])
    y = helper.make_tensor_value_info(DETECT_OUTPUT, TensorProto.FLOAT, [1, 1, 0, 7])
    nodes = [helper.make_node("ReduceSum", [INPUT, "axes"], ["sum"], keepdims=1),
             helper.make_node("Mul", ["sum", "zero"], ["dep"]),
             helper.make_node("Add", ["rows", "dep"], [DETECT_OUTPUT])]
    inits = [numpy_helper.from_array(np.array([0, 1, 2, 3], np.int64), "axes"),
             numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
             numpy_helper.from_array(np.zeros((1, 1, 0, 7), np.float32), "rows")]
    return _onnx(nodes, [x], [y], inits)


def ov_classify_empty():
    """x float NHWC [1, 32, 32, 3] -> scores [1, 0] = mean(x) @ w, w [3, 0]: no classes."""
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, CLASSIFY_SIZE, CLASSIFY_SIZE, 3])
    y = helper.make_tensor_value_info(CLASSIFY_OUTPUT, TensorProto.FLOAT, [1, 0])
    nodes = [helper.make_node("ReduceMean", [INPUT], ["mean"], axes=[1, 2], keepdims=0),
             helper.make_node("MatMul", ["mean", "w"], [CLASSIFY_OUTPUT])]
    inits = [numpy_helper.from_array(np.zeros((3, 0), np.float32), "w")]
    return _onnx(nodes, [x], [y], inits)


def _const_out(name, in_shape, out_shape):
    # The output is a Constant node of zero elements; the input is declared but unused.
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, in_shape)
    y = helper.make_tensor_value_info(name, TensorProto.FLOAT, out_shape)
    value = numpy_helper.from_array(np.zeros(out_shape, np.float32), "value")
    nodes = [helper.make_node("Constant", [], [name], value=value)]
    return _onnx(nodes, [x], [y], [])


def ov_detect_const_empty():
    """x float NHWC [1, 64, 64, 3] (unused) -> detection_out = Constant [1, 1, 0, 7]."""
    return _const_out(DETECT_OUTPUT, [1, HEIGHT, WIDTH, 3], [1, 1, 0, 7])


def ov_classify_const_empty():
    """x float NHWC [1, 32, 32, 3] (unused) -> scores = Constant [1, 0]: no classes."""
    return _const_out(CLASSIFY_OUTPUT, [1, CLASSIFY_SIZE, CLASSIFY_SIZE, 3], [1, 0])


def ov_classify_empty_slice():
    """x float NHWC [1, 32, 32, 3] -> scores [1, 0] = mean over H, W, then Slice of zero
    channels (starts 0, ends 0 on axis 1): a zero-class output computed from the input."""
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, CLASSIFY_SIZE, CLASSIFY_SIZE, 3])
    y = helper.make_tensor_value_info(CLASSIFY_OUTPUT, TensorProto.FLOAT, [1, 0])
    i64 = lambda n, v: numpy_helper.from_array(np.array(v, np.int64), n)
    nodes = [helper.make_node("ReduceMean", [INPUT], ["mean"], axes=[1, 2], keepdims=0),
             helper.make_node("Slice", ["mean", "st", "en", "ax"], [CLASSIFY_OUTPUT])]
    return _onnx(nodes, [x], [y], [i64("st", [0]), i64("en", [0]), i64("ax", [1])])
