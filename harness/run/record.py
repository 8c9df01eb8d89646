"""One record of a run: what the worker (harness/run/worker.py) recorded of its scenario and
what the runner (harness/run/runner.py) adds, as every reader takes it, and its JSON form
(to_dict(), from_dict(); nothing else names its keys): the worker's result file and its
checkpoint, the "result" of each run of docs/schema/run.json, a CRASH's or HANG's
results/<id>/result.json and partial.json.

A field is None where the run did not record it, and its key is then absent from the
JSON: a run that crashed before its checkpoint has none of the worker's; the setup route
alone has `setup`, and only when the graph could be made `inputs`, `drained`, `frames`;
the frame route alone `frame_sink`; a run that ended its EOF `eof_push` and `sink`; a
run that freed its graph (or whose graph could not be made, and was freed) `leaks`.
snapshot() writes `activate_at_eof` and `activate_first_error` with `activate` (each None
when no activate() was flushed, or none failed), so they are in the JSON when it is."""

from dataclasses import dataclass, field, fields


@dataclass
class Label:
    """One classification of a box (dnn_classify's side data)."""
    label: str
    confidence: str  # "num/den"


@dataclass
class Box:
    """One detection box of a frame (dnn_detect's side data)."""
    box: str         # "WxH+X+Y"
    label: str
    confidence: str  # "num/den"
    classify: list   # [Label]

    @classmethod
    def from_dict(cls, d: dict) -> "Box":
        return cls(d["box"], d["label"], d["confidence"],
                   [Label(c["label"], c["confidence"]) for c in d["classify"]])


@dataclass
class Frame:
    """One frame out of the sink."""
    md5: str
    boxes: list | None = None  # [Box]; None: not kept (a census's recording)

    @classmethod
    def from_dict(cls, d: dict) -> "Frame":
        boxes = d.get("boxes")
        return cls(d["md5"], None if boxes is None else [Box.from_dict(b) for b in boxes])


@dataclass
class Activation:
    """One return of the filter's activate(), recorded from the arm on."""
    ret: int
    flushed: bool  # the filter's flush ran in it (at EOF)


@dataclass
class Setup:
    """The graph made with the fault armed (the setup route): 0, or what failed."""
    ret: int
    error: str | None = None


@dataclass
class Counters:
    """The injector's counters from the arm on (harness/compile/families.py FIELDS): all
    None when no injector was loaded (its JSON `{}`)."""
    calls: int | None = None
    eligible: int | None = None     # calls from FFmpeg's own code
    failures: int | None = None     # calls failed


@dataclass
class CallSite:
    """One eligible call of the faulted family, named by its stack (harness/run/sites.py)."""
    call: int                       # 1-based, from the arm on
    where: str = ""                 # "f (file.c:12) < g (file.c:34) < ..."
    function: str | None = None     # which of the family's functions (None: not recorded)


@dataclass
class Leak:
    """The blocks left behind that were allocated at one place (harness/run/leaks.py)."""
    where: str                      # "f (file.c:12) < g (file.c:34) < ...", as a site's
    blocks: int
    bytes: int


@dataclass
class Leaks:
    """The blocks FFmpeg's own code allocated from the arm on and had not freed once the
    graph was freed (harness/run/leaks.py): their number, their bytes, the blocks the
    injector had no room to keep (the counts are then at least what they say), and the
    places of the first ones."""
    blocks: int
    bytes: int
    untracked: int = 0
    places: list = field(default_factory=list)  # [Leak]

    def to_dict(self) -> dict:
        return _plain(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Leaks":
        return cls(d["blocks"], d["bytes"], d.get("untracked", 0),
                   [Leak(p["where"], p["blocks"], p["bytes"]) for p in d.get("places", [])])


@dataclass
class RunRecord:
    """What one run recorded; its JSON keys come in the order of these fields, those of
    snapshot() before EOF's (the worker's dict had failed_call and sites after sink when
    the fault fired only at EOF: the PR's flush route)."""
    # the worker's
    id: str | None = None
    build: str | None = None
    fault: str | None = None          # the fault's spec
    route: str | None = None
    setup: Setup | None = None
    inputs: list | None = None        # md5 of each frame pushed
    drained: list | None = None       # the sink's codes while the frames went through
    frames: list | None = None        # [Frame] out of the sink
    frame_sink: list | None = None    # the sink's codes for the last frame (frame route)
    counters: Counters | None = None
    injector: bool | None = None      # the injector was loaded
    activate: list | None = None      # [Activation]
    activate_at_eof: int | None = None       # the last flushed activate()'s
    activate_first_error: int | None = None  # the first non-zero activate()'s
    flush_calls: int | None = None
    log: str | None = None
    errors_logged: list | None = None  # the log's lines at AV_LOG_ERROR or worse
    failed_call: int | None = None    # which eligible call was failed (1-based)
    sites: list | None = None         # [CallSite]
    eof_push: int | None = None
    sink: list | None = None          # the sink's codes from EOF on
    leaks: Leaks | None = None        # what FFmpeg's code left behind once the graph was freed
    error: str | None = None          # why the scenario could not run
    # the runner's
    output: str | None = None         # the tail of the worker's output
    pid: int | None = None
    worker: str | None = None         # "fork server", or "fresh (why)"
    watch: dict | None = None         # what the watch saw of a run judged hung
    hung: bool | None = None          # True: hung, as the expectation said
    artifacts: str | None = None      # where a CRASH's or HANG's artifacts are

    def to_dict(self) -> dict:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and not (f.name in WITH_ACTIVATE and self.activate is not None):
                continue
            out[f.name] = _plain(value)
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "RunRecord":
        names = [f.name for f in fields(cls)]
        if unknown := [k for k in d if k not in names]:
            raise ValueError(f"not a run record's: {', '.join(unknown)}")
        r = cls(**d)
        if r.setup is not None:
            r.setup = Setup(d["setup"]["ret"], d["setup"].get("error"))
        if r.frames is not None:
            r.frames = [Frame.from_dict(f) for f in r.frames]
        if r.counters is not None:
            r.counters = Counters(**r.counters)
        if r.activate is not None:
            r.activate = [Activation(a["ret"], a["flushed"]) for a in r.activate]
        if r.leaks is not None:
            r.leaks = Leaks.from_dict(d["leaks"])
        if r.sites is not None:
            r.sites = [CallSite(s["call"], s.get("where", ""), s.get("function"))
                       for s in r.sites]
        return r


WITH_ACTIVATE = ("activate_at_eof", "activate_first_error")


def _plain(value):
    """A field's JSON form: a dataclass's fields but those None, a list's items."""
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)
                if getattr(value, f.name) is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
