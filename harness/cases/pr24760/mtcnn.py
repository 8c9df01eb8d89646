"""MTCNN's trained output network (ONet) as ONNX, from facenet-pytorch's weights.

facenet-pytorch 2.6.0 (MIT) ships the three MTCNN stages as PyTorch state dicts. ONet
takes a 48x48 RGB crop scaled as (x - 127.5) / 128 and gives face / not-face
probabilities, a box regression and five landmarks; only the probabilities are kept
here, as the one output dnn_classify reads. The weights are read without torch
(harness/cases/pr24760/torchweights.py) and the network is written with onnx.helper, layer for layer
as facenet_pytorch/models/mtcnn.py defines ONet (convolutions without padding, PReLU,
max pools with ceil_mode, the flatten after a (0, 3, 2, 1) permute: the ported Caffe
weights expect the crop transposed).

For 9.0.2's OpenVINO backend under dnn_classify the input is what that filter writes:
each box's crop scaled to the model's 48x48, packed BGR u8 values as float NHWC
(dnn_backend_openvino.c sets DCO_BGR, scale 1), so the graph starts by turning that
into ONet's input.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from harness.obtain import packages
from harness.cases.pr24760 import torchweights

PACKAGE, VERSION = "facenet-pytorch", "2.6.0"   # pinned in harness/obtain/packages.py
ONET = "facenet_pytorch/data/onet.pt"
SIZE = 48
LABELS = ("not_face", "face")     # ONet's softmax: index 1 is the face probability
INPUT, OUTPUT = "x", "prob"
OPSET = 13
# (name, kernel, stride) of ONet's pools after conv1..conv3
POOLS = ((3, 2), (3, 2), (2, 2))


def weights() -> dict:
    """ONet's state dict as numpy arrays, from the pinned wheel."""
    return torchweights.load(packages.member(PACKAGE, ONET).read_bytes())


def _graph(w: dict) -> onnx.ModelProto:
    init = [numpy_helper.from_array(np.asarray(v, np.float32), k) for k, v in w.items()]
    const = {"bgr_to_rgb": np.array([2, 1, 0], np.int64), "mean": np.float32(127.5),
             "scale": np.float32(0.0078125), "flat": np.array([1, -1], np.int64)}
    init += [numpy_helper.from_array(np.asarray(v), k) for k, v in const.items()]
    # PReLU slopes broadcast over channels: [C, 1, 1] after a convolution
    for i in range(1, 5):
        init.append(numpy_helper.from_array(w[f"prelu{i}.weight"].reshape(-1, 1, 1)
                                            .astype(np.float32), f"slope{i}"))
    n = [helper.make_node("Gather", [INPUT, "bgr_to_rgb"], ["rgb"], axis=3),
         helper.make_node("Sub", ["rgb", "mean"], ["centred"]),
         helper.make_node("Mul", ["centred", "scale"], ["scaled"]),
         helper.make_node("Transpose", ["scaled"], ["h0"], perm=[0, 3, 1, 2])]
    for i in range(1, 5):
        n.append(helper.make_node("Conv", [f"h{i - 1}", f"conv{i}.weight", f"conv{i}.bias"],
                                  [f"c{i}"]))
        act = f"a{i}" if i < 4 else "h4"
        n.append(helper.make_node("PRelu", [f"c{i}", f"slope{i}"], [act]))
        if i < 4:
            k, s = POOLS[i - 1]
            n.append(helper.make_node("MaxPool", [act], [f"h{i}"], kernel_shape=[k, k],
                                      strides=[s, s], ceil_mode=1))
    n += [helper.make_node("Transpose", ["h4"], ["hwc"], perm=[0, 3, 2, 1]),
          helper.make_node("Reshape", ["hwc", "flat"], ["f"]),
          helper.make_node("Gemm", ["f", "dense5.weight", "dense5.bias"], ["d5"], transB=1),
          helper.make_node("PRelu", ["d5", "prelu5.weight"], ["a5"]),
          helper.make_node("Gemm", ["a5", "dense6_1.weight", "dense6_1.bias"], ["logits"],
                           transB=1),
          helper.make_node("Softmax", ["logits"], [OUTPUT], axis=1)]
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, SIZE, SIZE, 3])
    y = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, [1, len(LABELS)])
    return _model(n, init, "mtcnn_onet", x, y, f"MTCNN ONet from {PACKAGE} {VERSION} ({ONET})")


