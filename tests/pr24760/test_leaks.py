"""What FFmpeg's code leaves behind (issue 38): a free deleted on an error path is a
regression the gate names, and a run with no call failed (a census) leaves only what
FFmpeg 9.0.2 itself leaks, on every backend, filter and route built (harness/run/leaks.py,
the malloc injector's tracking: injectors/fi_leaks.h). Real FFmpeg throughout."""

import json
import subprocess
import sys
from collections import Counter

import pytest

from harness.cases import pr24760
from harness.errors import ExitStatus
from harness.paths import PROJECT
from harness.run import chains as graphs

# activate() in vf_dnn_processing.c returns AVERROR(ENOMEM) when ff_get_video_buffer()
# fails, as before, but no longer frees the frame it took from its input
FREE_DELETED = PROJECT / "tests" / "data" / "leaks" / "free-deleted.patch"
FAMILY = ("--fault", "libav", "--backend-name", "onnx", "--filter", "dnn_processing",
          "--route", "frames", "--values", "one", "--confirm", "1")
# what the diff must say, per site: its place -> (from class, to class, change, blocks the
# from-tree's runs left, the to-tree's). The libav family fails ff_get_video_buffer() once
# per frame (4 frames): each such run leaves the input frame behind in the to-tree alone;
# every other site leaves nothing in either tree, and its classes do not change.
GET_BUFFER = "activate (vf_dnn_processing.c:310)"  # its call of ff_get_video_buffer()
DELETED = {
    GET_BUFFER: ("SURFACED", "SURFACED", "regression", 0, 1),
}
# the leaked input frame: the AVFrame the buffer source made for it (its data was
# allocated before the fault was armed, and is not counted)
LEAKED_AT = "av_frame_alloc (frame.c:54) < av_buffersrc_add_frame_flags (buffersrc.c:"


def harness(command, *args):
    return subprocess.run([sys.executable, "-m", "harness", command, *args], cwd=PROJECT,
                          capture_output=True, text=True)


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_a_deleted_free_is_a_regression(tree, tmp_path):
    """after -> after + FREE_DELETED: exit 1, one regression per frame at the failed
    ff_get_video_buffer(), each named with the block left behind and where it was
    allocated; no other site changes."""
    tree("after")
    out = tmp_path / "d.json"
    r = harness("diff", "--from", "after", "--patch", str(FREE_DELETED), *FAMILY,
                "--json", str(out))
    assert r.returncode == ExitStatus.FAIL, r.stdout + r.stderr[-2000:]
    d = json.loads(out.read_text())
    got = Counter()
    for s in d["sites"]:
        place = s["from"]["where"].split(" < ")[0]
        want = DELETED.get(place, (s["from"]["class"], s["from"]["class"], "same", 0, 0))
        a, b = s["leaked"]["from"], s["leaked"]["to"]
        assert (s["from"]["class"], s["to"]["class"], s["change"], max(a), max(b)) == want, s
        assert s["leak"] is (want[2] == "regression")
        got[place] += s["leak"]
    assert got[GET_BUFFER] == 4, "once per frame"
    assert d["verdict"]["regression"] == 4 and d["exit_status"] == ExitStatus.FAIL
    for s in d["sites"]:
        if s["leak"]:
            (p,) = s["to"]["leaks"]["places"]
            assert p["where"].startswith(LEAKED_AT) and p["blocks"] == 1, p
    assert "### Regressions (4)" in r.stdout and "| SURFACED, leaks 0 | SURFACED, leaks 1 |" \
        in r.stdout
    assert r.stdout.count("left 1 block (") == 4 and r.stdout.count(LEAKED_AT) == 4


# LibTorch's completion callback no longer frees the request's tensors, which
# fill_model_input_th() makes with `new torch::Tensor()` for each frame: the next frame's
# replace them. FFmpeg's C++ allocates them through operator new, which the malloc
# injector interposes (injectors/fi_malloc_hooks.h); its own av_malloc() is not all a run
# then leaves behind.
TENSORS_KEPT = PROJECT / "tests" / "data" / "leaks" / "tensors-kept.patch"
TORCH = "libavfilter/dnn/dnn_backend_torch.cpp"


@pytest.mark.after
@pytest.mark.torch
@pytest.mark.dnn_processing
def test_what_cxx_new_made_is_left_behind(tree, tmp_path):
    """after -> after + TENSORS_KEPT, the wrap family: exit 1, every site judged a
    regression that leaves blocks behind in the to-tree alone, among them the input and
    output tensors of each lost frame, made by fill_model_input_th()'s operator new."""
    after = tree("after")
    if "torch" not in after.backends:
        pytest.skip("trees built without torch (run: make test BACKENDS=all)")
    lines = (after.src / TORCH).read_text().splitlines()
    out = tmp_path / "d.json"
    r = harness("diff", "--from", "after", "--patch", str(TENSORS_KEPT), "--fault", "wrap",
                "--backend-name", "torch", "--filter", "dnn_processing", "--route", "frames",
                "--values", "one", "--confirm", "1", "--json", str(out))
    assert r.returncode == ExitStatus.FAIL, r.stdout + r.stderr[-2000:]
    judged = [s for s in json.loads(out.read_text())["sites"] if s["judged"]]
    assert judged and all(s["change"] == "regression" for s in judged)
    for s in judged:
        assert s["from"]["leaks"]["blocks"] < s["to"]["leaks"]["blocks"], s
        made = Counter()
        for p in s["to"]["leaks"]["places"]:
            where = p["where"].split(" < ")[0]
            if where.startswith("fill_model_input_th (dnn_backend_torch.cpp:"):
                line = lines[int(where.rsplit(":", 1)[1].rstrip(")")) - 1]
                made[line.split("=", 1)[-1].strip()] += p["blocks"]
        tensors = made["new torch::Tensor();"]
        assert tensors >= 2 and tensors % 2 == 0, (made, s["to"]["leaks"])


