"""Case pr24760: FFmpeg PR #24760 on the series #24702, on FFmpeg 9.0.2.

The PR's claims as one data table: what each build must do under each fault.

Every row quotes the sentence of PR #24760 (../shared/seed/pr-24760.txt) it comes
from, or says "measured here" where the PR claims nothing (the Torch backend's own
route, which the PR never ran). Values are computed from the platform's errno, so any
errno name follows the fix's rule: before, activate() returns e; after, AVERROR(e),
with EAGAIN mapped to AVERROR_EXTERNAL.
"""

import errno
from dataclasses import dataclass

from harness import errnos, paths
from harness.obtain.backends import BACKENDS
from harness.obtain.layout import Layout, TreeSpec
from harness.run.faults import Fault
from harness.run.matrix import Table
from harness.case import Case, TrainedRow
from harness.run.outcome import Expectation
from harness.run.runner import Expect
from harness.run.scenario import ZERO_FRAME_MD5

from harness.obtain import models

# The case's own models (models.register: generated and cached as the backends' are):
# outputs 9.0.2's post-processing rejects, for #24702's claims (claims_models.py), and
# MTCNN's trained nets for `unchanged`'s trained rows (mtcnn.py, from facenet-pytorch's
# weights, fetched and pinned; torchweights.py reads them without torch).
for _name, _func in (("claims-tf-u8-out", "tf_u8_out"), ("claims-tf-u8-out-gray", "tf_u8_out_gray"),
                     ("claims-ov-detect-empty", "ov_detect_const_empty"),
                     ("claims-ov-classify-empty", "ov_classify_const_empty"),
                     ("claims-ov-classify-no-scores", "ov_classify_no_scores"),
                     ("claims-ov-detect-no-rows", "ov_detect_no_rows"),
                     ("claims-tf-det-too-many", "tf_det_too_many")):
    models.register(_name, f"{__name__}.claims_models", _func)
_TORCHWEIGHTS = models.WRITERS + (paths.PROJECT / "harness/cases/pr24760/torchweights.py",)
models.register("mtcnn-onet", f"{__name__}.mtcnn", "onet", _TORCHWEIGHTS)
models.register("mtcnn-onet-labels", f"{__name__}.mtcnn", "onet_labels")
models.register("mtcnn-pnet-detect", f"{__name__}.mtcnn", "pnet_detect", _TORCHWEIGHTS)

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
    lost: int = 0          # frames the fault keeps from coming out (of those pushed)
    eligible: object = None  # pthread_create() calls from FFmpeg's code after arming
    failed_at: tuple = ()  # the failed call's innermost functions in FFmpeg's code


# "exactly one pthread_create() call failed": the stand-in flush's own start, named by
# its stack (the census keeps each eligible call's, harness/run/sites.py)
FLUSH_START = ("ff_dnn_start_inference_async", "standin_flush")
TORCH_FRAME_START = ("ff_dnn_start_inference_async", "execute_model_th")
IN_EACH_RUN = "In each run with injection, exactly one `pthread_create()` call failed."


# The PR's rows as it states them, numbers written here and not computed through the
# harness's own errno parsing (so a parser that read EPERM as EACCES fails these rows, not
# passes them): spec as written -> (activate() at EOF before the fix, after it).
# "before the fix `activate()` returned 11, 22 and 1 ...; after it, `activate()` and then
# the sink returned `AVERROR_EXTERNAL` (-542398533), -22 and -1"; "the raw
# `AVERROR(EAGAIN)` flush returned -11 and was lost behind EOF in both builds".
PR_ROWS = {
    "pthread_create=EAGAIN": (11, -542398533),
    "pthread_create=EINVAL": (22, -22),
    "pthread_create=EPERM": (1, -1),
    "flush=AVERROR(EAGAIN)": (-11, -11),
}


def _before_code(f: Fault) -> int:
    """activate() at EOF before the fix: the PR's number for its rows, else the rule
    (the positive errno itself)."""
    return PR_ROWS[f.given][0] if f.given in PR_ROWS else f.errno


def _after_code(f: Fault) -> int:
    """After the fix: the PR's number for its rows, else the rule (AVERROR(e), EAGAIN
    mapped to AVERROR_EXTERNAL)."""
    if f.given in PR_ROWS:
        return PR_ROWS[f.given][1]
    return errnos.AVERROR_EXTERNAL if f.errno == errno.EAGAIN else errnos.averror(f.errno)


