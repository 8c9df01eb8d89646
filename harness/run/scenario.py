"""One scenario: which build, backend, filter and fault; its id and its graph."""

import hashlib
import json
from dataclasses import asdict, dataclass, field

from harness.run import faults
from harness.run.faults import Fault

WIDTH = HEIGHT = 64
FRAMES = 2
# the md5 of a frame never written: WIDTH x HEIGHT rgb24, all zero
ZERO_FRAME_MD5 = hashlib.md5(bytes(WIDTH * HEIGHT * 3)).hexdigest()


@dataclass(frozen=True)
class Scenario:
    build: str               # the build's name: base, before, after, or a label
    tree: str                # path of the built tree
    backend: str
    filter: str              # the graph's name: a filter's own, or dnn_detect.yolo
    fault: Fault
    description: str         # the filters between buffer and buffersink (harness.run.chains)
    route: str = "flush"     # flush: the PR's stand-in at EOF; frame: the backend's own start
    expect: str = ""         # whose expectations apply (default: the build's own)
    injector: str = "preload"
    timeout: float = 60.0
    frames: int = FRAMES
    extra: dict = field(default_factory=dict)
    entry: str = ""          # module:function run in place of harness.run.worker.run

    @property
    def id(self) -> str:
        return scenario_id(self.build, self.backend, self.filter, self.fault, self.route)

    @property
    def ffmpeg_filter(self) -> str:
        """The FFmpeg filter whose activate() the worker records (the graph's own)."""
        return ffmpeg_filter(self.filter)

    @property
    def expected_build(self) -> str:
        return self.expect or self.build

    def to_json(self) -> str:
        d = asdict(self)
        d["fault"] = self.fault.spec
        return json.dumps(d)

    @classmethod
    def from_json(cls, text: str) -> "Scenario":
        d = json.loads(text)
        d["fault"] = faults.parse(d["fault"])
        return cls(**d)


def ffmpeg_filter(graph: str) -> str:
    """The FFmpeg filter a graph's name runs: a filter's own graph is named after it, another
    graph of it `<filter>.<what it is for>` (dnn_detect.yolo: harness/run/chains.py)."""
    return graph.split(".", 1)[0]


def scenario_id(build: str, backend: str, filt: str, fault: Fault, route: str = "flush") -> str:
    """after-onnx-dnn_processing-pthread_create-eagain (the PR's flush route), or
    after-torch-dnn_processing-frame-pthread_create-eagain: lowercase and stable."""
    route = "" if route == "flush" else f"{route}-"
    return f"{build}-{backend}-{filt}-{route}{fault.slug}".lower()
