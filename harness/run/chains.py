"""The graph for each backend and filter: the filter description between buffer and
buffersink, and the generated models it needs (models/). Option strings follow 9.0.2's
backends: OpenVINO models have fixed shapes and ignore `output=`, processing needs
`layout=nchw`; Torch ignores `input=`/`output=`; TF detect outputs are `&`-separated.
Whether a tree can express a graph at all is the tree's to say (harness/obtain/probe.py)."""

import sys
from dataclasses import dataclass
from pathlib import Path

import models

from harness.obtain import probe
from harness.obtain.backends import BACKENDS as REGISTRY

from harness.errors import CacheError, ScenarioError
from harness.paths import cache_root

TF_DET_OUTPUTS = "num_detections&detection_scores&detection_classes&detection_boxes"
TF_DETECT = f"dnn_detect=dnn_backend=tensorflow:model={{det}}:input=image_tensor:output={TF_DET_OUTPUTS}"


@dataclass(frozen=True)
class GraphSpec:
    description: str   # with {model}-style fields filled from `models`
    models: dict       # field -> generated model name
    note: str = ""
    keeps_pixels: bool = True  # each frame out is the frame pushed: an identity model, or
                               # an analytics filter that only attaches side data


GRAPHS = {
    **{(name, "dnn_processing"): GraphSpec(
        f"format=rgb24,dnn_processing=dnn_backend={b.option}:model={{model}}{b.processing}",
        {"model": b.identity}) for name, b in REGISTRY.items()},
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

NON_IDENTITY = {name: b.non_identity for name, b in REGISTRY.items()}
BACKENDS = tuple(REGISTRY)
FILTERS = ("dnn_processing", "dnn_detect", "dnn_classify")


def needs(backend: str, filt: str) -> set:
    """The backends a graph uses (dnn_classify's boxes come from TensorFlow)."""
    spec = GRAPHS[(backend, filt)]
    return {backend} | ({"tf"} if "{det}" in spec.description else set())


def not_expressible(src, backend: str, filt: str) -> str | None:
    """Why the tree whose source is at `src` cannot express `filt` on `backend`, as
    "not expressible on FFmpeg <version>: <what the probe found>"; None when it can.
    dnn_classify's boxes need dnn_detect on TensorFlow too."""
    facts = probe.facts(Path(src))
    pairs = [(backend, filt)] + ([("tf", "dnn_detect")] if (backend, filt) in GRAPHS
                                 and "{det}" in GRAPHS[(backend, filt)].description else [])
    for b, f in pairs:
        why = facts.why_not(b, f)
        if why:
            return f"not expressible on FFmpeg {facts.version}: {why}"
    return None


def not_on_trees(trees, backend: str, filt: str) -> str | None:
    """not_expressible() for built trees; one reason when they agree, else each named."""
    whys = {t.name: not_expressible(t.src, backend, filt) for t in trees}
    found = {w for w in whys.values() if w}
    if not found:
        return None
    if len(found) == 1 and all(whys.values()):
        return found.pop()
    return "; ".join(f"{name}: {w or 'expressible'}" for name, w in whys.items())


def description(backend: str, filt: str, model=None) -> str:
    """The filled-in description; `model` replaces the main model's path."""
    key = (backend, filt)
    if key not in GRAPHS:
        raise ScenarioError(f"no graph for {filt} on {backend} (backends: {', '.join(BACKENDS)};"
                            f" filters: {', '.join(FILTERS)})")
    spec = GRAPHS[key]
    paths = {field: str(cached_model(name)) for field, name in spec.models.items()}
    if model:
        paths["model"] = str(model)
    return spec.description.format(**paths)


def cached_model(name: str):
    """A generated model from the cache (models/), generated again when the cached file
    fails its check (emptied, cut short): its recipe makes the same bytes."""
    from harness.run import modelfile
    path = models.path(name, cache_root() / "models")
    why = modelfile.why_not(path)
    if why:
        print(f"cache: model {path.name} fails its check ({why}): generating it again",
              file=sys.stderr, flush=True)
        path.unlink(missing_ok=True)
        path = models.path(name, cache_root() / "models")
        why = modelfile.why_not(path)
        if why:
            raise CacheError(path, f"generated again, and still not a model ({why})",
                             "python -m harness run")
    return path


def keeps_pixels(backend: str, filt: str, description_: str) -> bool:
    """Whether a scenario's frames must come out as pushed: the harness's own graph for
    the pair (not a model the user named) and that graph keeps pixels."""
    spec = GRAPHS.get((backend, filt))
    return bool(spec and spec.keeps_pixels and description_ == description(backend, filt))