def _flush_code(f: Fault) -> int:
    """The stand-in flush's fixed value, the same in both builds."""
    return PR_ROWS[f.given][0] if f.given in PR_ROWS else errnos.averror(f.errno)


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
          "`AVERROR_EOF`; Before the fix, the log says only \"Unable to start async inference.\"; "
          + IN_EACH_RUN,
          activate=_before_code, sink=lambda f: EOF_ONLY,
          log=_thread_log, failures=1, eligible=1, failed_at=FLUSH_START),
    Claim("after-thread-start-surfaces", ("after",), "pthread_create",
          "after it, `activate()` and then the sink returned `AVERROR_EXTERNAL` (-542398533), "
          "-22 and -1, followed by `AVERROR_EOF`; After it, the log names the cause, e.g. "
          "\"Unable to start async inference: Resource temporarily unavailable\"; " + IN_EACH_RUN,
          activate=_after_code, sink=lambda f: (_after_code(f), errnos.AVERROR_EOF),
          log=_thread_log, failures=1, eligible=1, failed_at=FLUSH_START),
    Claim("eagain-flush-lost", ("before", "after"), "flush",
          "the raw `AVERROR(EAGAIN)` flush returned -11 and was lost behind EOF in both builds",
          activate=_flush_code, sink=lambda f: EOF_ONLY,
          log=_clean_log, failures=0),  # nothing armed: no count to check
    Claim("clean-flush", ("before", "after"), "none",
          "control, not a PR sentence: with no fault the stand-in flush starts its thread "
          "and the run ends in a plain EOF",
          activate=lambda f: 0, sink=lambda f: EOF_ONLY, log=_clean_log, failures=0),
    # The backends' own per-frame start (route "frame").
    Claim("no-thread-no-fault", ("before", "after"), "pthread_create",
          "ONNX Runtime and OpenVINO do not use it.",
          activate=lambda f: None, sink=lambda f: EOF_ONLY, log=_clean_log, failures=0,
          route="frame", backends=("onnx", "openvino"), activate_field="activate_first_error",
          eligible=0),
    Claim("torch-frame-start-fails-then-hangs", ("before", "after"), "pthread_create",
          "measured here, not claimed by the PR: 9.0.2's execute_model_th() returns "
          "ff_dnn_start_inference_async()'s result per frame, so dnn_processing's activate() "
          "returns AVERROR(EIO) in both builds; the failed task stays queued, never "
          "completes, and flush_frame() waits for it at EOF forever",
          activate=lambda f: errnos.averror(errno.EIO), sink=lambda f: (),
          log=_thread_log, failures=1, route="frame", backends=("torch",),
          activate_field="activate_first_error", outcome="HANG", lost=1, eligible=1,
          failed_at=TORCH_FRAME_START),
)

# Side data of the frames drained before the fault: the PR's table 2 graphs.
BOXES = {
    "dnn_detect": ({"box": "32x32+16+16", "confidence": "9000/10000"},
                   "Each frame came out with one 32x32+16+16 box, confidence 9000/10000."),
    "dnn_classify": ({"box": "32x32+16+16", "classified": 1},
                     "With `confidence=0`, each frame's box got one classification label "
                     "from the model."),
}




def lookup(build: str, fault: Fault, backend: str = "onnx", filt: str = "dnn_processing",
           route: str = "flush", frames: int = 2):
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
                               tuple(c.sink(fault)), has, lacks, c.failures, boxes, c.outcome,
                               frames - c.lost, 1, c.eligible, c.failed_at,
                               call="pthread_create()")
    return None


# The sweep (harness/judge/sweep.py): named expectations for every site of a family, keyed by
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
    ("torch", "dnn_processing", "pthread_create"): (
        "HANG", "measured here, as on LibTorch's frame route (CLAIMS, "
        "torch-frame-start-fails-then-hangs): `execute_model_th()` returns the failed "
        "start, activate() returns AVERROR(EIO), and the task and its request never come "
        "back: the next frame waits for a request forever, and when the failed start is "
        "the last frame's, `flush_frame()` waits for the task at EOF forever; every build"),
    ("onnx", "dnn_processing", "pthread_create"): (
        None, "ONNX Runtime and OpenVINO do not use it."),  # no site at all
    ("onnx", "dnn_processing", "wrap:ff_proc_from_frame_to_dnn"): (
        "ALTERED", "measured here, not claimed by the PR nor changed by the series: every "
        "9.0.2 backend calls `ff_proc_from_frame_to_dnn()` without looking at its result, so "
        "when pre-processing fails the model runs on an input tensor that was never filled "
        "and the frame comes out with no error (base, before and after)"),
}


def expectation(sc):
    """What the runner judges a scenario against (None: measured only)."""
    return lookup(sc.expected_build, sc.fault, sc.backend, sc.filter, sc.route, sc.frames)


def known_hang(sc) -> bool:
    """The table's HANG rows, and the sweep's sites where the table says every failed
    call of the family hangs the run (SWEEP)."""
    exp = expectation(sc)
    sweep = SWEEP.get((sc.backend, sc.filter, sc.fault.site), (None,))[0]
    return (exp is not None and exp.outcome == "HANG") or (sc.route == "sweep"
                                                           and sweep == "HANG")


EXPECT = Expect(expectation, known_hang)

# The release the series was adapted to (every patch applies there; on another release,
# --release, each is tried with git am -3): its trees' release unless a command names another.
RELEASE = "9.0.2"

# The trees: base = the release, before = base + #24702's eight commits (patches 1-8 of
# builds/patches/series), after = before + #24760 (9). #24702's sanitizer claims compare
# base and before, so those two are built again under ASan and TSan.
LAYOUT = Layout((TreeSpec("base"),
                 TreeSpec("before", parent="base", patches=tuple(range(1, 9))),
                 TreeSpec("after", parent="before", patches=(9,))),
                series_dir=paths.PATCHES, sanitizer_trees=("base", "before"),
                # each variant with only what its claims need (2 cores build them); TSan
                # runs TensorFlow: OpenVINO cannot run under it, since TBB dlopen()s
                # libtbbbind_2_5.so.3 with RTLD_DEEPBIND, which the sanitizer runtime refuses
                sanitizer_backends=(("asan", "onnx"), ("tsan", "tf")),
                # commit 4's claims run derain and sr in the tree's ffmpeg program
                filters=("derain", "sr"), release=RELEASE)
# The trees the PR's rows, tables and diffs compare (from, to), and those #24702's claims
# compare: the engine knows no tree by name.
PAIR = ("before", "after")
CLAIMS_PAIR = ("base", "before")

