"""The PR's claims as one data table: what each build must do under each fault.

Every row quotes the sentence of PR #24760 (../shared/seed/pr-24760.txt) it comes
from, or says "measured here" where the PR claims nothing (the Torch backend's own
route, which the PR never ran). Values are computed from the platform's errno, so any
errno name follows the fix's rule: before, activate() returns e; after, AVERROR(e),
with EAGAIN mapped to AVERROR_EXTERNAL.
"""

import errno
from dataclasses import dataclass

from . import errnos
from .faults import Fault

LOG_BEFORE = "Unable to start async inference.\n"
LOG_AFTER = "Unable to start async inference: "
EOF_ONLY = (errnos.AVERROR_EOF,)
ANY = None  # a claim that holds for every backend or filter
PR_BACKENDS = ("onnx", "openvino", "tf", "torch")  # the stand-in route is the same code


@dataclass(frozen=True)
class Claim:
    id: str
    builds: tuple
    fault_kind: str
    cites: str
    activate: object   # fault -> expected activate() return (at EOF, or first error)
    sink: object       # fault -> expected sink sequence
    log: object        # (fault, build) -> (must contain, must not contain)
    failures: int      # pthread_create() failures injected
    route: str = "flush"
    backends: tuple = ANY
    activate_field: str = "activate_at_eof"
    outcome: str = "PASS"  # HANG: the run must hang (judged on what it did before)


def _after_code(f: Fault) -> int:
    return errnos.AVERROR_EXTERNAL if f.errno == errno.EAGAIN else errnos.averror(f.errno)


def _clean_log(f: Fault, build: str):
    return ("", "Unable to start async inference")


def _thread_log(f: Fault, build: str):
    """(must contain, must not contain): before the fix the bare line, after it the cause."""
    if build == "before":
        return LOG_BEFORE, LOG_AFTER
    return f"{LOG_AFTER}{errnos.strerror(f.errno)}", LOG_BEFORE


CLAIMS = (
    # The PR's tables 1 and 2: the stand-in flush at EOF, any backend, any DNN filter.
    Claim("before-thread-start-lost", ("before",), "pthread_create",
          "before the fix `activate()` returned 11, 22 and 1 and the sink returned only "
          "`AVERROR_EOF`; Before the fix, the log says only \"Unable to start async inference.\"",
          activate=lambda f: f.errno, sink=lambda f: EOF_ONLY,
          log=_thread_log, failures=1),
    Claim("after-thread-start-surfaces", ("after",), "pthread_create",
          "after it, `activate()` and then the sink returned `AVERROR_EXTERNAL` (-542398533), "
          "-22 and -1, followed by `AVERROR_EOF`; After it, the log names the cause, e.g. "
          "\"Unable to start async inference: Resource temporarily unavailable\"",
          activate=_after_code, sink=lambda f: (_after_code(f), errnos.AVERROR_EOF),
          log=_thread_log, failures=1),
    Claim("eagain-flush-lost", ("before", "after"), "flush",
          "the raw `AVERROR(EAGAIN)` flush returned -11 and was lost behind EOF in both builds",
          activate=lambda f: errnos.averror(f.errno), sink=lambda f: EOF_ONLY,
          log=_clean_log, failures=0),
    Claim("clean-flush", ("before", "after"), "none",
          "control, not a PR sentence: with no fault the stand-in flush starts its thread "
          "and the run ends in a plain EOF",
          activate=lambda f: 0, sink=lambda f: EOF_ONLY, log=_clean_log, failures=0),
    # The backends' own per-frame start (route "frame").
    Claim("no-thread-no-fault", ("before", "after"), "pthread_create",
          "ONNX Runtime and OpenVINO do not use it.",
          activate=lambda f: None, sink=lambda f: EOF_ONLY, log=_clean_log, failures=0,
          route="frame", backends=("onnx", "openvino"), activate_field="activate_first_error"),
    Claim("torch-frame-start-fails-then-hangs", ("before", "after"), "pthread_create",
          "measured here, not claimed by the PR: 9.0.2's execute_model_th() returns "
          "ff_dnn_start_inference_async()'s result per frame, so dnn_processing's activate() "
          "returns AVERROR(EIO) in both builds; the failed task stays queued, never "
          "completes, and flush_frame() waits for it at EOF forever",
          activate=lambda f: errnos.averror(errno.EIO), sink=lambda f: (),
          log=_thread_log, failures=1, route="frame", backends=("torch",),
          activate_field="activate_first_error", outcome="HANG"),
)

