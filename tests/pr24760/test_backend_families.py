"""The backend families (issue 37): one-line mistakes about a backend's own status, made on
purpose on after + the follow-ups (where a failed inference surfaces on every backend:
0001-0007), each caught by the default diff through the backend family and missed
without it. Each mistake is a commit of a clone of the follow-ups' tree, diffed as two
refs (bring your own tree: the first ref is that tree again, its objects copied)."""

import json
import subprocess
import sys

import pytest

from harness.cases import followups
from harness.errors import ExitStatus
from harness.paths import PROJECT
from tests import mistakes

# name -> (backend, file, the lines after + the follow-ups has, the lines the mistake
# writes, the family, the function whose sites the change runs through, the classes its
# regressions may show there in their first runs: {(from class, to class)}).
MISTAKES = {
    # TensorFlow: TF_SessionRun()'s status logged and ignored; the callback reads output
    # tensors the failed run never made
    "tf-sessionrun-status-ignored": (
        "tf", "libavfilter/dnn/dnn_backend_tf.c",
        '        av_log(tf_model->ctx, AV_LOG_ERROR, "%s", TF_Message(request->status));\n'
        "        return DNN_GENERIC_ERROR;\n",
        '        av_log(tf_model->ctx, AV_LOG_ERROR, "%s", TF_Message(request->status));\n',
        "tensorflow", "tf_start_inference", {("SURFACED", "CRASH")}),
    # OpenVINO: ov_infer_request_start_async()'s status not looked at: a request that
    # never started, whose callback never runs
    "openvino-start-async-status-ignored": (
        "openvino", "libavfilter/dnn/dnn_backend_openvino.c",
        "        status = ov_infer_request_start_async(request->infer_request);\n"
        "        if (status != OK) {\n"
        '            av_log(ctx, AV_LOG_ERROR, "Failed to start async inference\\n");\n'
        "            ret = ov2_map_error(status, NULL);\n"
        "            goto err;\n"
        "        }\n",
        "        ov_infer_request_start_async(request->infer_request);\n",
        "openvino", "execute_model_ov", {("SURFACED", "HANG")}),
    # ONNX Runtime: the error of reading Run()'s output forgotten on the way to the error
    # path (ret not set before goto err): the task completes as a success, its frame
    # unwritten (ALTERED), or written with what the reused buffer held (CLEAN in a run,
    # ALTERED in a rerun: a regression all the same)
    "onnxruntime-output-status-lost": (
        "onnx", "libavfilter/dnn/dnn_backend_onnx.c",
        '        av_log(ctx, AV_LOG_ERROR, "Failed to get tensor data\\n");\n'
        "        g_ort->ReleaseStatus(status);\n"
        "        av_free(dims);\n"
        "        g_ort->ReleaseTensorTypeAndShapeInfo(tensor_info);\n"
        "        ret = DNN_GENERIC_ERROR;\n",
        '        av_log(ctx, AV_LOG_ERROR, "Failed to get tensor data\\n");\n'
        "        g_ort->ReleaseStatus(status);\n"
        "        av_free(dims);\n"
        "        g_ort->ReleaseTensorTypeAndShapeInfo(tensor_info);\n",
        "onnxruntime", "infer_completion_callback",
        {("SURFACED", "ALTERED"), ("SURFACED", "CLEAN")}),
    # LibTorch: the model's c10::Error caught and swallowed
    "libtorch-forward-error-swallowed": (
        "torch", "libavfilter/dnn/dnn_backend_torch.cpp",
        '        av_log(ctx, AV_LOG_ERROR, "Failed to run the model: %s\\n", e.what());\n'
        "        return DNN_GENERIC_ERROR;\n",
        '        av_log(ctx, AV_LOG_ERROR, "Failed to run the model: %s\\n", e.what());\n'
        "        return 0;\n",
        "libtorch", "th_start_inference", None),  # None: any regression
}
# every family but the backends' own: what the gate failed before issue 37
OTHERS = "pthread_create,malloc,wrap"


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", "diff", *args], cwd=PROJECT,
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def fixed(tree):
    """after + the follow-ups, built as the follow-ups case builds it."""
    from harness.obtain.patched import PatchedPlan
    from tests.conftest import BACKENDS
    tree("after")
    series = [followups.SERIES / n for n in (followups.SERIES / "series").read_text().split()]
    plan = PatchedPlan(BACKENDS, followups.LAYOUT, on="after", patches=series)
    return plan.get(plan.patched)