# "Without injection, `ffmpeg -f lavfi -i testsrc=s=64x64:d=0.4 -vf
# format=rgb24,dnn_processing=... -f md5 -` gives the same MD5
# (`eadd543ed2bc6e4e16e9295f92a11f5c`), exit 0, for both builds": `unchanged`'s identity rows.
IDENTITY_MD5 = "eadd543ed2bc6e4e16e9295f92a11f5c"

# The PR's rows, the default faults of `run` and `table`.
FAULTS = ("pthread_create=EAGAIN", "pthread_create=EINVAL", "pthread_create=EPERM",
          "flush=AVERROR(EAGAIN)")

# What `table` runs: the PR's table 1, its table 2, and the backends' own route, where
# the last frame's thread start fails (FRAME_FAULTS, capped at FRAME_TIMEOUT).
FRAME_FAULTS = ("pthread_create=EAGAIN", "pthread_create=EINVAL")
FRAME_TIMEOUT = 10.0  # LibTorch's own route hangs at EOF (torch-frame-start-fails-then-hangs)
TABLES = {
    "Table 1: dnn_processing, stand-in flush": Table(
        (("onnx", "dnn_processing"), ("openvino", "dnn_processing"), ("tf", "dnn_processing"),
         ("torch", "dnn_processing")), route="flush"),
    "Table 2: dnn_detect and dnn_classify, stand-in flush": Table(
        (("tf", "dnn_detect"), ("openvino", "dnn_detect"), ("openvino", "dnn_classify"),
         ("onnx", "dnn_detect")), route="flush"),
    "LibTorch's own route: the last frame's thread start fails (measured here)": Table(
        (("torch", "dnn_processing"),), route="frame", faults=FRAME_FAULTS,
        timeout=FRAME_TIMEOUT),
}

# What the PR's tables need of the two trees (harness/judge/series.py checks it against
# the patches a release took): #24702's commit 7 makes activate() return the flush
# result at EOF, #24760 (9) is the fix, so before needs 7 without 9 and after 7 and 9.
TABLE_NEEDS = {"before": {"has": (7,), "lacks": (9,)}, "after": {"has": (7, 9), "lacks": ()}}


# The first sites of a sweep, call by call (the suite runs these; `make sweep` runs all):
# (backend, filter, family) -> (sites in the census, ((class, innermost function) per
# call, from the first)). Measured here, the same in before and after (2026-12-03), and
# the site count the `make sweep` table of docs/sweeps-and-diffs.md gives.
SWEEP_FIRST = {
    ("onnx", "dnn_processing", "malloc"): (124, (
        ("SURFACED", "av_frame_alloc"),        # av_buffersrc_add_frame_flags()
        ("SURFACED", "av_buffer_pool_init"),   # frame_pool_video_init()
        ("SURFACED", "av_frame_alloc"),        # ff_frame_pool_get()
        ("SURFACED", "av_buffer_alloc"),       # av_buffer_allocz()
        ("SURFACED", "av_buffer_create"),      # av_buffer_alloc()
        ("SURFACED", "buffer_create"),         # av_buffer_alloc()
        ("SURFACED", "pool_alloc_buffer"),     # ff_frame_pool_get()
        ("SURFACED", "dnn_execute_model_onnx"),
    )),
}


# The link-time family (tests/pr24760/test_wrap.py): each wrapper of FFmpeg's DNN helpers fails
# its helper's first call after arming in a graph that reaches it, and the value it
# returns in the call's place shows, on after. Measured here (2026-12-03): symbol ->
# (backend, filter, route, value, eligible calls, the failed call's caller, its effect).
# Effects: ("first_error", code): the first frame's pull returns it; ("altered", i):
# frame i comes out, no error, not the frame pushed (the identity model ran on an input
# never filled); ("classified", i): frame i's label confidence is not the clean run's;
# ("activate_at_eof", code): what activate() returns at EOF; ("unseen", why).
WRAP_FIRES = {
    "ff_proc_from_dnn_to_frame": ("onnx", "dnn_processing", "sweep", "AVERROR(ENOMEM)", 2,
                                  "infer_completion_callback", ("first_error", -errno.ENOMEM)),
    "ff_proc_from_frame_to_dnn": ("onnx", "dnn_processing", "sweep", "AVERROR(ENOMEM)", 2,
                                  "fill_model_input_onnx", ("altered", 0)),
    "ff_frame_to_dnn_detect": ("tf", "dnn_detect", "sweep", "AVERROR(ENOMEM)", 2,
                               "fill_model_input_tf",
                               ("unseen", "the detector's outputs are constants: its input "
                                          "never shows, filled or not")),
    "ff_frame_to_dnn_classify": ("openvino", "dnn_classify", "sweep", "AVERROR(ENOMEM)", 2,
                                 "fill_model_input_ov", ("classified", 0)),
    # the flush route: the stand-in flush's one call, armed after the frames
    "ff_dnn_start_inference_async": ("tf", "dnn_processing", "flush", "11", 1,
                                     "standin_flush", ("activate_at_eof", errno.EAGAIN)),
    # the checks of a request before it runs: the backend returns what they return, and
    # the filter makes every failure of its model's execution AVERROR(EIO)
    "ff_check_exec_params": ("onnx", "dnn_processing", "sweep", "AVERROR(EINVAL)", 2,
                             "dnn_execute_model_onnx", ("first_error", -errno.EIO)),
    "ff_dnn_fill_task": ("onnx", "dnn_processing", "sweep", "AVERROR(EINVAL)", 2,
                         "dnn_execute_model_onnx", ("first_error", -errno.EIO)),
    # no idle request: the filter's activate() returns AVERROR(EIO), but the frame's task
    # is queued already and comes out at EOF with the other, and the sink sees no error
    "ff_safe_queue_pop_front": ("onnx", "dnn_processing", "sweep", "AVERROR(EINVAL)", 3,
                                "dnn_execute_model_onnx", ("error_then_every_frame", -errno.EIO)),
}