# Side data of the frames drained before the fault: the PR's table 2 graphs.
BOXES = {
    "dnn_detect": ({"box": "32x32+16+16", "confidence": "9000/10000"},
                   "Each frame came out with one 32x32+16+16 box, confidence 9000/10000."),
    "dnn_classify": ({"box": "32x32+16+16", "classified": 1},
                     "With `confidence=0`, each frame's box got one classification label "
                     "from the model."),
}


@dataclass(frozen=True)
class Expectation:
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


def lookup(build: str, fault: Fault, backend: str = "onnx", filt: str = "dnn_processing",
           route: str = "flush"):
    """The Expectation for this run, or None where nothing is claimed or measured."""
    if fault.kind == "flush" and fault.errno != errno.EAGAIN:
        return None  # the PR's flush row is AVERROR(EAGAIN) only
    if fault.kind == "pthread_create" and not fault.simple:
        return None  # the PR failed the first call from FFmpeg; other windows are measured
    for c in CLAIMS:
        if (build in c.builds and c.fault_kind == fault.kind and c.route == route
                and (c.backends is ANY or backend in c.backends)):
            has, lacks = c.log(fault, build)
            boxes = BOXES.get(filt, (None,))[0]
            return Expectation(c.id, c.cites, c.activate(fault), c.activate_field,
                               tuple(c.sink(fault)), has, lacks, c.failures, boxes, c.outcome)
    return None


# The sweep (harness/sweep.py): named expectations for every site of a family, keyed by
# (backend, filter, family), the same in every build the key's text names.
SWEEP = {
    ("tf", "dnn_processing", "pthread_create"): (
        "HANG", "pre-existing, not changed by the PR: `execute_model_tf()` ignores the "
        "`ff_dnn_start_inference_async()` result in async mode and returns 0, so a "
        "TensorFlow frame whose thread cannot start is not reported by `execute_model`; "
        "measured here: its task never completes and the flush at EOF waits forever"),
    ("tf", "dnn_detect", "pthread_create"): (
        "HANG", "the same `execute_model_tf()` path serves dnn_detect: \"On TensorFlow every "
        "frame's inference is started by `ff_dnn_start_inference_async()`\"; measured here: "
        "a frame whose thread cannot start never completes and the run waits at EOF forever"),
    ("onnx", "dnn_processing", "pthread_create"): (
        None, "ONNX Runtime and OpenVINO do not use it."),  # no site at all
    ("onnx", "dnn_processing", "wrap:ff_proc_from_frame_to_dnn"): (
        "ALTERED", "measured here, not claimed by the PR nor changed by the series: every "
        "9.0.2 backend calls `ff_proc_from_frame_to_dnn()` without looking at its result, so "
        "when pre-processing fails the model runs on an input tensor that was never filled "
        "and the frame comes out with no error (base, before and after)"),
}


# #24702's own claims (issue 8), base (9.0.2) against before (patches 1-8): measured
# here with models that make 9.0.2's post-processing fail for real (models/claims_models.py).
ZEROS_64X64_RGB24 = "4072783b8efb99a9e5817067d68f61c6"  # md5 of 12288 zero bytes


@dataclass(frozen=True)
class CommitClaim:
    id: str
    commit: int
    cites: str
    backend: str
    filter: str
    model: str
    base: dict     # what base does: frames out, their md5, errors while draining, or HANG
    before: dict