# What a census (no call failed) leaves behind of FFmpeg's blocks once its graph is freed,
# per (backend, filter) and route: {the innermost frame of where they were allocated:
# blocks, or ANY}. FFmpeg 9.0.2 leaks three things on its own, in every tree of the series:
# - the DnnContext's string options (model, input, output, the backend's own such as
#   TensorFlow's sess_config: one block each the graph sets), set through the filter's
#   child class and never freed (ff_dnn_uninit() frees the model and the output names
#   only; avfilter_free()'s av_opt_free() reaches the filter's own options, not its
#   child's), and so the input name ONNX Runtime's backend reads from the model when the
#   graph gives no input= (dnn_load_model_onnx()'s av_strdup() into the same option): made
#   while the graph is, counted on the setup route only;
# - TensorFlow's lltasks: fill_model_input_tf() keeps each in its request, which frees only
#   the last one it had (destroy_request_item()), so every inference but the last of each
#   request leaks one (how many: av_cpu_count() / 2 + 1 requests, ANY here); OpenVINO's
#   dnn_classify runs after TensorFlow's dnn_detect, which has them too;
# - with input_resizable=1 (the harness's OpenVINO dnn_processing), get_output_ov()'s first
#   ov_partial_shape_create(): ov_shape_to_partial_shape() writes the same partial shape
#   before it is freed, so the first one's dims (OpenVINO's, made for FFmpeg's code and
#   kept as its block: injectors/fi_openvino_hooks.h) are never freed; on the setup route
#   (on the others the graph is configured before the arm).
# Nothing else: not the harness's own copies (the recorder's filter, the stand-in's module),
# not a backend's runtime, not Python's.
ANY = "ANY"
STRINGS = "set_string (opt.c)"
INPUT_NAME = "dnn_load_model_onnx (dnn_backend_onnx.c)"
LLTASK = "extract_lltask_from_task (dnn_backend_tf.c)"
RESIZE = "get_output_ov (dnn_backend_openvino.c)"
OPTIONS = {("onnx", "dnn_processing"): {STRINGS: 1, INPUT_NAME: 1},
           ("openvino", "dnn_processing"): {STRINGS: 3, RESIZE: 1},
           ("openvino", "dnn_detect"): {STRINGS: 2}, ("openvino", "dnn_detect.yolo"): {STRINGS: 2},
           ("openvino", "dnn_classify"): {STRINGS: 5},
           ("tf", "dnn_processing"): {STRINGS: 4}, ("tf", "dnn_detect"): {STRINGS: 3},
           ("torch", "dnn_processing"): {STRINGS: 1}}
TF_GRAPHS = {("tf", "dnn_processing"), ("tf", "dnn_detect"), ("openvino", "dnn_classify")}
CENSUS = {(pair, route): {**(made if route == "setup" else {}),
                          **({LLTASK: ANY} if pair in TF_GRAPHS and route != "flush" else {})}
          for pair, made in OPTIONS.items() for route in ("frames", "flush", "setup")}


@pytest.mark.after
def test_what_a_census_leaves(tree, tmp_path):
    """Every backend/filter pair built, on every route: the census leaves what CENSUS says
    and nothing else (what the case's release, 9.0.2, leaks itself)."""
    assert pr24760.RELEASE == "9.0.2", "CENSUS is 9.0.2's: measure the case's release again"
    after = tree("after")
    built = sorted((b, f) for (b, f) in graphs.GRAPHS if graphs.needs(b, f) <= after.backends)
    out = tmp_path / "s.json"
    r = harness("sweep", "--build", "after", "--fault", "malloc", "--limit", "1",
                "--backend-name", ",".join(sorted({b for b, _ in built})),
                "--filter", ",".join(sorted({f for _, f in built})),
                "--route", "frames,flush,setup", "--results", "", "--json", str(out))
    assert r.returncode == ExitStatus.OK, r.stdout + r.stderr[-2000:]
    seen = set()
    for g in json.loads(out.read_text())["sweeps"].values():
        key = ((g["backend"], g["filter"]), g["route"])
        census = g["builds"]["after"]["census"]
        assert census["outcome"] == "MEASURED" and census["leaks"]["untracked"] == 0, census
        left = Counter()
        for p in census["leaks"]["places"]:
            left[p["where"].split(" < ")[0].rsplit(":", 1)[0] + ")"] += p["blocks"]
        want = CENSUS[key]
        assert set(left) <= set(want), (key, census["leaks"])
        for where, n in want.items():
            assert n == ANY or left[where] == n, (key, where, census["leaks"])
        assert census["leaks"]["blocks"] == sum(left.values())
        seen.add(key)
    assert seen == {(p, r) for p in built for r in ("frames", "flush", "setup")}
