"""The judge (harness/run/outcome.py) on what real runs did (tests/data/verdicts/, recorded
from the 9.0.2 trees by its record.py): each recorded run is judged as the runner judged it,
against the case's expectation (harness/cases/pr24760/ lookup), and each wrong variant derived
from it fails, saying what is wrong: a wrong sink (the after row whose sink is only
AVERROR_EOF, the very bug #24760 fixes), a wrong log, a wrong failure count, a run that
ended where a HANG was expected, a hang where none was, ... (issue 26)."""

import dataclasses

import pytest

from harness.cases import pr24760 as case
from harness import errnos
from harness.run import outcome, runner
from harness.run.outcome import Outcome
from harness.run.record import RunRecord
from tests import recorded

pytestmark = pytest.mark.unit

EOF = errnos.AVERROR_EOF
EXTERNAL = -542398533   # the PR: "AVERROR_EXTERNAL (-542398533)"
BEFORE_LINE = "Unable to start async inference."       # the PR's "before" log line
AFTER_EAGAIN = "Unable to start async inference: Resource temporarily unavailable"
FLUSH_START = "ff_dnn_start_inference_async < standin_flush"


def _judge(run: dict, hung: bool = False):
    """What the runner does with a worker's result (runner._judge): the case's expectation
    for the scenario, and whether its frames must come out as pushed."""
    r = recorded.result(run)
    return runner._judge(r.scenario, r.record, case.expectation(r.scenario), hung)


# Each recorded run, re-judged: (recording, build, fault, hung) -> the outcome, and the
# claim of the case (harness/cases/pr24760/ CLAIMS) the expectation comes from.
RECORDED = [
    ("table-onnx", "before", "pthread_create=EAGAIN", False, "before-thread-start-lost"),
    ("table-onnx", "before", "pthread_create=EINVAL", False, "before-thread-start-lost"),
    ("table-onnx", "before", "pthread_create=EPERM", False, "before-thread-start-lost"),
    ("table-onnx", "before", "flush=AVERROR(EAGAIN)", False, "eagain-flush-lost"),
    ("table-onnx", "after", "pthread_create=EAGAIN", False, "after-thread-start-surfaces"),
    ("table-onnx", "after", "pthread_create=EINVAL", False, "after-thread-start-surfaces"),
    ("table-onnx", "after", "pthread_create=EPERM", False, "after-thread-start-surfaces"),
    ("table-onnx", "after", "flush=AVERROR(EAGAIN)", False, "eagain-flush-lost"),
    ("frame-torch", "before", None, True, "torch-frame-start-fails-then-hangs"),
    ("frame-torch", "after", None, True, "torch-frame-start-fails-then-hangs"),
    ("frame-onnx", "after", None, False, "no-thread-no-fault"),
    ("detect-openvino", "after", None, False, "after-thread-start-surfaces"),
    ("classify-openvino", "before", None, False, "before-thread-start-lost"),
    ("classify-openvino", "after", None, False, "after-thread-start-surfaces"),
]


@pytest.mark.parametrize("name, build, fault, hung, claim", RECORDED,
                         ids=[f"{n}-{b}-{f or ''}".rstrip("-") for n, b, f, *_ in RECORDED])
def test_recorded_runs_pass(name, build, fault, hung, claim):
    run = recorded.run(name, build, fault)
    assert case.expectation(recorded.scenario(run["scenario"])).claim == claim
    assert run["outcome"] == "PASS" and run["data"].get("hung", False) == hung
    assert _judge(run, hung) == (Outcome.PASS, [])


def _set(path: str, value):
    """A variant: the recorded result with one field (a.b.c) set to `value`."""
    def change(d):
        *parents, last = path.split(".")
        for p in parents:
            d = d[int(p)] if isinstance(d, list) else d[p]
        d[int(last) if isinstance(d, list) else last] = value
    return change


def _drop(key: str):
    return lambda d: d.pop(key)