# The libav family (injectors/libav.fi): each call the DNN code makes into the rest of
# FFmpeg and checks, failed where the DNN code makes it, on after, two frames (measured
# with `harness sweep --build after --fault libav`): the graph whose census has it, a DNN
# function that makes the call, and a class one of those sites has (harness/judge/sweep.py).
LIBAV_SITES = {
    # a frame taken from the input link, a buffer for the output, a frame handed on: the
    # filter returns the error, the sink reports it
    "ff_inlink_consume_frame": ("onnx", "dnn_processing", "activate", "SURFACED"),
    "ff_get_video_buffer": ("onnx", "dnn_processing", "activate", "SURFACED"),
    "ff_filter_frame": ("onnx", "dnn_processing", "activate", "SURFACED"),
    # the scaler into the model's input: fill_model_input_onnx() ignores what
    # ff_proc_from_frame_to_dnn() returns, so the frame goes on through a model fed
    # nothing (altered, with no error): the follow-ups' 0002 checks it
    "sws_getContext": ("onnx", "dnn_processing", "ff_proc_from_frame_to_dnn", "ALTERED"),
    # the line sizes of the detector's input: fill_model_input_tf() ignores what
    # ff_frame_to_dnn_detect() returns too (0002 again), and the detector's outputs are
    # constants: nothing shows
    "av_image_fill_linesizes": ("tf", "dnn_detect", "ff_frame_to_dnn_detect", "CLEAN"),
}


# #24702's own claims (issue 8), base (9.0.2) against before (patches 1-8): measured
# here with models that make 9.0.2's post-processing fail for real (harness/cases/pr24760/claims_models.py),
# run by harness/experiments/claimrun.py, tabled by harness/judge/claims.py. Each row quotes its commit.
TF_DET = ("dnn_detect=dnn_backend=tensorflow:model={det}:input=image_tensor"
          ":output=num_detections&detection_scores&detection_classes&detection_boxes")
OV_DET = "dnn_detect=dnn_backend=openvino:model={det}:input=x"
OV_CLS = "dnn_classify=dnn_backend=openvino:model={model}:input=x:confidence=0"
TF_U8 = "dnn_backend=tensorflow:model={model}:input=x:output=y"
ENOSYS, EINVAL = -errno.ENOSYS, -errno.EINVAL
INVALIDDATA = next(c for c, n in errnos.TAGGED.items() if n == "AVERROR_INVALIDDATA")
POST_PROC_FAILED = "DNN post-processing of inference output failed"


@dataclass(frozen=True)
class CommitClaim:
    id: str
    commit: int
    claim: str     # the claim in one line, for the table
    cites: str     # the commit message's sentence
    needs: tuple   # the backends the graph uses
    graph: str     # filters between the source and the sink; {field}: models[field]
    models: dict
    base: dict     # what base must do (keys: judge.claims.diffs)
    before: dict
    runner: str = "worker"   # worker: buffer -> graph -> buffersink; ffmpeg: the program
    filter: str = ""         # worker: the first filter of this name gets the recorder
    reference: str = ""      # a chain whose frames a "frames": "reference" must equal
    not_expressible: str = ""  # why 9.0.2 cannot show the claim (the rows still measure it)
    frames: int = 2          # worker: frames pushed before EOF
    fault: str = "none"      # worker: a fault spec, armed before the first frame
    route: str = ""          # worker: "flush" arms the fault after the frames, with the
                             # stand-in flush at EOF (the PR's route); "": sweep with a
                             # fault, the stand-in's clean start without one

    @property
    def backend(self) -> str:
        return self.needs[-1] if self.needs else ""


def _detect_present(commit, backend, det, line, claim, cites):
    graph = f"format=rgb24,{det},{det}"
    model = {"tf": "tf-det", "openvino": "ov-detect"}[backend]
    # before: each frame's task fails (2 frames, 2 errors at the sink)
    after = ({"frames": 0, "errors": [EINVAL] * 2, "log": line} if commit == 5 else
             {"frames": 0, "errors": [EINVAL] * 2, "log": f"{POST_PROC_FAILED}: Invalid argument"})
    return CommitClaim(f"commit{commit}-{backend}-detect-boxes-present", commit, claim, cites,
                       (backend,), graph, {"det": model},
                       base={"frames": 2, "boxes": [(1, 0)] * 2, "errors": [], "log": line,
                             "no_log": POST_PROC_FAILED},
                       before=after, filter="dnn_detect")


WRAP_POST_PROC = "wrap:ff_proc_from_dnn_to_frame=1*return(AVERROR(ENOMEM))"
BACKEND_NAMES = {name: BACKENDS[name].product for name in PR_BACKENDS}


def _post_proc_fails(backend):
    """Commit 3 on every backend through the link-time family: the first frame's
    ff_proc_from_dnn_to_frame() returns AVERROR(ENOMEM) in place of the call. The graph
    is the harness's own for the backend (graph "": harness/run/chains.py)."""
    return CommitClaim(
        f"commit3-{backend}-post-proc-fails", 3,
        f"dnn_processing on {BACKEND_NAMES[backend]}, `{WRAP_POST_PROC}`: the first frame "
        "is an error, not an unwritten frame",
        "on a post-processing failure it forwards this unwritten buffer downstream as a "
        "normal successful frame", (backend,), "", {},
        base={"frames": 2, "zero_frames": 1, "errors": []},
        before={"frames": 1, "zero_frames": 0, "errors": [-errno.ENOMEM]},
        filter="dnn_processing", fault=WRAP_POST_PROC)


