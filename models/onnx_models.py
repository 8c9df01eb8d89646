"""ONNX processing models for dnn_processing: NCHW float, input `x`, output `y`.

9.0.2's ONNX backend takes a 4-D NCHW float input of batch 1 (dynamic H and W are
fine) and reads the output as NCHW too.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INPUT, OUTPUT = "x", "y"
OPSET = 13
SEED = 1  # any fixed seed: the bytes are the same in every run


def _model(nodes, initializers=()) -> bytes:
    x = helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, 3, "h", "w"])
    y = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, [1, 3, "h", "w"])
    graph = helper.make_graph(nodes, "ffdnn", [x], [y], initializer=list(initializers))
    model = helper.make_model(graph, producer_name="ffmpeg-dnn-fault-harness",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString(deterministic=True), ".onnx"


def identity():
    """y = x: output frames equal input frames."""
    return _model([helper.make_node("Identity", [INPUT], [OUTPUT])])


def conv():
    """y = clip(conv3x3(x) + b, 0, 1) with fixed-seed weights: a real, non-identity model."""
    rng = np.random.default_rng(SEED)
    w = (rng.standard_normal((3, 3, 3, 3)) * 0.2).astype(np.float32)
    b = (rng.standard_normal(3) * 0.05).astype(np.float32)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
             numpy_helper.from_array(np.array(0, np.float32), "lo"),
             numpy_helper.from_array(np.array(1, np.float32), "hi")]
    nodes = [helper.make_node("Conv", [INPUT, "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Clip", ["c", "lo", "hi"], [OUTPUT])]
    return _model(nodes, inits)