def clone_with(fixed, tmp_path, name):
    backend, path, old, new, *_ = MISTAKES[name]
    if backend not in fixed.backends:
        pytest.skip(f"trees built without {backend} (run: make test BACKENDS=all)")
    return mistakes.commit(fixed, tmp_path, path, old, new, f"mistake: {name}")


@pytest.mark.after
@pytest.mark.trees
@pytest.mark.parametrize("name", MISTAKES)
def test_a_backend_status_mistake_is_caught(fixed, tmp_path, name):
    from tests.conftest import BACKENDS
    backend, _, _, _, family, function, want = MISTAKES[name]
    repo = clone_with(fixed, tmp_path, name)
    common = ["--git-dir", str(repo), "--from-ref", "HEAD~1", "--to-ref", "HEAD",
              "--backend", BACKENDS, "--backend-name", backend, "--filter", "dnn_processing",
              "--route", "frames", "--confirm", "1"]
    out = tmp_path / "d.json"
    r = harness(*common, "--fault", family, "--json", str(out))
    assert r.returncode == ExitStatus.FAIL, r.stdout + r.stderr[-2000:]
    d = json.loads(out.read_text())
    bad = [s for s in d["sites"] if s["change"] == "regression"]
    assert bad and all(s["family"] == family for s in bad)
    assert all(function in (s["to"] or s["from"])["where"] for s in bad), bad
    if want is not None:
        assert {(s["from"]["class"], s["to"]["class"]) for s in bad} <= want
    assert f"### Regressions ({len(bad)})" in r.stdout
    # the backend family taken out: the other families do not see the mistake (their sites
    # through the change, --focus: the others cannot show it)
    r = harness(*common, "--fault", OTHERS, "--values", "one", "--focus")
    assert r.returncode != ExitStatus.FAIL, r.stdout[-3000:] + r.stderr[-2000:]


# What a backend's call makes for FFmpeg's code to release (a failed call's OrtStatus, an
# OpenVINO object, an ONNX Runtime object) is kept as FFmpeg's block
# (injectors/fi_keep.h): a mutant that leaves one behind leaks, and is killed; before
# they were kept each survived (the first two in `mutate --all --sample 40`, 2026-12-07).
# (id, backend, file, function, operator, what the mutant changes, family, routes)
ONNX, OPENVINO = "libavfilter/dnn/dnn_backend_onnx.c", "libavfilter/dnn/dnn_backend_openvino.c"
LEFT_BEHIND = [
    # the check of SessionGetOutputName() removed: the NULL name's av_strdup() fails the
    # load all the same, and the status is never released
    ("status", "onnx", ONNX, "dnn_load_model_onnx", "check-removed",
     lambda m, text: m.before.strip() == "status != NULL" and "SessionGetOutputName"
     in text[text.rindex("status =", 0, m.start):m.start], "onnxruntime", ("setup",)),
    # ov_preprocess_output_tensor_info_free() deleted from init_model_ov()'s error path
    ("openvino-object", "openvino", OPENVINO, "init_model_ov", "cleanup-deleted",
     lambda m, text: m.before == "ov_preprocess_output_tensor_info_free(output_tensor_info);",
     "openvino", ("setup",)),
    # the first ReleaseTensorTypeAndShapeInfo() deleted (where GetDimensionsCount() failed)
    ("onnx-object", "onnx", ONNX, "infer_completion_callback", "cleanup-deleted",
     lambda m, text: m.before == "g_ort->ReleaseTensorTypeAndShapeInfo(tensor_info);",
     "onnxruntime", ("sweep",)),
]


@pytest.mark.after
@pytest.mark.trees
@pytest.mark.parametrize("backend, path, function, operator, which, family, routes", [
    pytest.param(*row[1:], marks=getattr(pytest.mark, row[1]), id=row[0])
    for row in LEFT_BEHIND])
def test_what_a_mutant_leaves_behind_kills_it(fixed, preload, backend, path, function,
                                              operator, which, family, routes):
    """The first mutant of the function the row names: the error still surfaces in both
    trees, and what the backend made for FFmpeg's code and the mutant never releases is one
    block more left behind: a leak, killed."""
    from harness.judge import mutants
    text = (fixed.src / path).read_text()
    m = [m for m in mutants.mutants(text, path, (operator,))
         if m.function == function and which(m, text)][0]
    mistakes.killed_by_a_leak(m, fixed, "followups", (backend, "dnn_processing"), family,
                              preload, routes)