COMMIT_CLAIMS = (
    CommitClaim(
        "commit3-unwritten-frame", 3,
        "on a post-processing failure it forwards this unwritten buffer downstream as a "
        "normal successful frame",
        "tf", "dnn_processing", "claims-tf-u8-out",
        # a uint8 output: ff_proc_from_dnn_to_frame() returns AVERROR(ENOSYS) (scale 0)
        base={"frames": [ZEROS_64X64_RGB24] * 2, "errors": []},
        before={"frames": [], "errors": [-errno.ENOSYS] * 2}),
    CommitClaim(
        "commit8-zero-element-output", 8,
        "In async mode the task then never completed: ff_dnn_get_result() returned "
        "DAST_NOT_READY forever, and the flush loops of dnn_detect and dnn_classify spun at EOF.",
        "openvino", "dnn_detect", "claims-ov-detect-empty",
        base={"hang": True, "frames": []},
        before={"frames": [], "errors": [-errno.EINVAL] * 2}),
)


# #24702's commits 1 and 2 (issue 8) under FFmpeg's own sanitizer toolchains, base against
# before, each through the tree's own ffmpeg_g (harness/sanitizer.py). `base` is the report
# the commit says base has: its kind, the functions its access stacks must name, the
# callers each of which must have one (the paths), and the variable it is about (for ASan
# the stack variable the access ran past; for TSan the source line of an access's top
# FFmpeg frame must name it). `before` must have no such report.
@dataclass(frozen=True)
class SanitizerClaim:
    id: str
    commit: int
    cites: str
    claim: str        # the short text of the claims table
    sanitizer: str    # asan or tsan: the variant (trees base-<s> and before-<s>)
    backend: str
    graph: str        # the -vf chain; {model} is the model file
    model: str
    source: str       # the lavfi input
    base: dict        # kind, functions, variable
    before: str = "no such report"


SANITIZER_CLAIMS = (
    SanitizerClaim(
        "commit1-nchw-sws-scale-overflow", 1,
        "It is still undefined behavior: an ASan build of master reports a "
        "stack-buffer-overflow in sws_scale() on these paths.",
        "ASan: stack-buffer-overflow in sws_scale() on the DL_NCHW intermediate buffer",
        "asan", "onnx",
        # 9.0.2's ONNX backend always sets DL_NCHW (input and output), and rgb24 (or bgr24)
        # frames take the intermediate `middle_data` buffer in dnn_io_proc.c: both paths,
        # "these paths", in one run of the recoverable ASan build
        "format=rgb24,dnn_processing=dnn_backend=onnx:model={model}:input=x:output=y",
        "onnx-identity", "testsrc=s=64x64:d=0.4",
        base={"kind": "stack-buffer-overflow", "functions": ("sws_scale",),
              "callers": ("ff_proc_from_frame_to_dnn", "ff_proc_from_dnn_to_frame"),
              "variable": "middle_data"}),
    SanitizerClaim(
        "commit2-inference-done-race", 2,
        "ff_dnn_get_result_common() polls it from the filter thread without any "
        "synchronization, and then hands the task's output frame, written by the callback, "
        "to the filter. These are conflicting accesses with no happens-before relation, "
        "i.e. a data race under the C memory model.",
        "TSan: data race on inference_done between the completion callback and "
        "ff_dnn_get_result_common()",
        "tsan", "tf",
        # TensorFlow async (the default): one thread per frame through
        # ff_dnn_start_inference_async(), whose callback counts the inference done
        "format=rgb24,dnn_processing=dnn_backend=tensorflow:model={model}:input=x:output=y",
        "tf-identity", "testsrc=s=64x64:d=2",
        base={"kind": "data race",
              "functions": ("ff_dnn_get_result_common", "infer_completion_callback"),
              "callers": (), "variable": "inference_done"}),
)