COMMIT7_CITES = ("dnn_processing, dnn_detect and dnn_classify return -1, i.e. "
                 "AVERROR(EPERM), when ff_dnn_flush() fails at EOF, which replaces the "
                 "backend's error with \"Operation not permitted\". Return the error "
                 "ff_dnn_flush() reported instead.")
EPERM = -errno.EPERM
# the filter's own graph (harness/run/chains.py) for each filter commit 7 changes
COMMIT7_FILTERS = {"dnn_processing": ("onnx",), "dnn_detect": ("tf",),
                   "dnn_classify": ("tf", "openvino")}


def _flush_error(filt: str, fault: str, code: int, before: dict, what: str):
    """Commit 7 through the stand-in flush at EOF (the PR's route, armed after the two
    frames): base's flush_frame() turns any nonzero ff_dnn_flush() result into -1, which
    the sink then reports; before returns the result itself. `before`: its row."""
    name = fault.split("=")[1].lower().replace("averror(", "").rstrip(")")
    return CommitClaim(
        f"commit7-{filt.replace('dnn_', '')}-{fault.split('=')[0]}-{name}", 7,
        f"{filt}, {what}: base returns -1 (AVERROR(EPERM)) at EOF, before returns {code}",
        COMMIT7_CITES, COMMIT7_FILTERS[filt], "", {},
        base={"frames": 2, "activate": EPERM, "errors": [EPERM]},
        before={"frames": 2, "activate": code, **before},
        filter=filt, fault=fault, route="flush")


