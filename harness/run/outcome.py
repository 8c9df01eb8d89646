"""The outcome of one scenario, and how a result is judged against its expectation."""

import enum
import errno
from dataclasses import dataclass

from harness import errnos
from harness.errors import ExitStatus
from harness.run.record import Counters, RunRecord

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
    """What one run must do: the row of a case (harness/cases/) it is judged against."""
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
    frames: int = None     # frames out (None: not checked)
    flushes: int = None    # flush calls at EOF (the stand-in's, or the backend's own)
    eligible: int = None   # calls of the faulted function from FFmpeg's code after arming
    failed_at: tuple = ()  # the failed call's innermost functions, from its stack
    call: str = ""         # the faulted function as the case's words name it: "f()"


OK = (Outcome.PASS, Outcome.MEASURED, Outcome.SKIP)  # not marked as a failure in a report
GREEN = (Outcome.PASS,)  # what lets a command exit 0: every run judged, and as expected
MEASURE_ONLY = OK        # --measure: the user asked for a measurement, nothing to judge


def exit_status(results, measure: bool = False) -> ExitStatus:
    """OK when every run passed its expectation (with `measure`, or had none to meet);
    FAIL when one differs, could not be judged (ERROR, CRASH, an unexpected HANG), or,
    without `measure`, had no expectation (MEASURED) or did not run (SKIP)."""
    ok = MEASURE_ONLY if measure else GREEN
    return (ExitStatus.OK if results and all(r.outcome in ok for r in results)
            else ExitStatus.FAIL)


def unjudged(results) -> list:
    """The runs no expectation judged: what makes a run without --measure exit 1."""
    return [r for r in results if r.outcome in (Outcome.MEASURED, Outcome.SKIP)]


def judge(record: RunRecord, expectation, hung: bool = False,
          same_as_input: bool = False) -> tuple[Outcome, list]:
    """Compare a worker's record with an Expectation: (outcome, list of differences).
    A run that hung is judged on its checkpoint, without the sink it never reached nor
    the flush it never returned from. `same_as_input`: the graph's model is an identity
    (or an analytics filter that leaves pixels alone), so each frame out must be the
    frame pushed at its place."""
    if expectation is None:
        return Outcome.MEASURED, []
    diffs = []
    if expectation.outcome == "HANG" and not hung:
        diffs.append("expected the run to hang at EOF, it ended")
    got = getattr(record, expectation.activate_field)
    if got != expectation.activate:
        what = "at EOF" if expectation.activate_field == "activate_at_eof" else "first error"
        diffs.append(f"activate() {what}: got {errnos.describe(got)}, expected {errnos.describe(expectation.activate)}")
    sink = tuple(sink_sequence(record))
    if not hung and sink != expectation.sink:
        diffs.append(f"sink: got {_seq(sink)}, expected {_seq(expectation.sink)}")
    frames = record.frames or []
    if expectation.frames is not None and len(frames) != expectation.frames:
        diffs.append(f"frames out: got {len(frames)}, expected {expectation.frames}")
    if same_as_input:
        diffs += _identity_diffs(frames, record.inputs)
    if expectation.boxes:
        diffs += _box_diffs(frames, expectation.boxes, expectation.frames or 2)
    flushes = record.flush_calls
    if expectation.flushes is not None and not hung and flushes != expectation.flushes:
        diffs.append(f"flush calls at EOF: got {flushes}, expected {expectation.flushes}")
    log = record.log or ""
    if expectation.log_has and expectation.log_has not in log:
        diffs.append(f"log lacks {expectation.log_has.strip()!r}")
    if expectation.log_lacks and expectation.log_lacks in log:
        diffs.append(f"log has {expectation.log_lacks.strip()!r}")
    call = f"{expectation.call} " if expectation.call else ""
    counters = record.counters or Counters()
    failures = counters.failures
    if failures != expectation.failures:
        diffs.append(f"{call}failures injected: got {failures}, "
                     f"expected {expectation.failures}")
    eligible = counters.eligible
    if expectation.eligible is not None and eligible != expectation.eligible:
        diffs.append(f"{call}calls from FFmpeg's code after arming: got "
                     f"{eligible}, expected {expectation.eligible}")
    if expectation.failed_at:
        where = failed_where(record)
        if functions(where)[:len(expectation.failed_at)] != list(expectation.failed_at):
            diffs.append(f"the failed {call}call: got {where or 'no stack'}, "
                         f"expected {' < '.join(expectation.failed_at)}")
    return (Outcome.FAIL if diffs else Outcome.PASS), diffs


def sink_sequence(record: RunRecord) -> list:
    """The sink's error codes from the fault on, until AVERROR_EOF: on the frame route
    first what the failed frame's pulls returned. Frames (0) are counted apart, and
    EAGAIN is "not yet", not a result."""
    codes = (record.frame_sink or []) + (record.sink or [])
    return [c for c in codes if c < 0 and c != EAGAIN]


def failed_where(record: RunRecord) -> str:
    """The stack of the first call the window failed (the worker's failed_call), as
    the census named it: "f (file.c:12) < g (file.c:34) < ..."."""
    return next((s.where for s in record.sites or [] if s.call == record.failed_call), "")


def functions(where: str) -> list:
    """"f (file.c:12) < g (file.c:34)" -> ["f", "g"]."""
    return [w.split(" (")[0] for w in where.split(" < ")] if where else []


def _identity_diffs(frames: list, inputs) -> list:
    if inputs is None:
        return ["the worker recorded no input frames to compare with"]
    return [f"frame {i}: not the frame pushed (md5 {f.md5}, pushed "
            f"{inputs[i] if i < len(inputs) else 'none at its place'})"
            for i, f in enumerate(frames) if i >= len(inputs) or f.md5 != inputs[i]]


def _box_diffs(frames: list, want: dict, count: int = 2) -> list:
    diffs = []
    if len(frames) < count:  # no frame, no box: that is not a pass
        diffs.append(f"boxes: {len(frames)} frames came out, expected {count} with a box each")
    for i, f in enumerate(frames[:count]):
        boxes = f.boxes or []
        if len(boxes) != 1:
            diffs.append(f"frame {i}: {len(boxes)} boxes, expected 1")
            continue
        b = boxes[0]
        for key, value in want.items():
            got = len(b.classify) if key == "classified" else getattr(b, key)
            if got != value:
                diffs.append(f"frame {i}: box {key} {got}, expected {value}")
    return diffs



def _seq(codes) -> str:
    return ", then ".join(errnos.describe(c) for c in codes) or "nothing"