# Wrong variants of recorded runs: id -> (recording, build, fault, hung, how it is broken,
# every line the judge must give, in its order).
WRONG = {
    # the bug #24760 fixes: after it, the sink must see the error, not only EOF
    "after-sink-only-eof": (
        "table-onnx", "after", "pthread_create=EAGAIN", False, _set("sink", [EOF]),
        ["sink: got AVERROR_EOF, expected AVERROR_EXTERNAL, then AVERROR_EOF"]),
    "before-sink-surfaces": (
        "table-onnx", "before", "pthread_create=EINVAL", False, _set("sink", [-22, EOF]),
        ["sink: got AVERROR(EINVAL) (-22), then AVERROR_EOF, expected AVERROR_EOF"]),
    "after-sink-empty": (
        "table-onnx", "after", "pthread_create=EPERM", False, _set("sink", []),
        ["sink: got nothing, expected AVERROR(EPERM) (-1), then AVERROR_EOF"]),
    "after-sink-eagain-is-not-a-result": (   # EAGAIN and frames (0) are not sink results
        "table-onnx", "after", "pthread_create=EAGAIN", False,
        _set("sink", [0, -11, EXTERNAL, -11, EOF]), []),
    "after-frame-sink-counts": (
        "table-onnx", "after", "pthread_create=EAGAIN", False, _set("frame_sink", [-5]),
        ["sink: got AVERROR(EIO) (-5), then AVERROR_EXTERNAL, then AVERROR_EOF, expected "
         "AVERROR_EXTERNAL, then AVERROR_EOF"]),
    # activate(): the positive errno before the fix, AVERROR after
    "after-activate-positive": (
        "table-onnx", "after", "pthread_create=EINVAL", False, _set("activate_at_eof", 22),
        ["activate() at EOF: got 22, expected AVERROR(EINVAL) (-22)"]),
    "before-activate-missing": (
        "table-onnx", "before", "pthread_create=EAGAIN", False, _drop("activate_at_eof"),
        ["activate() at EOF: got nothing, expected 11"]),
    "frame-first-error": (
        "frame-onnx", "after", None, False, _set("activate_first_error", -11),
        ["activate() first error: got AVERROR(EAGAIN) (-11), expected nothing"]),
    # the log: after the fix it names the cause, before it only the bare line
    "after-log-bare-line": (
        "table-onnx", "after", "pthread_create=EAGAIN", False,
        _set("log", "[dnn_base @ 0x1] Unable to start async inference.\n"),
        [f"log lacks {AFTER_EAGAIN!r}", f"log has {BEFORE_LINE!r}"]),
    "before-log-names-cause": (
        "table-onnx", "before", "pthread_create=EAGAIN", False,
        _set("log", f"[dnn_base @ 0x1] {AFTER_EAGAIN}\n"),
        [f"log lacks {BEFORE_LINE!r}", "log has 'Unable to start async inference:'"]),
    "flush-row-log-says-thread": (
        "table-onnx", "after", "flush=AVERROR(EAGAIN)", False,
        _set("log", "Unable to start async inference.\n"),
        ["log has 'Unable to start async inference'"]),
    # the failure count: exactly one pthread_create() call failed
    "no-failure-injected": (
        "table-onnx", "after", "pthread_create=EINVAL", False, _set("counters.failures", 0),
        ["pthread_create() failures injected: got 0, expected 1"]),
    "two-failures-injected": (
        "table-onnx", "before", "pthread_create=EPERM", False, _set("counters.failures", 2),
        ["pthread_create() failures injected: got 2, expected 1"]),
    "flush-row-failure-injected": (
        "table-onnx", "before", "flush=AVERROR(EAGAIN)", False, _set("counters.failures", 1),
        ["pthread_create() failures injected: got 1, expected 0"]),
    "no-counters": (
        "table-onnx", "after", "flush=AVERROR(EAGAIN)", False, _drop("counters"),
        ["pthread_create() failures injected: got None, expected 0"]),
    "two-eligible-calls": (
        "table-onnx", "after", "pthread_create=EAGAIN", False, _set("counters.eligible", 2),
        ["pthread_create() calls from FFmpeg's code after arming: got 2, expected 1"]),
    "frame-route-eligible": (
        "frame-onnx", "after", None, False, _set("counters.eligible", 1),
        ["pthread_create() calls from FFmpeg's code after arming: got 1, expected 0"]),
    "another-call-failed": (
        "table-onnx", "after", "pthread_create=EAGAIN", False, _set("failed_call", 2),
        [f"the failed pthread_create() call: got no stack, expected {FLUSH_START}"]),
    "failed-in-the-frame-start": (
        "table-onnx", "after", "pthread_create=EAGAIN", False,
        _set("sites.0.where", "ff_dnn_start_inference_async (dnn_backend_common.c:147) < "
                              "execute_model_th (dnn_backend_torch.cpp:347)"),
        ["the failed pthread_create() call: got ff_dnn_start_inference_async "
         "(dnn_backend_common.c:147) < execute_model_th (dnn_backend_torch.cpp:347), "
         f"expected {FLUSH_START}"]),
    "failed-in-the-start-alone": (   # the innermost function right, its caller not there
        "table-onnx", "after", "pthread_create=EAGAIN", False,
        _set("sites.0.where", "ff_dnn_start_inference_async (dnn_backend_common.c:147)"),
        ["the failed pthread_create() call: got ff_dnn_start_inference_async "
         f"(dnn_backend_common.c:147), expected {FLUSH_START}"]),
    "no-stack-kept": (
        "table-onnx", "before", "pthread_create=EAGAIN", False, _drop("sites"),
        [f"the failed pthread_create() call: got no stack, expected {FLUSH_START}"]),
    "no-log-kept": (
        "table-onnx", "after", "pthread_create=EAGAIN", False, _drop("log"),
        [f"log lacks {AFTER_EAGAIN!r}"]),
    # frames and flush
    "no-frames-kept": (
        "table-onnx", "after", "pthread_create=EINVAL", False, _drop("frames"),
        ["frames out: got 0, expected 2"]),
    "a-frame-lost": (
        "table-onnx", "after", "pthread_create=EINVAL", False,
        lambda d: d["frames"].pop(), ["frames out: got 1, expected 2"]),
    "a-frame-not-the-input": (
        "table-onnx", "before", "pthread_create=EINVAL", False, _set("frames.1.md5", "0" * 32),
        ["frame 1: not the frame pushed (md5 00000000000000000000000000000000, pushed "
         "82e9c01597ffa70fa907c791fbc469aa)"]),
    "a-frame-more": (   # more frames than pushed: a difference (it was an IndexError)
        "table-onnx", "before", "pthread_create=EINVAL", False,
        lambda d: d["frames"].append({"md5": "f" * 32, "boxes": []}),
        ["frames out: got 3, expected 2", "frame 2: not the frame pushed (md5 "
         "ffffffffffffffffffffffffffffffff, pushed none at its place)"]),
    "inputs-not-recorded": (
        "table-onnx", "after", "pthread_create=EINVAL", False, _drop("inputs"),
        ["the worker recorded no input frames to compare with"]),
    "flush-never-called": (
        "table-onnx", "after", "pthread_create=EAGAIN", False, _set("flush_calls", 0),
        ["flush calls at EOF: got 0, expected 1"]),
    # table 2: one box on each frame, and one label on it
    "detect-box-elsewhere": (
        "detect-openvino", "after", None, False, _set("frames.0.boxes.0.box", "16x16+0+0"),
        ["frame 0: box box 16x16+0+0, expected 32x32+16+16"]),
    "detect-confidence": (
        "detect-openvino", "after", None, False,
        _set("frames.1.boxes.0.confidence", "5000/10000"),
        ["frame 1: box confidence 5000/10000, expected 9000/10000"]),
    "detect-two-boxes": (
        "detect-openvino", "after", None, False,
        lambda d: d["frames"][0]["boxes"].append(dict(d["frames"][0]["boxes"][0])),
        ["frame 0: 2 boxes, expected 1"]),
    "detect-no-box": (
        "detect-openvino", "after", None, False, _set("frames.1.boxes", []),
        ["frame 1: 0 boxes, expected 1"]),
    "detect-frame-without-boxes": (
        "detect-openvino", "after", None, False, lambda d: d["frames"][0].pop("boxes"),
        ["frame 0: 0 boxes, expected 1"]),
    "detect-no-box-anywhere": (
        "detect-openvino", "after", None, False,
        lambda d: [f.update(boxes=[]) for f in d["frames"]],
        ["frame 0: 0 boxes, expected 1", "frame 1: 0 boxes, expected 1"]),
    "detect-one-frame": (
        "detect-openvino", "after", None, False, lambda d: d["frames"].pop(),
        ["frames out: got 1, expected 2",
         "boxes: 1 frames came out, expected 2 with a box each"]),
    "classify-no-label": (
        "classify-openvino", "after", None, False, _set("frames.1.boxes.0.classify", []),
        ["frame 1: box classified 0, expected 1"]),
    "classify-two-labels": (
        "classify-openvino", "before", None, False,
        lambda d: d["frames"][0]["boxes"][0]["classify"].append(
            {"label": "cat", "confidence": "1/2"}),
        ["frame 0: box classified 2, expected 1"]),
    # the HANG row: a run that ended where the case says it hangs is judged on everything
    "hang-row-ended": (
        "frame-torch", "after", None, False, lambda d: d.pop("hung"),
        ["expected the run to hang at EOF, it ended",
         "sink: got AVERROR(EIO) (-5), expected nothing",
         "flush calls at EOF: got 0, expected 1"]),
    "hang-row-ended-at-eof": (   # even one that got as far as the flush and the sink
        "frame-torch", "before", None, False,
        lambda d: d.update(hung=False, frame_sink=[], flush_calls=1),
        ["expected the run to hang at EOF, it ended"]),
    # a run that hung is judged on its checkpoint: the sink and flush it never reached
    # are not held against it, everything else is
    "hang-row-wrong-activate": (
        "frame-torch", "after", None, True, _set("activate_first_error", 11),
        ["activate() first error: got 11, expected AVERROR(EIO) (-5)"]),
    "hang-row-wrong-log": (
        "frame-torch", "after", None, True, _set("log", ""),
        [f"log lacks {AFTER_EAGAIN!r}"]),
    "hang-row-no-failure": (
        "frame-torch", "before", None, True, _set("counters.failures", 0),
        ["pthread_create() failures injected: got 0, expected 1"]),
    "hang-row-frame-out": (
        "frame-torch", "before", None, True,
        lambda d: d["frames"].append({"md5": d["inputs"][1], "boxes": []}),
        ["frames out: got 2, expected 1"]),
}