COMMIT_CLAIMS = (
    *(_post_proc_fails(b) for b in BACKEND_NAMES),
    CommitClaim(
        "commit3-unwritten-frame", 3,
        "dnn_processing: a failed post-processing no longer forwards the unwritten frame",
        "on a post-processing failure it forwards this unwritten buffer downstream as a "
        "normal successful frame",
        # a uint8 output: ff_proc_from_dnn_to_frame() returns AVERROR(ENOSYS) (scale 0)
        ("tf",), f"format=rgb24,dnn_processing={TF_U8}", {"model": "claims-tf-u8-out"},
        base={"frames": [ZERO_FRAME_MD5] * 2, "errors": []},
        before={"frames": [], "errors": [ENOSYS] * 2}, filter="dnn_processing"),
    CommitClaim(
        "commit4-derain-real-error", 4,
        "derain returns the post-processing error (here AVERROR(ENOSYS)) and logs it",
        "Pass a status pointer, log the failure and return the real error, as "
        "vf_dnn_processing already does.",
        ("tf",), f"format=rgb24,derain={TF_U8}", {"model": "claims-tf-u8-out"},
        base={"frames": [ZERO_FRAME_MD5] * 2, "errors": [], "no_log": POST_PROC_FAILED},
        before={"frames": [], "errors": [ENOSYS],
                "log": f"{POST_PROC_FAILED}: Function not implemented"}, runner="ffmpeg"),
    CommitClaim(
        "commit4-sr-real-error", 4,
        "sr returns the post-processing error (here AVERROR(ENOSYS)) and logs it",
        "Pass a status pointer, log the failure and return the real error, as "
        "vf_dnn_processing already does.",
        # srcnn path: base forwards its bicubic pre-scale, the model's output never lands
        ("tf",), f"format=yuv420p,sr={TF_U8}:scale_factor=2", {"model": "claims-tf-u8-out-gray"},
        base={"frames": "reference", "errors": [], "no_log": POST_PROC_FAILED},
        before={"frames": [], "errors": [ENOSYS],
                "log": f"{POST_PROC_FAILED}: Function not implemented"}, runner="ffmpeg",
        reference="format=yuv420p,scale=128:128:flags=bicubic"),
    CommitClaim(
        "commit4-not-einval", 4,
        "derain and sr no longer collapse a post-processing failure into AVERROR(EINVAL)",
        "vf_derain and vf_sr still passed NULL for the status and collapsed every "
        "non-success result into AVERROR(EINVAL)",
        ("tf",), f"format=rgb24,derain={TF_U8}", {"model": "claims-tf-u8-out"},
        base={"frames": 2, "errors": []}, before={"frames": [], "errors": [ENOSYS]},
        runner="ffmpeg",
        not_expressible="base reports no error at all: 9.0.2's TF callback ignores "
                        "ff_proc_from_dnn_to_frame()'s result and completes the task, so "
                        "ff_dnn_get_result() succeeds; the AVERROR(EINVAL) fallback is "
                        "reachable only with commit 3 and without commit 4 (measured in "
                        "tests/pr24760/test_claims.py: before with commit 4 reverted returns "
                        "AVERROR(EINVAL) for derain and sr, and logs no cause)"),
    _detect_present(5, "tf", TF_DET, "already have dnn bounding boxes in side data.",
                    "TF dnn_detect: boxes already present -> AVERROR(EINVAL), not -1",
                    "Return AVERROR(EINVAL) for missing or already present detection side data"),
    _detect_present(5, "openvino", OV_DET, "already have bounding boxes in side data.",
                    "OpenVINO dnn_detect: boxes already present -> AVERROR(EINVAL), not -1",
                    "Return AVERROR(EINVAL) for missing or already present detection side data"),
    CommitClaim(
        "commit5-tf-detect-side-data-enomem", 5,
        "TF dnn_detect: side data that cannot be allocated -> AVERROR(ENOMEM), not -1",
        "Return AVERROR(EINVAL) for missing or already present detection side data, and "
        "AVERROR(ENOMEM) when the side data cannot be allocated.",
        # 6e6 boxes over the threshold: av_mallocz() refuses the 2.3 GB side data
        ("tf",), f"format=rgb24,{TF_DET}", {"det": "claims-tf-det-too-many"},
        base={"frames": 2, "boxes": [(0, 0)] * 2, "errors": [],
              "log": "failed to create side data with 6000000 bounding boxes"},
        before={"frames": 0, "errors": [-errno.ENOMEM] * 2,
                "log": f"{POST_PROC_FAILED}: Cannot allocate memory"}, filter="dnn_detect"),
    CommitClaim(
        "commit5-classify-no-scores", 5,
        "dnn_classify: an output without scores -> AVERROR_INVALIDDATA, logged",
        "Return AVERROR_INVALIDDATA, and log it, for a classifier output without any "
        "scores, which was not logged at all.",
        ("tf", "openvino"), f"format=rgb24,{TF_DET},{OV_CLS}",
        {"det": "tf-det", "model": "claims-ov-classify-no-scores"},
        base={"frames": 2, "boxes": [(1, 0)] * 2, "errors": [],
              "no_log": "Model output has no class scores."},
        before={"frames": 0, "errors": [INVALIDDATA] * 2,
                "log": "Model output has no class scores."}, filter="dnn_classify"),
    CommitClaim(
        "commit5-classify-missing-side-data", 5,
        "dnn_classify: missing detection side data -> AVERROR(EINVAL), not -1",
        "Return AVERROR(EINVAL) for missing or already present detection side data",
        ("openvino",), f"format=rgb24,{OV_CLS}", {"model": "ov-classify"},
        base={"frames": 2, "boxes": [(0, 0)] * 2, "errors": []},
        before={"frames": 2, "boxes": [(0, 0)] * 2, "errors": []}, filter="dnn_classify",
        not_expressible="classify_post_proc() never runs on a frame without boxes: the "
                        "OpenVINO backend queues one request per box of the frame's side "
                        "data (extract_lltask_from_task), none without it; such frames pass "
                        "unclassified on both builds"),
    _detect_present(6, "tf", TF_DET, "already have dnn bounding boxes in side data.",
                    "TF dnn_detect returns the post-processing error instead of forwarding",
                    "The OpenVINO and TensorFlow backends ignored the return values of "
                    "detect_post_proc() and classify_post_proc() altogether, so failures "
                    "there went unnoticed."),
    _detect_present(6, "openvino", OV_DET, "already have bounding boxes in side data.",
                    "OpenVINO dnn_detect returns the post-processing error instead of "
                    "forwarding", "dnn_detect and dnn_classify now pass a status to "
                    "ff_dnn_get_result() and return that error, like dnn_processing does, "
                    "instead of silently forwarding the frame."),
    CommitClaim(
        "commit6-classify-error-returned", 6,
        "OpenVINO dnn_classify returns classify_post_proc()'s error instead of forwarding",
        "dnn_detect and dnn_classify now pass a status to ff_dnn_get_result() and return "
        "that error, like dnn_processing does, instead of silently forwarding the frame.",
        ("tf", "openvino"), f"format=rgb24,{TF_DET},{OV_CLS}",
        {"det": "tf-det", "model": "claims-ov-classify-no-scores"},
        base={"frames": 2, "boxes": [(1, 0)] * 2, "errors": [], "no_log": POST_PROC_FAILED},
        before={"frames": 0, "errors": [INVALIDDATA] * 2,
                "log": f"{POST_PROC_FAILED}: Invalid data found when processing input"},
        filter="dnn_classify"),
    CommitClaim(
        "commit6-onnx-detect-eio", 6,
        "ONNX dnn_detect: the post-processing error instead of a bare AVERROR(EIO)",
        "execute_model_onnx() then returned DNN_GENERIC_ERROR and dnn_detect failed with "
        "a bare AVERROR(EIO) (\"Input/output error\") instead of the post-processing error",
        (), "format=rgb24,dnn_detect=dnn_backend=onnx:model={model}:input=x",
        {"model": "ov-detect"},
        base={"frames": [], "errors": [EINVAL], "log": 'option value "onnx"'},
        before={"frames": [], "errors": [EINVAL], "log": 'option value "onnx"'},
        runner="ffmpeg",
        not_expressible="9.0.2's dnn_detect accepts only TensorFlow and OpenVINO (its "
                        "dnn_backend option cannot parse \"onnx\") and its ONNX backend has "
                        "no DFT_ANALYTICS_DETECT case"),
    CommitClaim(
        "commit8-zero-element-output", 8,
        "OpenVINO dnn_detect, constant [1,1,0,7] output: an error instead of a spin at EOF",
        "In async mode the task then never completed: ff_dnn_get_result() returned "
        "DAST_NOT_READY forever, and the flush loops of dnn_detect and dnn_classify spun at EOF.",
        ("openvino",), f"format=rgb24,{OV_DET}", {"det": "claims-ov-detect-empty"},
        # one frame: the worker waits 10 s for it, then sends EOF, where base spins
        base={"hang": True, "frames": []},
        before={"frames": [], "errors": [EINVAL], "log": "Failed to get output port shape."},
        filter="dnn_detect", frames=1),
    CommitClaim(
        "commit8-classify-zero-classes", 8,
        "OpenVINO dnn_classify, constant [1,0] output: an error instead of a spin at EOF",
        "A model with a constant zero-element output reaches this, e.g. an SSD detector "
        "without proposals ([1,1,0,7]) or a classifier without classes",
        ("tf", "openvino"), f"format=rgb24,{TF_DET},{OV_CLS}",
        {"det": "tf-det", "model": "claims-ov-classify-empty"},
        base={"hang": True, "frames": []},
        before={"frames": 0, "errors": [EINVAL], "log": "Failed to get output port shape."},
        filter="dnn_classify", frames=1),
    CommitClaim(
        "commit8-zero-row-assert", 8,
        "OpenVINO dnn_detect, rank-2 output with zero rows: an error instead of an abort",
        "Replace the assertion on the first output dimension with an error, since a "
        "rank-2 detection output with zero rows made ffmpeg abort.",
        ("openvino",), f"format=rgb24,{OV_DET}", {"det": "claims-ov-detect-no-rows"},
        base={"crash": "SIGABRT", "frames": []},
        before={"frames": 0, "errors": [EINVAL] * 2,
                "log": "has 0 entries in its first dimension, fewer than the batch of 1"},
        filter="dnn_detect"),
    # commit 7 on every filter it changes, and with any code: AVERROR(EINVAL), AVERROR(ENOMEM),
    # a positive errno from a failed thread start (9.0.2's ff_dnn_start_inference_async()
    # returns pthread_create()'s), and AVERROR(EAGAIN), which before then loses at EOF
    *(_flush_error(f, "flush=AVERROR(EINVAL)", EINVAL, {"errors": [EINVAL]},
                   "the flush returns AVERROR(EINVAL)") for f in COMMIT7_FILTERS),
    _flush_error("dnn_processing", "flush=AVERROR(ENOMEM)", -errno.ENOMEM,
                 {"errors": [-errno.ENOMEM]}, "the flush returns AVERROR(ENOMEM)"),
    _flush_error("dnn_processing", "pthread_create=EAGAIN", errno.EAGAIN,
                 {"errors": [], "log": LOG_BEFORE},
                 "the stand-in flush's thread cannot start (EAGAIN), the flush returns 11"),
    _flush_error("dnn_processing", "flush=AVERROR(EAGAIN)", -errno.EAGAIN, {"errors": []},
                 "the flush returns AVERROR(EAGAIN)"),
)



