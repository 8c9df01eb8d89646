"""The backend families (issue 37): one-line mistakes about a backend's own status, made on
purpose on after + the follow-ups (where a failed inference surfaces on every backend:
0001-0007), each caught by the default diff through the backend family and missed
without it. Each mistake is a commit of a clone of the follow-ups' tree, diffed as two
refs (bring your own tree: the first ref is that tree again, its objects copied)."""

import json
import re
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


@pytest.mark.after
@pytest.mark.trees
@pytest.mark.onnx
def test_a_status_not_released_kills_the_mutant(fixed, preload):
    """The mutant that removes dnn_load_model_onnx()'s check of SessionGetOutputName():
    the NULL name's av_strdup() fails the load all the same (SURFACED in both trees), and
    the OrtStatus the failed call returned is never released: the ONNX Runtime family keeps
    the status it hands out as a block of FFmpeg's code, so the mutant leaves one block
    more behind (a leak), killed. Before statuses were kept it survived."""
    from harness import caseload
    from harness.compile.families import sweep_fault
    from harness.experiments import diff, mutate
    from harness.judge import mutants
    path = "libavfilter/dnn/dnn_backend_onnx.c"
    text = (fixed.src / path).read_text()
    (m,) = [m for m in mutants.mutants(text, path, ("check-removed",))
            if m.function == "dnn_load_model_onnx" and m.before.strip() == "status != NULL"
            and "SessionGetOutputName" in text[text.rindex("status =", 0, m.start):m.start]]
    groups = diff.plan_groups([("onnx", "dnn_processing")], [sweep_fault("onnxruntime")],
                              routes=("setup",))
    case = caseload.load("followups")
    f = mutate.one(m, text, fixed, case.layout, groups, preload, 2, case.expect, "one", 1,
                   False)
    assert f.fate == "killed", f
    (r,) = f.regressions
    assert "SessionGetOutputName" in r or "dnn_load_model_onnx" in r, r
    left = re.search(r"SURFACED -> SURFACED, leaks (\d+) -> (\d+) blocks", r)
    assert left and int(left[2]) == int(left[1]) + 1, r


@pytest.mark.after
@pytest.mark.trees
@pytest.mark.openvino
def test_an_openvino_object_not_freed_kills_the_mutant(fixed, preload):
    """The mutant that deletes init_model_ov()'s ov_preprocess_output_tensor_info_free() on
    its error path: the error still surfaces (SURFACED in both trees), and the tensor info
    OpenVINO made for FFmpeg's code is never freed: the OpenVINO family keeps the objects
    its calls make as blocks of their FFmpeg caller, so the mutant leaves one block more
    behind (a leak), killed. Before OpenVINO's objects were kept it survived."""
    from harness import caseload
    from harness.compile.families import sweep_fault
    from harness.experiments import diff, mutate
    from harness.judge import mutants
    path = "libavfilter/dnn/dnn_backend_openvino.c"
    text = (fixed.src / path).read_text()
    (m,) = [m for m in mutants.mutants(text, path, ("cleanup-deleted",))
            if m.function == "init_model_ov"
            and m.before == "ov_preprocess_output_tensor_info_free(output_tensor_info);"]
    groups = diff.plan_groups([("openvino", "dnn_processing")], [sweep_fault("openvino")],
                              routes=("setup",))
    case = caseload.load("followups")
    f = mutate.one(m, text, fixed, case.layout, groups, preload, 2, case.expect, "one", 1,
                   False)
    assert f.fate == "killed", f
    left = [re.search(r"SURFACED -> SURFACED, leaks (\d+) -> (\d+) blocks", r)
            for r in f.regressions]
    assert left and all(x and int(x[2]) == int(x[1]) + 1 for x in left), f.regressions


@pytest.mark.after
@pytest.mark.trees
@pytest.mark.onnx
def test_an_onnx_runtime_object_not_released_kills_the_mutant(fixed, preload):
    """The mutant that deletes infer_completion_callback()'s first
    ReleaseTensorTypeAndShapeInfo() (where GetDimensionsCount() failed): the error still
    surfaces, and the shape info ONNX Runtime made for FFmpeg's code is never released:
    the family keeps what a call it lets through makes as a block of its FFmpeg caller,
    so the mutant leaves one block more behind (a leak), killed."""
    from harness import caseload
    from harness.compile.families import sweep_fault
    from harness.experiments import diff, mutate
    from harness.judge import mutants
    path = "libavfilter/dnn/dnn_backend_onnx.c"
    text = (fixed.src / path).read_text()
    m = [m for m in mutants.mutants(text, path, ("cleanup-deleted",))
         if m.function == "infer_completion_callback"
         and m.before == "g_ort->ReleaseTensorTypeAndShapeInfo(tensor_info);"][0]
    count = text.index("GetDimensionsCount(", text.index("infer_completion_callback(void"))
    assert count < m.start < text.index("av_malloc(", count), m
    groups = diff.plan_groups([("onnx", "dnn_processing")], [sweep_fault("onnxruntime")])
    case = caseload.load("followups")
    f = mutate.one(m, text, fixed, case.layout, groups, preload, 2, case.expect, "one", 1,
                   False)
    assert f.fate == "killed", f
    left = [re.search(r"SURFACED -> SURFACED, leaks (\d+) -> (\d+) blocks", r)
            for r in f.regressions]
    assert left and all(x and int(x[2]) == int(x[1]) + 1 for x in left), f.regressions