@pytest.mark.parametrize("how", list(WRONG))
def test_wrong_variants_fail(how):
    name, build, fault, hung, change, says = WRONG[how]
    run = recorded.run(name, build, fault)
    change(run["data"])
    got, diffs = _judge(run, hung)
    assert got is (Outcome.FAIL if says else Outcome.PASS)
    assert diffs == says


def test_a_hang_the_case_does_not_name_is_a_hang():
    """An unexpected hang: a row the case says ends, killed idle after EOF, is HANG
    (runner._hung), whatever its checkpoint shows, and fails the command; the HANG row
    hung is judged on its checkpoint and passes."""
    run = recorded.run("table-onnx", "after", "pthread_create=EAGAIN")
    r = recorded.result(run)
    exp = case.expectation(r.scenario)
    got = runner._hung(r.scenario, r.record, 1.0, "killed 1.0 s in: idle for 0.5 s after EOF", exp)
    assert (got.outcome, got.diffs) == (Outcome.HANG, [])
    assert outcome.exit_status([got]) == 1
    torch = recorded.result(recorded.run("frame-torch", "after"))
    got = runner._hung(torch.scenario, torch.record, 1.0, "killed",
                       case.expectation(torch.scenario))
    assert (got.outcome, got.record.hung, got.reason) == (Outcome.PASS, True, "killed, as expected")