# before with one commit reverted (a copy of the tree, `git revert`, `make ffmpeg`), run
# through its ffmpeg program: what the commit's own rows then measure. The test that a
# row of COMMIT_CLAIMS fails when its commit is undone (tests/pr24760/test_claims.py).
@dataclass(frozen=True)
class Reverted:
    commit: int
    subject: str   # the commit's subject, to find it in the tree's git history
    cites: str
    rows: dict     # COMMIT_CLAIMS id -> what before without the commit does (judge.claims.diffs)


_NO_CAUSE = {"frames": [], "errors": [EINVAL], "no_log": POST_PROC_FAILED}
_EPERM = {"frames": [], "errors": [-errno.EPERM], "log": POST_PROC_FAILED}
REVERTED = (
    Reverted(4, "avfilter/vf_derain, vf_sr: return the post-processing error",
             "vf_derain and vf_sr still passed NULL for the status and collapsed every "
             "non-success result into AVERROR(EINVAL)",
             {"commit4-derain-real-error": _NO_CAUSE, "commit4-sr-real-error": _NO_CAUSE}),
    Reverted(5, "avfilter/dnn: return AVERROR codes from analytics post-processing",
             "The next commit makes them the error of the filter, and of ffmpeg, where -1 "
             "would read as \"Operation not permitted\".",
             {"commit5-tf-detect-boxes-present": _EPERM,
              "commit5-openvino-detect-boxes-present": _EPERM,
              "commit5-tf-detect-side-data-enomem": _EPERM,
              "commit5-classify-no-scores": _EPERM}),
    Reverted(8, "avfilter/dnn_backend_openvino: complete tasks when reading the output fails",
             "the flush loops of dnn_detect and dnn_classify spun at EOF.",
             # dnn_classify's hang takes the same path: one 10 s hang is enough here
             {"commit8-zero-element-output": {"hang": True, "frames": []},
              "commit8-zero-row-assert": {"crash": "SIGABRT", "frames": []}}),
)

# #24702's commits 1 and 2 (issue 8) under FFmpeg's own sanitizer toolchains, base against
# before, each through the tree's own ffmpeg_g (harness/experiments/sanitizer.py). `base` is
# the report the commit says base has: its kind, the functions its access stacks must name,
# the callers each of which must have one (the paths), and the variable it is about (for
# ASan the stack variable the access ran past; for TSan the source line of an access's top
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


# The PR's "Testing" paragraphs on warnings, asserted from the trees' stamps (each tree's
# warning lines by object, harness/obtain/build.py; harness/judge/warnclaims.py checks them). `file`:
# no warning line may name it; `same`: before and after have the same lines.
@dataclass(frozen=True)
class WarningClaim:
    id: str
    cites: str
    file: str = ""
    same: bool = False
    commit: int = 9   # the PR's own mail says it: #24760 is the series' ninth commit

    @property
    def claim(self) -> str:
        return self.cites


