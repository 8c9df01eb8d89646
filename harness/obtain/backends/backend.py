"""What one backend module declares (harness/obtain/backends/<name>.py): how the backend
is fetched and configured, how FFmpeg names it, the graph each DNN filter runs on it, the
models those graphs use, the system libraries its link needs and the CI shard that tests
it. The registry is harness/obtain/backends/__init__.py."""

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True, kw_only=True)
class Graph:
    """A filter's graph on a backend: the description between buffer and buffersink, with
    {field}s filled from `models` (generated models, by name: harness/obtain/models/)."""

    description: str
    models: dict
    note: str = ""
    keeps_pixels: bool = True  # each frame out is the frame pushed: an identity model, or
                               # an analytics filter that only attaches side data
    needs: tuple = ()          # other backends the graph runs (dnn_classify's boxes)


@dataclass(frozen=True, kw_only=True)
class Backend:
    name: str          # the harness's name: --backend, FFDNN_BACKENDS, cache entries
    package: str       # the package it is fetched from, pinned at `version`
    version: str
    install: Callable  # (dest, version) -> the fields of an Installed, as a dict
    library: str       # configure's --enable-<library>; CONFIG_<LIBRARY> in config.h
    label: str         # its name in the probe's sentences ("its ONNX backend")
    product: str       # the runtime's own name ("ONNX Runtime")
    dnn_type: str      # its DNNBackendType enumerator (libavfilter/dnn_interface.h)
    option: str        # the DNN filters' dnn_backend= value
    marker: str        # the pytest marker of its tests (registered by tests/conftest.py)
    processing: str = ""  # dnn_processing's options after model= for its generated models
    identity: str         # its generated identity model (models/)
    non_identity: str     # and a model that changes every pixel
    generator: str        # the module of models/ that writes its models: `onnx-conv` is
                          # its conv(), `ov-detect` ov_models.detect()
    graphs: dict = field(default_factory=dict)  # filter -> Graph, beside dnn_processing
    libs: tuple = ()      # (library, Debian package) its link needs from the system:
                          # -l<library> (builds/deps.sh installs the package as root)
    ci_shard: str = ""    # the CI job that tests it (backends that share a graph share
                          # one); default its name
    entry: Callable | None = None  # its cache directory's name, when not package-version

    def processing_graph(self) -> Graph:
        """dnn_processing with its identity model: every backend runs it."""
        return Graph(description=f"format=rgb24,dnn_processing=dnn_backend={self.option}"
                                 f":model={{model}}{self.processing}",
                     models={"model": self.identity})

    def all_graphs(self) -> dict:
        return {"dnn_processing": self.processing_graph(), **self.graphs}

    @property
    def shard(self) -> str:
        return self.ci_shard or self.name