def test_judge_by_default_judges_a_run_that_ended_pixels_unchecked():
    """judge() told nothing more judges a run that ended (its sink too) and leaves the
    pixels alone (a model may change them)."""
    run = recorded.run("table-onnx", "after", "pthread_create=EAGAIN")
    exp = case.expectation(recorded.scenario(run["scenario"]))
    run["data"]["frames"][0]["md5"] = "0" * 32
    assert outcome.judge(RunRecord.from_dict(run["data"]), exp) == (Outcome.PASS, [])
    run["data"]["sink"] = [EOF]
    assert outcome.judge(RunRecord.from_dict(run["data"]), exp) == (Outcome.FAIL, [
        "sink: got AVERROR_EOF, expected AVERROR_EXTERNAL, then AVERROR_EOF"])


@pytest.mark.parametrize("frames, keep, says", [
    (1, 1, []),   # a row that expects one frame wants one box
    (None, 2, []),   # frames unchecked: the two the PR's runs push, each with its box
    (None, 1, ["boxes: 1 frames came out, expected 2 with a box each"]),
])
def test_boxes_on_the_frames_expected(frames, keep, says):
    """The box check counts the frames the expectation names, else the PR's two."""
    run = recorded.run("detect-openvino", "after")
    exp = dataclasses.replace(case.expectation(recorded.scenario(run["scenario"])),
                              frames=frames)
    del run["data"]["frames"][keep:]
    assert outcome.judge(RunRecord.from_dict(run["data"]), exp)[1] == says


