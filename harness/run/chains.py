"""The graph for each backend and filter: the filter description between buffer and
buffersink, and the generated models it needs (models/). Option strings follow 9.0.2's
backends: OpenVINO models have fixed shapes and ignore `output=`, processing needs
`layout=nchw`; Torch ignores `input=`/`output=`; TF detect outputs are `&`-separated."""

from dataclasses import dataclass

import models

from harness.errors import ScenarioError
from harness.paths import cache_root

TF_DET_OUTPUTS = "num_detections&detection_scores&detection_classes&detection_boxes"
TF_DETECT = f"dnn_detect=dnn_backend=tensorflow:model={{det}}:input=image_tensor:output={TF_DET_OUTPUTS}"
ON_THIS_BASE = "not expressible on FFmpeg 9.0.2"


@dataclass(frozen=True)
class GraphSpec:
    description: str   # with {model}-style fields filled from `models`
    models: dict       # field -> generated model name
    note: str = ""


GRAPHS = {
    ("onnx", "dnn_processing"): GraphSpec(
        "format=rgb24,dnn_processing=dnn_backend=onnx:model={model}:input=x:output=y",
        {"model": "onnx-identity"}),
    ("openvino", "dnn_processing"): GraphSpec(
        "format=rgb24,dnn_processing=dnn_backend=openvino:model={model}:input=x:output=y"
        ":layout=nchw", {"model": "ov-identity"}),
    ("tf", "dnn_processing"): GraphSpec(
        "format=rgb24,dnn_processing=dnn_backend=tensorflow:model={model}:input=x:output=y",
        {"model": "tf-identity"}),
    ("torch", "dnn_processing"): GraphSpec(
        "format=rgb24,dnn_processing=dnn_backend=torch:model={model}",
        {"model": "torch-identity"}),
    ("tf", "dnn_detect"): GraphSpec(f"format=rgb24,{TF_DETECT.replace('{det}', '{model}')}",
                                    {"model": "tf-det"}),
    ("openvino", "dnn_detect"): GraphSpec(
        "format=rgb24,dnn_detect=dnn_backend=openvino:model={model}:input=x",
        {"model": "ov-detect"}),
    ("openvino", "dnn_classify"): GraphSpec(
        f"format=rgb24,{TF_DETECT},dnn_classify=dnn_backend=openvino:model={{model}}"
        ":input=x:labels={labels}:confidence=0",
        {"det": "tf-det", "model": "ov-classify", "labels": "ov-classify-labels"},
        note="boxes from dnn_detect on TensorFlow, as in the PR"),
}

NOT_ON_THIS_BASE = {
    ("onnx", "dnn_detect"): "9.0.2's dnn_detect accepts only TensorFlow and OpenVINO "
                            "(vf_dnn_detect.c: DNN_TF | DNN_OV) and its ONNX backend "
                            "supports only DFT_PROCESS_FRAME",
    ("onnx", "dnn_classify"): "dnn_classify accepts only OpenVINO (vf_dnn_classify.c: DNN_OV)",
    ("tf", "dnn_classify"): "dnn_classify accepts only OpenVINO (vf_dnn_classify.c: DNN_OV)",
    ("torch", "dnn_detect"): "dnn_detect accepts only TensorFlow and OpenVINO",
    ("torch", "dnn_classify"): "dnn_classify accepts only OpenVINO (vf_dnn_classify.c: DNN_OV)",
}

NON_IDENTITY = {"onnx": "onnx-conv", "openvino": "ov-scale", "tf": "tf-scale",
                "torch": "torch-scale"}
BACKENDS = ("onnx", "openvino", "tf", "torch")
FILTERS = ("dnn_processing", "dnn_detect", "dnn_classify")


def needs(backend: str, filt: str) -> set:
    """The backends a graph uses (dnn_classify's boxes come from TensorFlow)."""
    spec = GRAPHS[(backend, filt)]
    return {backend} | ({"tf"} if "{det}" in spec.description else set())


def description(backend: str, filt: str, model=None) -> str:
    """The filled-in description; `model` replaces the main model's path."""
    key = (backend, filt)
    if key in NOT_ON_THIS_BASE:
        raise ScenarioError(f"{filt} on {backend}: {ON_THIS_BASE}: {NOT_ON_THIS_BASE[key]}")
    if key not in GRAPHS:
        raise ScenarioError(f"no graph for {filt} on {backend} (backends: {', '.join(BACKENDS)};"
                            f" filters: {', '.join(FILTERS)})")
    spec = GRAPHS[key]
    paths = {field: str(models.path(name, cache_root() / "models"))
             for field, name in spec.models.items()}
    if model:
        paths["model"] = str(model)
    return spec.description.format(**paths)
