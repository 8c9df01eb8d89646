"""The gate knows what it saw (issue 38): blind spots made on purpose, as patches on after.
A removed NULL check that turns a hang into a crash, a new allocation left unchecked,
a change to an error branch no fault reaches, and an error logged whose return lost its
AVERROR(): each was a PASS of the gate (the first and the last "changed otherwise", the
second "only in to", the third judged through the changed function), each is now what
it is: three regressions (exit 1) and a BLIND change (exit 3), whose changed lines are
named as not run under any fault."""

import json
import subprocess
import sys

import pytest

from harness.cases import pr24760
from harness.errors import ExitStatus
from harness.paths import PROJECT
from tests import mistakes

ONNX_CALLBACK_DIMS = (
    "    dims = av_malloc(num_dims * sizeof(int64_t));\n"
    "    if (!dims) {\n"
    '        av_log(ctx, AV_LOG_ERROR, "Failed to allocate memory for dimensions\\n");\n'
    "        g_ort->ReleaseTensorTypeAndShapeInfo(tensor_info);\n"
    "        goto err;\n"
    "    }\n")
# name -> (file, lines after has, lines the change writes, diff options, exit status, what
# the JSON must show: a function of the report's sites)
CHANGES = {
    # the NULL check after the callback's allocation removed: its failure, which hung on
    # after (the task left pending), now dereferences NULL: worse is worse, HANG -> CRASH
    "null-check-removed": (
        "libavfilter/dnn/dnn_backend_onnx.c", ONNX_CALLBACK_DIMS,
        "    dims = av_malloc(num_dims * sizeof(int64_t));\n",
        ["--fault", "malloc", "--values", "one"], ExitStatus.FAIL,
        lambda d: {("HANG", "CRASH")} <= {(s["from"]["class"], s["to"]["class"])
                                          for s in d["sites"] if s["change"] == "regression"}),
    # a new allocation whose result is used unchecked: a call only the to-tree makes,
    # judged against the classes that do no harm (it crashes: a regression)
    "new-unchecked-allocation": (
        "libavfilter/dnn/dnn_backend_onnx.c", ONNX_CALLBACK_DIMS,
        ONNX_CALLBACK_DIMS + "    {\n        int64_t *copy = av_malloc(4 * sizeof(*copy));\n"
                             "        copy[0] = num_dims;\n        av_free(copy);\n    }\n",
        ["--fault", "malloc", "--values", "one"], ExitStatus.FAIL,
        lambda d: any(s["change"] == "regression" and s["from"] is None
                      and s["to"]["class"] == "CRASH" for s in d["sites"])),
    # the message of an error branch no fault reaches (a null async module): every site
    # through the changed function is judged and the same, yet the changed line never ran
    "unreached-error-branch": (
        "libavfilter/dnn/dnn_backend_common.c",
        '        av_log(ctx, AV_LOG_ERROR, "async_module is null when starting async '
        'inference.\\n");\n',
        '        av_log(ctx, AV_LOG_ERROR, "No async module to start the inference on.\\n");\n',
        ["--fault", "pthread_create", "--route", "flush"], ExitStatus.BLIND,
        lambda d: d["coverage"]["changed"] == 1 and d["coverage"]["executed"] == 0
        and d["counts"]["touched"]["judged"] > 0),
    # AVERROR() dropped where get_input_onnx() refuses the input's type (a failed
    # GetTensorElementType() leaves it unknown): config_input() returns the positive
    # ENOSYS, which only a negative value makes an error, and the graph runs on after
    # logging "could not get input from the model": SURFACED -> CLEAN with the error
    # logged and not returned, #24760's own kind, a regression (not a recovery)
    "error-said-not-returned": (
        "libavfilter/dnn/dnn_backend_onnx.c",
        '        av_log(ctx, AV_LOG_ERROR, "Unsupported input tensor data type, only float is '
        'supported\\n");\n        av_free(dims);\n        g_ort->ReleaseTypeInfo(type_info);\n'
        "        return AVERROR(ENOSYS);\n",
        '        av_log(ctx, AV_LOG_ERROR, "Unsupported input tensor data type, only float is '
        'supported\\n");\n        av_free(dims);\n        g_ort->ReleaseTypeInfo(type_info);\n'
        "        return ENOSYS;\n",
        ["--fault", "onnxruntime", "--route", "setup", "--values", "one"], ExitStatus.FAIL,
        lambda d: any(s["change"] == "regression" and s["dropped_error"]
                      and (s["from"]["class"], s["to"]["class"]) == ("SURFACED", "CLEAN")
                      for s in d["sites"])),
}


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", "diff", *args], cwd=PROJECT,
                          capture_output=True, text=True)


def change(after, tmp_path, name) -> str:
    """The change as a git am-able patch on after's source."""
    path, old, new, *_ = CHANGES[name]
    return mistakes.patch(after, tmp_path, path, old, new, f"{pr24760.__name__}: {name}")


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.parametrize("name", CHANGES)
def test_the_gate_sees_what_it_saw(tree, tmp_path, name):
    after = tree("after")
    *_, options, status, shows = CHANGES[name]
    out = tmp_path / "d.json"
    r = harness("--from", "after", "--patch", change(after, tmp_path, name),
                "--backend-name", "onnx", "--filter", "dnn_processing", "--confirm", "1",
                *options, "--json", str(out))
    assert r.returncode == status, r.stdout[-3000:] + r.stderr[-2000:]
    d = json.loads(out.read_text())
    assert shows(d), json.dumps([s for s in d["sites"] if s["change"] != "same"])[:3000]
    c = d["coverage"]  # the change's tree counted the lines it ran
    assert c is not None and c["changed"] >= 1
    assert f"changed lines executed under a fault: {c['executed']} of {c['changed']}" \
        in r.stdout
    if status == ExitStatus.BLIND:
        assert "none of the 1 changed lines of code ran under any fault" in r.stdout
        assert "libavfilter/dnn/dnn_backend_common.c:" in r.stdout  # named, not run
