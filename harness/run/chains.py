"""The graph for each backend and filter: the filter description between buffer and
buffersink, and the generated models it needs (harness/obtain/models/), as each backend's module declares
them (harness/obtain/backends/<name>.py). Whether a tree can express a graph at all is the
tree's to say (harness/obtain/probe.py)."""

import sys
from pathlib import Path

from harness.obtain import models, probe
from harness.obtain.backends import BACKENDS as REGISTRY

from harness.errors import CacheError, ScenarioError
from harness.paths import cache_root
from harness.run.scenario import ffmpeg_filter

FILTERS = ("dnn_processing", "dnn_detect", "dnn_classify")  # FFmpeg's DNN filters
# filter by filter, each backend's graphs in the registry's order
_ALL = {name: b.all_graphs() for name, b in REGISTRY.items()}
GRAPHS = {(name, graph): graphs[graph] for filt in FILTERS for name, graphs in _ALL.items()
          for graph in graphs if ffmpeg_filter(graph) == filt}
# what --filter names: each filter's own graph and its others, filter by filter
NAMES = tuple(dict.fromkeys(graph for _, graph in GRAPHS))
NON_IDENTITY = {name: b.non_identity for name, b in REGISTRY.items()}
BACKENDS = tuple(REGISTRY)


def needs(backend: str, filt: str) -> set:
    """The backends a graph uses (OpenVINO's dnn_classify classifies TensorFlow's boxes)."""
    return {backend, *GRAPHS[(backend, filt)].needs}


def not_expressible(src, backend: str, filt: str) -> str | None:
    """Why the tree whose source is at `src` cannot express `filt` on `backend`, as
    "not expressible on FFmpeg <version>: <what the probe found>"; None when it can. A
    graph that needs another backend needs its dnn_detect too (dnn_classify's boxes)."""
    facts = probe.facts(Path(src))
    spec = GRAPHS.get((backend, filt))
    boxes = spec.needs if spec else ()
    pairs = [(backend, ffmpeg_filter(filt))] + [(b, "dnn_detect") for b in boxes]
    for b, f in pairs:
        why = facts.why_not(b, f)
        if why:
            return f"not expressible on FFmpeg {facts.version}: {why}"
    unknown = facts.unknown_options(spec.description) if spec else []
    if unknown:
        return (f"not expressible on FFmpeg {facts.version}: it declares no option "
                f"{probe.joined(unknown)}, which the graph {filt} sets")
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
                            f" filters: {', '.join(NAMES)})")
    spec = GRAPHS[key]
    paths = {field: str(cached_model(name)) for field, name in spec.models.items()}
    if model:
        paths["model"] = str(model)
    return spec.description.format(**paths)


def cached_model(name: str):
    """A generated model from the cache (harness/obtain/models/), generated again when the cached file
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
