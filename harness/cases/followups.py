"""Case followups: this project's fixes on top of after, for the defects the sweeps found
in FFmpeg 9.0.2 that PR #24760 and #24702 leave alone (builds/patches/followups/, whose
README gives each patch's provenance, licence and measurements): 0001-0005, 0006-0013
for every site that hung or crashed in both trees (issue 39), 0014-0017 for what the
backend families found (issue 37), 0018-0022 for what the setup route found (issue 39).

What the case claims is a diff: `python -m harness diff --case followups` runs the sweep
of every group DIFF names (backend / filter / route / family) on after and on after + the
patches of `series` and must find exactly the class changes DIFF gives (each row is a line
of the follow-ups README's tables), and nothing regressed.
"""

from harness.case import Case
from harness.cases import pr24760
from harness import paths

LAYOUT = pr24760.LAYOUT   # on the PR's trees, and their release
SERIES = paths.PATCHES / "followups"

# family on a backend/filter pair and route -> {(class on after, class on after + followups):
# sites}, a site being one call failed with one value of its function's fault profile: every
# value where its stack runs through the patches (pthread_create's EAGAIN, EINVAL and EPERM;
# each helper's AVERROR(ENOMEM), AVERROR(EINVAL) and AVERROR(ENOSYS); posix_memalign()'s
# ENOMEM and EINVAL), the first elsewhere (diff --values changed, the default)
DIFF = {
    # 0001: "execute_model_tf() jumped to err with ret still 0 when
    # ff_dnn_start_inference_async() failed ... flush_frame() waited for it at EOF forever"
    "tf / dnn_processing / frames / pthread_create": {("HANG", "SURFACED"): 12},
    # 0002: "no backend looked at the result of ff_proc_from_frame_to_dnn() ... the frame
    # came out altered, with no error"
    "tf / dnn_processing / frames / wrap:ff_proc_from_frame_to_dnn": {("ALTERED", "SURFACED"): 12},
    "onnx / dnn_processing / frames / wrap:ff_proc_from_frame_to_dnn": {("ALTERED", "SURFACED"): 12},
    # 0002 and 0003, every allocation FFmpeg's own code makes in a 4-frame run: the 36 inside
    # ff_proc_from_frame_to_dnn() (0002), the input buffer, the lltask and its queue entry,
    # the callback's dims and the request's way back (0003), each of which "left the filter
    # waiting forever"; the lltask's own allocation at frames 2-4 hangs on after with the
    # injector's poison (the task's counts, never set, read back unequal), where without it
    # the run hung or not by what the freed block held (docs/sweeps-and-diffs.md, "Sweeps")
    "onnx / dnn_processing / frames / malloc": {("SURFACED", "SURFACED"): 72,
                                                ("ALTERED", "SURFACED"): 40,
                                                ("HANG", "SURFACED"): 38,
                                                ("CLEAN", "CLEAN"): 10},
    # ONNX Runtime starts no thread: no site in either tree ("ONNX Runtime and OpenVINO do
    # not use it.")
    "onnx / dnn_processing / frames / pthread_create": {},
    # 0005: "in async mode execute_model_th() returned ff_dnn_start_inference_async()'s
    # result as is ... the next frame waited for a request forever"
    "torch / dnn_processing / frames / pthread_create": {("HANG", "SURFACED"): 12},
    "torch / dnn_processing / frames / wrap:ff_proc_from_frame_to_dnn": {("ALTERED", "SURFACED"): 12},
    # 0014: "a failed TF_SessionRun() there logged its message and ended the thread, but
    # nothing completed the task ... flush_frame() polled it at EOF without end" (the
    # tensorflow family: TF_SessionRun() through its TF_Status, its allocations; every
    # TF_SessionRun() site runs through 0014, so it fails with each of its 6 TF_Codes;
    # since 2026-12-07 the input's shape read, TF_GraphGetTensorShape(), too: 4 sites more,
    # HANG on after and SURFACED with the follow-ups, as the others)
    "tf / dnn_processing / frames / tensorflow": {("HANG", "SURFACED"): 44},
    "tf / dnn_detect / frames / tensorflow": {("HANG", "SURFACED"): 56},
    "openvino / dnn_classify / frames / tensorflow": {("HANG", "SURFACED"): 56},
    # 0015: "A c10::Error from the model ... ended in std::terminate()" (the libtorch
    # family: the module's forward throws)
    "torch / dnn_processing / frames / libtorch": {("CRASH", "SURFACED"): 4},
    # 0002, 0003 and 0016 (the onnxruntime family: each OrtApi call of the backend fails
    # with a real OrtStatus): a failed Run() or tensor call "left the filter waiting
    # forever" (0002, 0003) or, for the output's shape, aborted or went unnoticed (0016:
    # "a failed GetDimensions() aborted the process on the first frame, and on the later
    # frames went unnoticed")
    # (on after, a failed GetDimensions() reads dimensions the array held before: the
    # frame out unchanged, altered or the process aborted, run by run: ANY)
    "onnx / dnn_processing / frames / onnxruntime": {("HANG", "SURFACED"): 68,
                                                     ("ANY", "SURFACED"): 8},
    # 0002, 0003 and 0017 (the openvino family: each ov_* call of the backend fails with
    # each ov_status_e of its profile): a failed input fill, callback or start "left the
    # filter waiting forever" (0002, 0003); "dnn_flush_ov() ran the inference of the lltasks
    # left in the queue synchronously ... never called the completion callback" after a
    # failed input port query (HANG), and init_model_ov() "freed the model" a failed
    # pre-processing build leaves and "logged a failed output port with output_names[i]"
    # (CRASH) (0017) (measured 2026-12-06 with 0001-0017: 856 site-values, 400 fixes)
    "openvino / dnn_processing / frames / openvino": {("HANG", "SURFACED"): 120,
                                                      ("SURFACED", "SURFACED"): 120},
    "openvino / dnn_detect / frames / openvino": {("SURFACED", "SURFACED"): 168,
                                                  ("HANG", "SURFACED"): 120,
                                                  ("CRASH", "SURFACED"): 16,
                                                  ("DROPPED", "SURFACED"): 4},
    "openvino / dnn_classify / frames / openvino": {("SURFACED", "SURFACED"): 168,
                                                    ("HANG", "SURFACED"): 120,
                                                    ("CRASH", "SURFACED"): 16,
                                                    ("DROPPED", "SURFACED"): 4},
    # the PR's own route is #24760's and stays fixed: the stand-in flush's one start
    "tf / dnn_processing / flush / pthread_create": {("SURFACED", "SURFACED"): 3},
    "torch / dnn_processing / flush / pthread_create": {("SURFACED", "SURFACED"): 3},
    "onnx / dnn_processing / flush / pthread_create": {("SURFACED", "SURFACED"): 3},
    # 0006-0013, every allocation of a 4-frame run on the other three backends. Besides
    # 0002's pre-processing sites (ALTERED or, with the constant test detectors, CLEAN ->
    # SURFACED; dnn_classify's own, its classifier's input never filled, ALTERED: the
    # frame's classification confidence is not the census's, as since issue 38 the sweep
    # compares what the frames carry) and 0001-0005's hangs, each of the 123 sites that hung or crashed with
    # 0001-0005 too, by cause: 0006 "a failed extract_lltask_from_task() ... returned with
    # the task already queued and never completed" (HANG -> SURFACED: TensorFlow 8 per
    # graph, LibTorch 8, OpenVINO 8 per filter and 4 classification lltasks); 0008 "skipped
    # ff_dnn_complete_lltask() when its outputs array could not be allocated" (TensorFlow 4
    # per graph, HANG -> SURFACED); 0009 "a request a callback could not push back was
    # freed ... waited ... forever" (TensorFlow 4 per graph and OpenVINO's last frame HANG ->
    # CLEAN, LibTorch 3 HANG -> SURFACED); 0010 "any later failure ... freed them again"
    # (init_model_ov()'s 16 allocations, CRASH -> SURFACED in dnn_detect and dnn_classify);
    # 0011 "freed with ov_infer_request_free() inside its own callback" (OpenVINO's first 3
    # frames, HANG -> CLEAN). dnn_classify's graph runs TensorFlow's detector first. Counted
    # per value: the posix_memalign() sites through the patches fail with ENOMEM and EINVAL
    # (measured 2026-12-06 with every follow-up, 0001-0016).
    "tf / dnn_processing / frames / malloc": {("HANG", "SURFACED"): 48,
                                             ("SURFACED", "SURFACED"): 48,
                                             ("ALTERED", "SURFACED"): 16,
                                             ("HANG", "CLEAN"): 8},
    "tf / dnn_detect / frames / malloc": {("HANG", "SURFACED"): 48,
                                         ("SURFACED", "SURFACED"): 40,
                                         ("CLEAN", "SURFACED"): 16,
                                         ("HANG", "CLEAN"): 8,
                                         ("CLEAN", "CLEAN"): 4},
    "torch / dnn_processing / frames / malloc": {("SURFACED", "SURFACED"): 72,
                                                ("ALTERED", "SURFACED"): 40,
                                                ("HANG", "SURFACED"): 30,
                                                ("CLEAN", "CLEAN"): 10},
    "openvino / dnn_processing / frames / malloc": {("SURFACED", "SURFACED"): 80,
                                                   ("ALTERED", "SURFACED"): 16,
                                                   ("HANG", "SURFACED"): 16,
                                                   ("HANG", "CLEAN"): 8,
                                                   ("CLEAN", "CLEAN"): 4},
    "openvino / dnn_detect / frames / malloc": {("SURFACED", "SURFACED"): 50,
                                               ("CRASH", "SURFACED"): 32,
                                               ("CLEAN", "SURFACED"): 16,
                                               ("HANG", "SURFACED"): 16,
                                               ("HANG", "CLEAN"): 8,
                                               ("CLEAN", "CLEAN"): 4},
    "openvino / dnn_classify / frames / malloc": {("SURFACED", "SURFACED"): 74,
                                                 ("HANG", "SURFACED"): 56,
                                                 ("CLEAN", "SURFACED"): 16,
                                                 ("ALTERED", "SURFACED"): 16,
                                                 ("CRASH", "SURFACED"): 32,
                                                 ("HANG", "CLEAN"): 16,
                                                 ("CLEAN", "CLEAN"): 8},
    # the setup route (each call failed while the graph is made: the filter's init and
    # config, the model's loading), measured 2026-12-06 with 0001-0021 (510 site-values,
    # 156 fixes, blind 0, 0 changed otherwise). 0018 "the error path frees what the stack
    # held there" (get_output_ov()/_tf()'s two av_frame_alloc() sites, CRASH -> SURFACED);
    # 0019 "the filter went on with no output name and aborted on a double free"
    # (TensorFlow's av_get_token(), CRASH -> SURFACED); 0020 "the model loaded with a NULL
    # queue ... waited for them for ever" (LibTorch's six queue allocations, DROPPED or HANG
    # -> SURFACED); 0021 "the filter took the input's size for the output's and went on"
    # (the first inference's callback failures, which 0003 and 0016 made end cleanly:
    # SURFACED without 0021, CLEAN with 0001-0020). The rest are earlier patches' fixes on
    # this route: init_model_ov() at configuration (0010, 0017: CRASH -> SURFACED), the
    # request's way back (0003, 0009, 0011: HANG -> SURFACED or CLEAN), the lltask (0006),
    # LibTorch's forward (0015).
    # (since 2026-12-07 a site runs through the change when its stack runs through a
    # function the patches change, no longer through any function of a file they change:
    # get_input_onnx()'s calls, in dnn_backend_onnx.c but changed by none, are failed with
    # their profile's first value only: 1 site-value fewer here, 7 in the onnxruntime row)
    # (since 2026-12-07 ONNX Runtime's graph gives no input= or output=, and the backend
    # reads both names from the model: its av_strdup()s and av_calloc() are 3 sites,
    # SURFACED in both, in place of separate_output_names()' 3 for output=, one of whose
    # site-values, a failed av_get_token(), was CLEAN in both: 25 sites as before)
    "onnx / dnn_processing / setup / malloc": {("SURFACED", "SURFACED"): 45,
                                               ("HANG", "SURFACED"): 2},
    # 0022: "a failed SetSessionGraphOptimizationLevel() left dnn_processing running as if
    # nothing had failed" (the family's load-time entries, measured with 0001-0022; the
    # model input's read, get_input_onnx()'s 5 calls, since 2026-12-07: 10 more sites
    # SURFACED in both); on after, a failed GetDimensions() in get_output_onnx()'s first
    # inference leaves the dimensions as av_malloc() gave them: SURFACED most runs, once
    # ALTERED (a fresh-clone CI run, loaded): ANY, as on the frames route. Since 2026-12-07
    # the graph sets threads_per_operation=1 and no names: SetIntraOpNumThreads(), which
    # 0022 checks as it does the optimization level (CLEAN -> SURFACED, each value), and
    # the names' reads from the model (SessionGetInputName(), SessionGetOutputCount(),
    # SessionGetOutputName(): SURFACED in both)
    "onnx / dnn_processing / setup / onnxruntime": {("SURFACED", "SURFACED"): 45,
                                                    ("ANY", "SURFACED"): 2,
                                                    ("CLEAN", "SURFACED"): 4},
    "openvino / dnn_processing / setup / malloc": {("CRASH", "SURFACED"): 38,
                                                   ("SURFACED", "SURFACED"): 8,
                                                   ("HANG", "CLEAN"): 2},
    # (since 2026-12-07 the graph sets input_resizable=1: get_output_ov()'s reshape, four
    # ov_* calls, 16 site-values more; since 2026-12-08 the family fails the model's load,
    # ov_core_create() and ov_core_read_model(), 8 more on each graph: SURFACED in both)
    "openvino / dnn_processing / setup / openvino": {("SURFACED", "SURFACED"): 126,
                                                     ("CRASH", "SURFACED"): 48},
    "openvino / dnn_detect / setup / malloc": {("SURFACED", "SURFACED"): 4},
    "openvino / dnn_detect / setup / openvino": {("SURFACED", "SURFACED"): 20},
    "openvino / dnn_classify / setup / malloc": {("SURFACED", "SURFACED"): 36,
                                                 ("HANG", "SURFACED"): 16,
                                                 ("CLEAN", "CLEAN"): 4},
    "openvino / dnn_classify / setup / tensorflow": {("SURFACED", "SURFACED"): 6,
                                                     ("CLEAN", "CLEAN"): 1},
    # (since 2026-12-07 the graph sets sess_config: its av_mallocz(), 2 site-values more)
    "tf / dnn_processing / setup / malloc": {("SURFACED", "SURFACED"): 40,
                                             ("HANG", "SURFACED"): 12,
                                             ("CRASH", "SURFACED"): 5,
                                             ("HANG", "CLEAN"): 2,
                                             ("CLEAN", "CLEAN"): 1},
    # the model's loading (TF_GraphImportGraphDef, TF_NewSession) and the input's shape
    # read fail since 2026-12-07: SURFACED in both trees; and since its graph sets
    # sess_config and its model has an "init" operation, TF_SetConfig() (one value) and the
    # init's TF_SessionRun() (six): 7 site-values more, SURFACED in both
    "tf / dnn_processing / setup / tensorflow": {("SURFACED", "SURFACED"): 24,
                                                 ("CLEAN", "CLEAN"): 1},
    "tf / dnn_detect / setup / malloc": {("SURFACED", "SURFACED"): 28,
                                         ("HANG", "SURFACED"): 16,
                                         ("CLEAN", "CLEAN"): 4},
    "tf / dnn_detect / setup / tensorflow": {("SURFACED", "SURFACED"): 6,
                                             ("CLEAN", "CLEAN"): 1},
    # (since 2026-12-07 the family throws from torch::jit::load() too: the model's load,
    # caught by dnn_load_model_th(), SURFACED in both)
    "torch / dnn_processing / setup / libtorch": {("CRASH", "SURFACED"): 1,
                                                  ("SURFACED", "SURFACED"): 1},
    "torch / dnn_processing / setup / malloc": {("SURFACED", "SURFACED"): 26,
                                                ("HANG", "SURFACED"): 8,
                                                ("DROPPED", "SURFACED"): 6},
}

# the runs are the PR's (its rows, its named hangs) on its trees; the patches go on after
CASE = Case("followups", pr24760.PAIR, expect=pr24760.EXPECT, layout=LAYOUT, on="after",
            series=SERIES, diff=DIFF)