def _model(nodes, init, name, x, y, doc) -> onnx.ModelProto:
    """The checked ONNX model of these nodes, with only the initializers they use."""
    used = {i for node in nodes for i in node.input}
    graph = helper.make_graph(nodes, name, [x], [y],
                              initializer=[t for t in init if t.name in used])
    model = helper.make_model(graph, producer_name="ffmpeg-dnn-fault-harness", doc_string=doc,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def onet():
    """ONet as dnn_classify's model: x float NHWC [1, 48, 48, 3] (BGR 0..255) ->
    prob [1, 2] (not face, face)."""
    return _graph(weights()).SerializeToString(deterministic=True), ".onnx"


def onet_labels():
    return "".join(f"{label}\n" for label in LABELS).encode(), ".txt"


# --- PNet as dnn_detect's model: MTCNN's first stage over a fixed image pyramid ---

PNET = "facenet_pytorch/data/pnet.pt"
DETECT_SIZE = 240                     # 9.0.2's OpenVINO backend needs a static input
MIN_FACE, FACTOR = 40, 0.709          # pyramid as facenet-pytorch's detect_face builds it
PNET_THRESHOLD, NMS_IOU, MAX_BOXES = 0.6, 0.5, 8
STRIDE, CELL = 2, 12


def pnet_weights() -> dict:
    return torchweights.load(packages.member(PACKAGE, PNET).read_bytes())


def pyramid() -> list:
    """(scale, resized side) per level, down to PNet's 12x12 window."""
    out, s = [], 12 / MIN_FACE
    while DETECT_SIZE * s >= 12:
        out.append((s, int(DETECT_SIZE * s + 1)))
        s *= FACTOR
    return out


def _pnet_side(side: int) -> int:
    side = -(-(side - 2 - 2) // 2) + 1      # conv1 3x3, pool 2/2 ceil
    return side - 4                         # conv2, conv3 3x3


def pnet_detect():
    """dnn_detect model: x float NHWC [1, 240, 240, 3] (BGR 0..255) -> detection_out
    [1, 1, MAX_BOXES, 7]: PNet's face windows over the pyramid, box-regressed, clipped to
    the frame, non-maximum suppressed, as SSD rows (image 0, label 0, face probability,
    x0, y0, x1, y1 normalised); rows past the kept boxes have confidence 0."""
    w = pnet_weights()
    init = [numpy_helper.from_array(np.asarray(v, np.float32), k) for k, v in w.items()]
    for i in range(1, 4):
        init.append(numpy_helper.from_array(w[f"prelu{i}.weight"].reshape(-1, 1, 1)
                                            .astype(np.float32), f"slope{i}"))

    def const(name, value, dtype=np.float32):
        init.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    n = [helper.make_node("Gather", [INPUT, const("bgr_to_rgb", [2, 1, 0], np.int64)],
                          ["rgb"], axis=3),
         helper.make_node("Sub", ["rgb", const("mean", 127.5)], ["centred"]),
         helper.make_node("Mul", ["centred", const("scale", 0.0078125)], ["scaled"]),
         helper.make_node("Transpose", ["scaled"], ["img"], perm=[0, 3, 1, 2])]
    scores, boxes = [], []
    for level, (s, side) in enumerate(pyramid()):
        p = f"l{level}_"
        m = _pnet_side(side)
        n.append(helper.make_node("Resize", ["img", "", "", const(p + "sizes", [1, 3, side, side],
                                                                   np.int64)],
                                  [p + "in"], mode="linear"))
        x = p + "in"
        for i in range(1, 4):
            n.append(helper.make_node("Conv", [x, f"conv{i}.weight", f"conv{i}.bias"],
                                      [p + f"c{i}"]))
            n.append(helper.make_node("PRelu", [p + f"c{i}", f"slope{i}"], [p + f"a{i}"]))
            x = p + f"a{i}"
            if i == 1:
                n.append(helper.make_node("MaxPool", [x], [p + "pool"], kernel_shape=[2, 2],
                                          strides=[2, 2], ceil_mode=1))
                x = p + "pool"
        n += [helper.make_node("Conv", [x, "conv4_1.weight", "conv4_1.bias"], [p + "logits"]),
              helper.make_node("Softmax", [p + "logits"], [p + "probs"], axis=1),
              helper.make_node("Conv", [x, "conv4_2.weight", "conv4_2.bias"], [p + "reg"]),
              helper.make_node("Gather", [p + "probs", const(p + "one", 1, np.int64)],
                               [p + "face"], axis=1),
              helper.make_node("Reshape", [p + "face", const(p + "flat", [-1], np.int64)],
                               [p + "score"]),
              helper.make_node("Reshape", [p + "reg", const(p + "flat4", [4, -1], np.int64)],
                               [p + "reg4"]),
              helper.make_node("Transpose", [p + "reg4"], [p + "regt"], perm=[1, 0])]
        # each cell's window in the input, as facenet-pytorch's generateBoundingBox
        ii, jj = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
        x0, y0 = np.floor((STRIDE * jj + 1) / s), np.floor((STRIDE * ii + 1) / s)
        x1, y1 = np.floor((STRIDE * jj + CELL) / s), np.floor((STRIDE * ii + CELL) / s)
        win = np.stack([x0, y0, x1, y1], axis=-1).reshape(-1, 4)
        size = np.stack([x1 - x0, y1 - y0, x1 - x0, y1 - y0], axis=-1).reshape(-1, 4)
        n += [helper.make_node("Mul", [p + "regt", const(p + "size", size)], [p + "shift"]),
              helper.make_node("Add", [p + "shift", const(p + "win", win)], [p + "box"])]
        scores.append(p + "score")
        boxes.append(p + "box")
    n += [helper.make_node("Concat", scores, ["score"], axis=0),
          helper.make_node("Concat", boxes, ["box_px"], axis=0),
          helper.make_node("Mul", ["box_px", const("inv_size", 1 / DETECT_SIZE)], ["box_n"]),
          # dnn_classify (OpenVINO) skips a frame with any box reaching its right or bottom
          # edge or of negative size: clip below 1, and x1, y1 no smaller than x0, y0
          helper.make_node("Clip", ["box_n", const("zero", 0.0),
                                    const("below_one", 1 - 1 / DETECT_SIZE)], ["box_c"]),
          helper.make_node("Slice", ["box_c", const("lo0", [0], np.int64),
                                     const("lo1", [2], np.int64), const("ax1", [1], np.int64)],
                           ["corner0"]),
          helper.make_node("Slice", ["box_c", const("hi0", [2], np.int64),
                                     const("hi1", [4], np.int64), "ax1"], ["corner1"]),
          helper.make_node("Max", ["corner0", "corner1"], ["corner1_ok"]),
          helper.make_node("Concat", ["corner0", "corner1_ok"], ["box"], axis=1),
          helper.make_node("Unsqueeze", ["box", const("axis0", [0], np.int64)], ["nms_boxes"]),
          helper.make_node("Reshape", ["score", const("s3", [1, 1, -1], np.int64)],
                           ["nms_scores"]),
          helper.make_node("NonMaxSuppression",
                           ["nms_boxes", "nms_scores", const("max_out", [MAX_BOXES], np.int64),
                            const("iou", [NMS_IOU]), const("min_score", [PNET_THRESHOLD])],
                           ["selected"], center_point_box=0),
          helper.make_node("Gather", ["selected", const("two", 2, np.int64)], ["kept"], axis=1),
          helper.make_node("Gather", ["score", "kept"], ["kept_score"]),
          helper.make_node("Gather", ["box", "kept"], ["kept_box"]),
          helper.make_node("Unsqueeze", ["kept_score", const("axis1", [1], np.int64)],
                           ["conf"]),
          # NonMaxSuppression reads the x0, y0, x1, y1 rows as y0, x0, y1, x1: both axes
          # swapped alike, so the IoU is the same; the rows stay x0, y0, x1, y1
          helper.make_node("Mul", ["conf", const("zero1", [[0.0]])], ["zcol"]),
          helper.make_node("Concat", ["zcol", "zcol", "conf", "kept_box"], ["rows"], axis=1),
          helper.make_node("Concat", ["rows", const("pad", np.zeros((MAX_BOXES, 7)))],
                           ["padded"], axis=0),
          helper.make_node("Slice", ["padded", const("start", [0], np.int64),
                                     const("end", [MAX_BOXES], np.int64)], ["top"]),
          helper.make_node("Reshape", ["top", const("ssd", [1, 1, MAX_BOXES, 7], np.int64)],
                           ["detection_out"])]
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, DETECT_SIZE, DETECT_SIZE, 3])
    y = helper.make_tensor_value_info("detection_out", TensorProto.FLOAT, [1, 1, MAX_BOXES, 7])
    model = _model(n, init, "mtcnn_pnet_detect", x, y,
                   f"MTCNN PNet from {PACKAGE} {VERSION} ({PNET})")
    return model.SerializeToString(deterministic=True), ".onnx"