WARNING_CLAIMS = (
    WarningClaim("no-warning-in-dnn-backend-common",
                 "Both built with no warnings in `dnn_backend_common.c`.",
                 file="libavfilter/dnn/dnn_backend_common.c"),
    WarningClaim("same-warning-lines-before-after",
                 "Both Linux builds had the same 10 warning lines (ONNX Runtime header "
                 "`-Wstrict-prototypes`), none in `dnn_backend_common.c`.",
                 file="libavfilter/dnn/dnn_backend_common.c", same=True),
)


# The PR's "Callers" paragraph, from real runs (harness/experiments/callers.py; checked by
# harness/judge/callers.py): the census of every pthread_create() call FFmpeg's own code
# makes (a window that never fails, armed before the first of 4 frames) on every backend
# and filter. Each call's innermost function in FFmpeg's code must be `creates`, called
# from one of its backend's `reached_from`; a backend with none makes no call at all.
CALLERS_CITES = ("In libavfilter/dnn, `pthread_create()` is called only in "
                 "`ff_dnn_start_inference_async()`, and only the TensorFlow and Torch "
                 "backends call that function. ONNX Runtime and OpenVINO do not use it.")
CALLERS = {
    "commit": 9,   # the paragraph is #24760's (its mail), the series' ninth commit
    "cites": CALLERS_CITES,
    "family": "pthread_create",  # the calls counted (injectors/pthread_create.fi)
    "creates": "ff_dnn_start_inference_async",
    "reached_from": {"tf": ("execute_model_tf",), "torch": ("execute_model_th",),
                     "onnx": (), "openvino": ()},
}


# `unchanged`'s rows over real footage with a trained model (harness/experiments/trained.py): the
# PR hashed `showinfo` over a real clip through trained detectors and a classifier; here
# photographs panned into a clip and MTCNN's nets, each row with what its counts must be.
ONET = "MTCNN ONet (trained; facenet-pytorch 2.6.0 `facenet_pytorch/data/onet.pt`)"
PNET = "MTCNN PNet (trained; facenet-pytorch 2.6.0 `facenet_pytorch/data/pnet.pt`)"
DETECT = "format=rgb24,dnn_detect=dnn_backend=openvino:model={det}:input=x"
CLASSIFY = ",dnn_classify=dnn_backend=openvino:model={onet}:input=x:labels={labels}:confidence=0"

TRAINED_ROWS = (
    TrainedRow("(no DNN filter)", "— (photographs)", "", {}, frozenset(), (), 0, 0, 0),
    TrainedRow("`dnn_detect`", "OpenVINO `ov-detect` (constant box, not trained)",
               DETECT, {"det": "ov-detect"}, frozenset({"openvino"}), (), 1, 0, 0),
    TrainedRow("`dnn_detect,dnn_classify`", f"OpenVINO `ov-detect` box + {ONET}",
               DETECT + CLASSIFY, {"det": "ov-detect", "onet": "mtcnn-onet",
                                   "labels": "mtcnn-onet-labels"},
               frozenset({"openvino"}), ("facenet-pytorch",), 1, 1, 1),
    TrainedRow("`dnn_detect`", PNET, DETECT.replace("input=x", "input=x:confidence=0.6"),
               {"det": "mtcnn-pnet-detect"}, frozenset({"openvino"}), ("facenet-pytorch",),
               None, 0, 0),
    TrainedRow("`dnn_detect,dnn_classify`", f"{PNET} + {ONET}",
               DETECT.replace("input=x", "input=x:confidence=0.6") + CLASSIFY,
               {"det": "mtcnn-pnet-detect", "onet": "mtcnn-onet", "labels": "mtcnn-onet-labels"},
               frozenset({"openvino"}), ("facenet-pytorch",), None, 1, 1),
)


# The case, as the engine reads it (harness/case.py): each part above, for the commands
# that judge it.
CASE = Case(
    "pr24760", PAIR, expect=EXPECT, layout=LAYOUT, faults=FAULTS, tables=TABLES,
    table_needs=TABLE_NEEDS, sweep=SWEEP, claims_pair=CLAIMS_PAIR, commit_claims=COMMIT_CLAIMS,
    sanitizer_claims=SANITIZER_CLAIMS, warning_claims=WARNING_CLAIMS, callers=CALLERS,
    identity_md5=IDENTITY_MD5, trained_rows=TRAINED_ROWS,
    # how the trained rows' models are made from facenet-pytorch's weights (said in the report)
    trained_conversion=("read without torch (harness/cases/pr24760/torchweights.py) and "
                        "written as ONNX (harness/cases/pr24760/mtcnn.py): ONet's face "
                        "probability; PNet over a 6-level pyramid with box regression and "
                        "non-maximum suppression in the graph"),
    # its pytest markers (tests/conftest.py registers them): its trees and its commits
    markers={
        "base": f"scenarios on the base tree (FFmpeg {RELEASE})",
        "before": "scenarios on the before tree (#24702 head)",
        "after": "scenarios on the after tree (#24760)",
        "commit1": "#24702 commit 1 (ASan: single-pointer arrays passed to sws_scale)",
        "commit2": "#24702 commit 2 (TSan: task completion synchronized with the result reader)",
        "commit3": "#24702 commit 3 (post-processing failures through async results)",
        "commit4": "#24702 commit 4 (derain and sr return the post-processing error)",
        "commit5": "#24702 commit 5 (AVERROR codes from analytics post-processing)",
        "commit6": "#24702 commit 6 (analytics tasks whose post-processing failed complete)",
        "commit7": "#24702 commit 7 (the ff_dnn_flush() error returned at EOF)",
        "commit8": "#24702 commit 8 (OpenVINO tasks whose output read fails)",
    })
