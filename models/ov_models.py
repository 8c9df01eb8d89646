"""ONNX models for 9.0.2's OpenVINO backend (OpenVINO 2026 reads .onnx directly).

What dnn_backend_openvino.c (HAVE_OPENVINO2) does with a model, and so what these are:

- get_input_ov() calls ov_const_port_get_shape() on the model's input, which fails
  on a dynamic shape, so every input here is static. dnn_processing and
  dnn_detect call it at config time; dnn_classify does not.
- init_model_ov() sets the input *tensor* to u8 NHWC, and the *model* layout only
  when the `layout` option is given (nchw or nhwc). Whatever the model,
  fill_model_input_ov() writes the frame as NHWC into the built model's input.
  With no `layout` the model's shape is used as is, so an NCHW model then gets NHWC
  bytes and its output is garbage (no error).
- dnn_processing: `scale` defaults to 255 there, so OpenVINO converts the u8
  input to f32 and divides by 255: the model sees RGB in [0, 1] and its float
  output is multiplied by 255. The output is read in the layout named by `layout`
  (none counts as NCHW for the width and height indices but is read as packed
  NHWC), so processing needs `layout=nchw` for an NCHW model.
- dnn_detect and dnn_classify: scale 1, the model sees BGR u8 values as f32 in
  [0, 255], scaled by sws to the model's H x W (for classify: each box's crop).
  Both write NHWC, so their models here are NHWC and need no `layout`.
- the `output=` option is not parsed for OpenVINO in 9.0.2 (ff_dnn_init splits it
  only for TF and ONNX), so the backend reads every output of the model, in order.
  Each model here has one.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INPUT, OUTPUT = "x", "y"
OPSET = 13
SEED = 2  # any fixed seed, not onnx_models.py's
# 9.0.2's OpenVINO backend needs static shapes; the harness's frames are 64x64.
WIDTH = HEIGHT = 64
CLASSIFY_SIZE = 32
LABELS = ("cat", "dog", "bird")
DETECT_OUTPUT = "detection_out"
CLASSIFY_OUTPUT = "scores"
# One SSD proposal: image_id, label, confidence, x0, y0, x1, y1 (normalised).
DETECT_ROW = (0.0, 0.0, 0.9, 0.25, 0.25, 0.75, 0.75)
SCALE, OFFSET = 0.5, 0.25


def _model(nodes, inputs, outputs, initializers=()) -> bytes:
    graph = helper.make_graph(nodes, "ffdnn", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, producer_name="ffmpeg-dnn-fault-harness",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString(deterministic=True), ".onnx"


def _nchw(name):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 3, HEIGHT, WIDTH])


def _f32(name, value):
    return numpy_helper.from_array(np.asarray(value, np.float32), name)


def identity():
    """y = x, NCHW float [1, 3, 64, 64]. Needs `layout=nchw`."""
    return _model([helper.make_node("Identity", [INPUT], [OUTPUT])],
                  [_nchw(INPUT)], [_nchw(OUTPUT)])


def scale():
    """y = 0.5 * x + 0.25, NCHW float [1, 3, 64, 64]; stays in [0.25, 0.75]. Needs
    `layout=nchw`."""
    nodes = [helper.make_node("Mul", [INPUT, "scale"], ["scaled"]),
             helper.make_node("Add", ["scaled", "offset"], [OUTPUT])]
    return _model(nodes, [_nchw(INPUT)], [_nchw(OUTPUT)],
                  [_f32("scale", SCALE), _f32("offset", OFFSET)])


def classify_weights():
    """The classifier's fixed-seed weights: logits = mean_bgr / 255 @ w + b. The bias
    favours class 1 by 3, more than the weights can move the logits for any input
    (checked in tests), so every box is labelled "dog" with confidence > 0.5."""
    rng = np.random.default_rng(SEED)
    w = (rng.standard_normal((3, len(LABELS))) * 0.3).astype(np.float32)
    b = np.array([0.0, 3.0, 0.0], np.float32)
    return w, b


def classify():
    """dnn_classify model: x u8-valued float NHWC [1, 32, 32, 3] (a box's crop, BGR
    0..255) -> scores [1, 3] = softmax(mean over H, W / 255 @ w + b)."""
    w, b = classify_weights()
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, CLASSIFY_SIZE, CLASSIFY_SIZE, 3])
    y = helper.make_tensor_value_info(CLASSIFY_OUTPUT, TensorProto.FLOAT, [1, len(LABELS)])
    nodes = [helper.make_node("ReduceMean", [INPUT], ["mean"], axes=[1, 2], keepdims=0),
             helper.make_node("Mul", ["mean", "inv255"], ["norm"]),
             helper.make_node("MatMul", ["norm", "w"], ["mm"]),
             helper.make_node("Add", ["mm", "b"], ["logits"]),
             helper.make_node("Softmax", ["logits"], [CLASSIFY_OUTPUT], axis=-1)]
    return _model(nodes, [x], [y], [_f32("inv255", 1 / 255), numpy_helper.from_array(w, "w"),
                                    numpy_helper.from_array(b, "b")])


def classify_labels():
    """The `labels` file for ov-classify (and usable for ov-detect): one label a line."""
    return "".join(f"{label}\n" for label in LABELS).encode(), ".txt"


def detect():
    """dnn_detect SSD-style model: x float NHWC [1, 64, 64, 3] -> detection_out
    [1, 1, 1, 7] = one proposal (image 0, label 0, confidence 0.9, box 0.25..0.75).

    The row is a constant plus 0 * ReduceSum(x), so the output depends on the input.
    On any frame size: one box at 25%..75% of the frame (on 64x64: x=16 y=16 w=32
    h=32), confidence 9000/10000, label "0" (or the first line of `labels`)."""
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, HEIGHT, WIDTH, 3])
    y = helper.make_tensor_value_info(DETECT_OUTPUT, TensorProto.FLOAT, [1, 1, 1, 7])
    nodes = [helper.make_node("ReduceSum", [INPUT, "axes"], ["sum"], keepdims=1),
             helper.make_node("Mul", ["sum", "zero"], ["dep"]),
             helper.make_node("Add", ["row", "dep"], [DETECT_OUTPUT])]
    inits = [numpy_helper.from_array(np.array([0, 1, 2, 3], np.int64), "axes"),
             _f32("zero", 0.0),
             _f32("row", np.array(DETECT_ROW, np.float32).reshape(1, 1, 1, 7))]
    return _model(nodes, [x], [y], inits)


# dnn_detect's YOLO (v1/v2) post-processing: 2 x 2 cells, one anchor, one class. Each
# cell's row is x, y, w, h, objectness, class score (linear: the score is their product).
YOLO_OUTPUT = "yolo_out"
YOLO_CELLS, YOLO_CLASSES = 2, 1
# Two cells whose boxes coincide (x offsets 1 and 0 put both centres on the frame's middle
# column) with scores 0.9 and 0.8: two boxes of one label, the weaker dropped as overlapping
# (IoU 1); the other two cells score 0, below any confidence.
YOLO_ROWS = {(0, 0): (1.0, 0.5, 0.0, 0.0, 0.9, 1.0),
             (1, 0): (0.0, 0.5, 0.0, 0.0, 0.8, 1.0)}


def yolo():
    """dnn_detect YOLO model (model_type=yolo:cell_w=2:cell_h=2:nb_classes=1:anchors=1&1):
    x float NHWC [1, 64, 64, 3] -> yolo_out [1, 6, 2, 2], channel-major (the layout
    vf_dnn_detect.c reads when dims[2] == dims[3]). A constant plus 0 * ReduceSum(x), as
    detect()'s: on any frame two boxes of label "0" (or the first line of `labels`), both
    across the frame's middle half and down its top half (on 64x64: x=16 y=0 w=32 h=32),
    scores 0.9 and 0.8; the post-processing keeps the first."""
    box = 5 + YOLO_CLASSES
    rows = np.zeros((1, box, YOLO_CELLS, YOLO_CELLS), np.float32)
    for (cx, cy), row in YOLO_ROWS.items():
        rows[0, :, cy, cx] = row
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, HEIGHT, WIDTH, 3])
    y = helper.make_tensor_value_info(YOLO_OUTPUT, TensorProto.FLOAT, list(rows.shape))
    nodes = [helper.make_node("ReduceSum", [INPUT, "axes"], ["sum"], keepdims=1),
             helper.make_node("Mul", ["sum", "zero"], ["dep"]),
             helper.make_node("Add", ["rows", "dep"], [YOLO_OUTPUT])]
    inits = [numpy_helper.from_array(np.array([0, 1, 2, 3], np.int64), "axes"),
             _f32("zero", 0.0), _f32("rows", rows)]
    return _model(nodes, [x], [y], inits)