def test_no_expectation_is_measured():
    run = recorded.run("table-onnx", "after", "pthread_create=EAGAIN")
    assert outcome.judge(RunRecord.from_dict(run["data"]), None) == (Outcome.MEASURED, [])


def _results(*outcomes):
    """The recorded table's results, their outcomes replaced in order."""
    rs = [recorded.result(r) for r in recorded.load("table-onnx")["runs"]]
    for r, o in zip(rs, outcomes):
        r.outcome = o
    return rs


# outcomes of a command's runs -> its exit status without --measure, with it (the rule in
# outcome.exit_status's docstring: every run judged and as expected is 0)
STATUS = [
    ((), 0, 0),
    ((Outcome.FAIL,), 1, 1),
    ((Outcome.MEASURED,), 1, 0),
    ((Outcome.SKIP,), 1, 0),
    ((Outcome.ERROR,), 1, 1),
    ((Outcome.CRASH,), 1, 1),
    ((Outcome.HANG,), 1, 1),
    ((Outcome.MEASURED,) * 8, 1, 0),
]


@pytest.mark.parametrize("outcomes, status, measured", STATUS,
                         ids=["recorded", "fail", "measured", "skip", "error", "crash", "hang",
                              "all-measured"])
def test_exit_status_of_recorded_runs(outcomes, status, measured):
    rs = _results(*outcomes)
    assert outcome.exit_status(rs) == status
    assert outcome.exit_status(rs, measure=True) == measured
    assert outcome.unjudged(rs) == [r for r in rs if r.outcome in (Outcome.MEASURED,
                                                                   Outcome.SKIP)]
    assert len(outcome.unjudged(rs)) == sum(o in (Outcome.MEASURED, Outcome.SKIP)
                                            for o in outcomes)


def test_no_run_is_not_green():
    assert outcome.exit_status([]) == 1
    assert outcome.exit_status([], measure=True) == 1


def test_the_sink_sequence_and_the_failed_call():
    """What the judge reads of a result, on the recorded after EAGAIN row and LibTorch's
    frame route: the errors from the frame's pulls first, EAGAIN and frames left out."""
    after = recorded.result(recorded.run("table-onnx", "after", "pthread_create=EAGAIN")).record
    assert outcome.sink_sequence(after) == [EXTERNAL, EOF]
    torch = recorded.result(recorded.run("frame-torch", "after")).record
    assert outcome.sink_sequence(dataclasses.replace(torch, sink=[-11, 0, EOF])) == [-5, EOF]
    assert outcome.sink_sequence(RunRecord()) == []
    assert outcome.failed_where(after) == after.sites[0].where
    assert outcome.failed_where(dataclasses.replace(after, failed_call=None)) == ""
    assert outcome.functions(after.sites[0].where) == [
        "ff_dnn_start_inference_async", "standin_flush", "flush_frame"]
    assert outcome.functions("") == []
    assert outcome.functions("ff_dnn_start_inference_async (dnn_backend_common.c:147) < "
                             "(anonymous namespace)::run (dnn_backend_torch.cpp:12)") == [
        "ff_dnn_start_inference_async", "(anonymous namespace)::run"]
    assert outcome._seq([EXTERNAL, EOF]) == "AVERROR_EXTERNAL, then AVERROR_EOF"
    assert outcome._seq([]) == "nothing"


def test_an_expectation_that_names_no_call_says_failures_alone():
    """An expectation with no call named (a family whose call is not the PR's) says
    "failures injected" with nothing before it."""
    run = recorded.run("table-onnx", "after", "pthread_create=EINVAL")
    exp = dataclasses.replace(case.expectation(recorded.scenario(run["scenario"])), call="")
    run["data"]["counters"]["failures"] = 0
    assert outcome.judge(RunRecord.from_dict(run["data"]), exp)[1] == ["failures injected: got 0, expected 1"]
