"""MTCNN's trained output network (ONet) as ONNX, from facenet-pytorch's weights.

facenet-pytorch 2.6.0 (MIT) ships the three MTCNN stages as PyTorch state dicts. ONet
takes a 48x48 RGB crop scaled as (x - 127.5) / 128 and gives face / not-face
probabilities, a box regression and five landmarks; only the probabilities are kept
here, as the one output dnn_classify reads. The weights are read without torch
(models/torchweights.py) and the network is written with onnx.helper, layer for layer
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
from models import torchweights

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
    used = {i for node in n for i in node.input}
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, SIZE, SIZE, 3])
    y = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, [1, len(LABELS)])
    graph = helper.make_graph(n, "mtcnn_onet", [x], [y],
                              initializer=[t for t in init if t.name in used])
    model = helper.make_model(graph, producer_name="ffmpeg-dnn-fault-harness",
                              doc_string=f"MTCNN ONet from {PACKAGE} {VERSION} ({ONET})",
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
