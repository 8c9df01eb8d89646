"""The outcome of one scenario, and how a result is judged against its expectation."""

import enum
import errno
from dataclasses import dataclass

from harness import errnos

EAGAIN = -errno.EAGAIN


class Outcome(str, enum.Enum):
    PASS = "PASS"          # measured what the expected table says
    FAIL = "FAIL"          # measured something else
    MEASURED = "MEASURED"  # ran, but the table has no claim for this build and fault
    ERROR = "ERROR"        # could not run: bad model, graph that does not configure, ...
    CRASH = "CRASH"        # the worker died on a signal
    HANG = "HANG"          # killed after its timeout
    SKIP = "SKIP"          # not run: a component is missing


@dataclass(frozen=True)
class Expectation:
    """What one run must do: the row of a case (cases/) it is judged against."""
    claim: str
    cites: str
    activate: object
    activate_field: str
    sink: tuple
    log_has: str
    log_lacks: str
    failures: int
    boxes: object = None   # per drained frame: the one box it must carry
    outcome: str = "PASS"


OK = (Outcome.PASS, Outcome.MEASURED, Outcome.SKIP)


def judge(result: dict, expectation, hung: bool = False) -> tuple[Outcome, list]:
    """Compare a worker's result with an Expectation: (outcome, list of differences).
    A run that hung is judged on its checkpoint, without the sink it never reached."""
    if expectation is None:
        return Outcome.MEASURED, []
    diffs = []
    if expectation.outcome == "HANG" and not hung:
        diffs.append("expected the run to hang at EOF, it ended")
    got = result.get(expectation.activate_field)
    if got != expectation.activate:
        what = "at EOF" if expectation.activate_field == "activate_at_eof" else "first error"
        diffs.append(f"activate() {what}: got {_d(got)}, expected {_d(expectation.activate)}")
    sink = tuple(sink_sequence(result))
    if not hung and sink != expectation.sink:
        diffs.append(f"sink: got {_seq(sink)}, expected {_seq(expectation.sink)}")
    if expectation.boxes:
        diffs += _box_diffs(result.get("frames", []), expectation.boxes)
    log = result.get("log", "")
    if expectation.log_has and expectation.log_has not in log:
        diffs.append(f"log lacks {expectation.log_has.strip()!r}")
    if expectation.log_lacks and expectation.log_lacks in log:
        diffs.append(f"log has {expectation.log_lacks.strip()!r}")
    failures = result.get("counters", {}).get("failures")
    if failures != expectation.failures:
        diffs.append(f"pthread_create() failures injected: got {failures}, "
                     f"expected {expectation.failures}")
    return (Outcome.FAIL if diffs else Outcome.PASS), diffs


def sink_sequence(result: dict) -> list:
    """The sink's error codes from the fault on, until AVERROR_EOF: on the frame route
    first what the failed frame's pulls returned. Frames (0) are counted apart, and
    EAGAIN is "not yet", not a result."""
    codes = result.get("frame_sink", []) + list(result.get("sink", []))
    return [c for c in codes if c < 0 and c != EAGAIN]


def _box_diffs(frames: list, want: dict) -> list:
    diffs = []
    for i, f in enumerate(frames[:2]):
        boxes = f.get("boxes", [])
        if len(boxes) != 1:
            diffs.append(f"frame {i}: {len(boxes)} boxes, expected 1")
            continue
        b = boxes[0]
        for key, value in want.items():
            got = len(b["classify"]) if key == "classified" else b.get(key)
            if got != value:
                diffs.append(f"frame {i}: box {key} {got}, expected {value}")
    return diffs


def _d(code) -> str:
    return "nothing" if code is None else errnos.describe(code)


def _seq(codes) -> str:
    return ", then ".join(errnos.describe(c) for c in codes) or "nothing"
