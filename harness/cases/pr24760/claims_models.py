"""Models for #24702's claims (issue 8) on FFmpeg 9.0.2: outputs that make 9.0.2's
post-processing fail for real. Registered by the case (harness/cases/pr24760/__init__.py, `claims-*`); each
function returns (bytes, suffix) like the other generators.

- tf_u8_out / tf_u8_out_gray: TensorFlow processing models whose output is uint8.
  9.0.2's TF backend leaves the output DNNData's scale and mean at 0 (av_calloc) and
  takes dt from TF_TensorType() (DT_UINT8 = 4 = DNN_UINT8), so
  ff_proc_from_dnn_to_frame() matches neither of its two accepted (scale, mean, dt)
  combinations and returns AVERROR(ENOSYS): a real default post-processing failure.
  rgb: for dnn_processing / derain (NHWC [1, H, W, 3]); gray: for sr ([1, H, W, 1]).
- ov_detect_const_empty / ov_classify_const_empty: a Constant zero-element output
  ([1, 1, 0, 7] SSD rows, [1, 0] class scores). OpenVINO 2026.4.1's ONNX frontend reads
  it as a rank-0 tensor and ov_tensor_get_shape() fails: commit 8's path.
- ov_classify_no_scores: class scores [1, N] where N = 0 is computed from the input at
  run time (a Slice whose end is Cast(0 * sum(x))), so OpenVINO cannot fold it: the
  output is read fine, with zero scores, and reaches classify_post_proc(): commit 5's
  "classifier output without any scores". (A [3, 0] MatMul classifier does not load.)
- ov_detect_no_rows: SSD rows [n, 7] with n = 0 computed the same way: a rank-2
  output whose first dimension (0) is less than the batch (1), which 9.0.2 asserts.
- tf_det_too_many: tf-det with 6e6 proposals over the threshold: the detection side
  data cannot be allocated (commit 5's AVERROR(ENOMEM)).
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from harness.obtain.models import tf_models as tf
from harness.obtain.models.ov_models import CLASSIFY_OUTPUT, CLASSIFY_SIZE, DETECT_OUTPUT, HEIGHT, WIDTH

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


def ov_classify_no_scores():
    """x float NHWC [1, 32, 32, 3] -> scores [1, n] = mean(x) over H, W, sliced to
    channels [0, n) with n = int64(0 * sum(x)) = 0, computed at run time."""
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, CLASSIFY_SIZE, CLASSIFY_SIZE, 3])
    y = helper.make_tensor_value_info(CLASSIFY_OUTPUT, TensorProto.FLOAT, [1, "n"])
    i64 = lambda n, v: numpy_helper.from_array(np.array(v, np.int64), n)
    nodes = [helper.make_node("ReduceMean", [INPUT], ["mean"], axes=[1, 2], keepdims=0),
             helper.make_node("ReduceSum", [INPUT], ["sum"], keepdims=0),
             helper.make_node("Mul", ["sum", "zero"], ["zero_sum"]),
             helper.make_node("Cast", ["zero_sum"], ["end"], to=TensorProto.INT64),
             helper.make_node("Reshape", ["end", "one"], ["ends"]),
             helper.make_node("Slice", ["mean", "starts", "ends", "axes"], [CLASSIFY_OUTPUT])]
    inits = [numpy_helper.from_array(np.array(0.0, np.float32), "zero"), i64("one", [1]),
             i64("starts", [0]), i64("axes", [1])]
    return _onnx(nodes, [x], [y], inits)


def ov_detect_no_rows():
    """x float NHWC [1, 64, 64, 3] -> detection_out [n, 7]: one SSD row sliced to rows
    [0, n) with n = int64(0 * sum(x)) = 0 at run time: a rank-2 output with zero rows,
    whose first dimension 9.0.2 asserts to be at least the batch (av_assert0)."""
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, HEIGHT, WIDTH, 3])
    y = helper.make_tensor_value_info(DETECT_OUTPUT, TensorProto.FLOAT, ["n", 7])
    i64 = lambda n, v: numpy_helper.from_array(np.array(v, np.int64), n)
    row = np.array([[0, 0, 0.9, 0.25, 0.25, 0.75, 0.75]], np.float32)
    nodes = [helper.make_node("ReduceSum", [INPUT], ["sum"], keepdims=0),
             helper.make_node("Mul", ["sum", "zero"], ["zero_sum"]),
             helper.make_node("Cast", ["zero_sum"], ["end"], to=TensorProto.INT64),
             helper.make_node("Reshape", ["end", "one"], ["ends"]),
             helper.make_node("Slice", ["rows", "starts", "ends", "axes"], [DETECT_OUTPUT])]
    inits = [numpy_helper.from_array(np.array(0.0, np.float32), "zero"), i64("one", [1]),
             i64("starts", [0]), i64("axes", [0]), numpy_helper.from_array(row, "rows")]
    return _onnx(nodes, [x], [y], inits)


# More boxes than one side-data buffer can hold: av_detection_bbox_alloc() asks
# av_mallocz() for sizeof(header) + n * sizeof(AVDetectionBBox) (380 bytes a box), and
# av_malloc() refuses anything above max_alloc_size (INT_MAX by default): 6e6 boxes
# ask for about 2.3 GB. 6e6 is exact in float (num_detections is read as a float).
TOO_MANY_BOXES = 6_000_000


def tf_det_too_many():
    """tf-det (models/tf_models.py) with num_detections = 6e6 and detection_scores a
    Fill of 0.9 over [1, 1, 1, 6e6] (24 MB, computed by TF, not stored): every proposal
    passes the threshold, so dnn_detect_post_proc_tf() asks for side data of 6e6 boxes,
    whose allocation fails. classes and boxes stay one entry: 9.0.2 reads them only
    after the allocation."""
    nodes = [tf.placeholder(tf.DET_INPUT, dtype=tf.DT_UINT8),
             tf.node("image_float", "Cast", [tf.DET_INPUT], SrcT=tf.attr_type(tf.DT_UINT8),
                     DstT=tf.attr_type(tf.DT_FLOAT), Truncate=tf.attr_bool(False)),
             tf.const_i32("axes", [0, 1, 2, 3], (4,)),
             tf.node("sum", "Sum", ["image_float", "axes"], T=tf.attr_type(tf.DT_FLOAT),
                     Tidx=tf.attr_type(tf.DT_INT32), keep_dims=tf.attr_bool(True)),
             tf.const("zero", 0.0),
             tf.binary("dep", "Mul", "sum", "zero"),
             tf.const_i32("scores_dims", [1, 1, 1, TOO_MANY_BOXES], (4,)),
             tf.const("score", tf.DET_SCORE),
             tf.node("scores_fill", "Fill", ["scores_dims", "score"],
                     T=tf.attr_type(tf.DT_FLOAT), index_type=tf.attr_type(tf.DT_INT32))]
    values = {"num_detections": ("const", [float(TOO_MANY_BOXES)], (1, 1, 1, 1)),
              "detection_scores": ("scores_fill", None, None),
              "detection_classes": ("const", [float(tf.DET_CLASS)], (1, 1, 1, 1)),
              "detection_boxes": ("const", list(tf.DET_BOX), (1, 1, 1, 4))}
    for name in tf.DET_OUTPUTS:
        source, v, dims = values[name]
        if source == "const":
            nodes.append(tf.const(f"{name}_value", v, dims))
            source = f"{name}_value"
        nodes.append(tf.binary(name, "AddV2", source, "dep"))
    return tf.graph(*nodes), ".pb"
