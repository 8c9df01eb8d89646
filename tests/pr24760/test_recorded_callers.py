"""The PR's "Callers" check (harness/judge/callers.py diffs, pairs) on the census of every
backend and filter, before and after, recorded from real runs (tests/data/verdicts/census.json,
its record.py): the recorded censuses hold the case's paragraph (harness/cases/pr24760/ CALLERS),
and each wrong paragraph or wrong census derived from them fails, saying where: TensorFlow's
and LibTorch's callers swapped, ONNX Runtime said to start threads, another function said
to create them, a census that could not run, ran without its injector or did not go through.
The same check on live runs: tests/pr24760/test_callers.py."""

import pytest

from harness.cases import pr24760 as case
from harness.judge import callers
from harness.run.outcome import Outcome
from tests import recorded

pytestmark = pytest.mark.unit

START = "ff_dnn_start_inference_async (dnn_backend_common.c:147)"
TF_STACK = f"{START} < execute_model_tf (dnn_backend_tf.c:782) < dnn_execute_model_tf (dnn_backend_tf.c:847)"
TH_STACK = (f"{START} < execute_model_th (dnn_backend_torch.cpp:347) < "
            "dnn_execute_model_th (dnn_backend_torch.cpp:551)")


def _census(build, backend, filt="dnn_processing"):
    return next(c for c in recorded.censuses() if (c.build, c.backend, c.filter)
                == (build, backend, filt))


def _said(**reached):
    return {**case.CALLERS, "reached_from": {**case.CALLERS["reached_from"], **reached}}


def test_every_recorded_census_holds_the_paragraph():
    cs = recorded.censuses()
    assert {(c.backend, c.filter) for c in cs} == set(callers.pairs({"onnx", "openvino", "tf",
                                                                     "torch"}))
    assert {f"{c.build}-{c.backend}-{c.filter}": callers.diffs(c, case.CALLERS) for c in cs} \
        == {f"{c.build}-{c.backend}-{c.filter}": [] for c in cs}
    # "only the TensorFlow and Torch backends call that function": the calls seen
    assert {(c.backend, c.filter): c.calls for c in cs if c.build == "after"} == {
        ("onnx", "dnn_processing"): 0, ("openvino", "dnn_processing"): 0,
        ("tf", "dnn_processing"): 4, ("torch", "dnn_processing"): 4,
        ("tf", "dnn_detect"): 4, ("openvino", "dnn_detect"): 0,
        ("openvino", "dnn_detect.yolo"): 0,
        ("openvino", "dnn_classify"): 4}   # the classify graph detects on TensorFlow


def test_swapped_callers_fail_every_census_with_calls():
    """TensorFlow's and LibTorch's callers swapped: each call of each census of theirs (and
    of the classify graph, whose detector runs on TensorFlow) is named as wrong."""
    reached = case.CALLERS["reached_from"]
    swapped = _said(tf=reached["torch"], torch=reached["tf"])
    for c in recorded.censuses():
        got = callers.diffs(c, swapped)
        if c.backend == "torch":
            assert got == [f"call {i + 1}: {TH_STACK}, expected {START.split()[0]} < "
                           "execute_model_tf" for i in range(4)]
        elif c.calls:   # TensorFlow's graphs, and the classify graph's detector
            assert got == [f"call {i + 1}: {TF_STACK}, expected {START.split()[0]} < "
                           "execute_model_th" for i in range(4)]
        else:
            assert got == []


# A wrong paragraph against a recorded census: (build, backend, filter, paragraph) -> lines
PARAGRAPHS = {
    "onnx-starts-threads": (
        ("after", "onnx"), _said(onnx=("execute_model_onnx",)),
        ["no pthread_create() call, expected some from execute_model_onnx"]),
    "openvino-starts-threads": (
        ("before", "openvino", "dnn_detect"), _said(openvino=("execute_model_ov", "a_ov")),
        ["no pthread_create() call, expected some from a_ov, execute_model_ov"]),
    "tf-starts-none": (
        ("after", "tf"), _said(tf=()),
        [f"4 pthread_create() calls, expected none: ['{TF_STACK}']"]
        + [f"call {i}: {TF_STACK}, expected ff_dnn_start_inference_async < (no caller)"
           for i in range(1, 5)]),
    "another-creator": (
        ("before", "torch"), {**case.CALLERS, "creates": "ff_dnn_execute_model"},
        [f"call {i}: {TH_STACK}, expected ff_dnn_execute_model < execute_model_th"
         for i in range(1, 5)]),
    "either-caller": (   # a paragraph naming both of a backend's callers holds
        ("before", "torch"), _said(torch=("execute_model_th", "dnn_flush_th")), []),
    "two-callers-said": (
        ("after", "torch"), _said(torch=("dnn_flush_th", "th_start_inference")),
        [f"call {i}: {TH_STACK}, expected ff_dnn_start_inference_async < dnn_flush_th or "
         "th_start_inference" for i in range(1, 5)]),
    "classify-without-tf": (
        ("after", "openvino", "dnn_classify"), _said(tf=()),
        [f"4 pthread_create() calls, expected none: ['{TF_STACK}']"]
        + [f"call {i}: {TF_STACK}, expected ff_dnn_start_inference_async < (no caller)"
           for i in range(1, 5)]),
}


@pytest.mark.parametrize("how", list(PARAGRAPHS))
def test_wrong_paragraphs(how):
    key, said, says = PARAGRAPHS[how]
    assert callers.diffs(_census(*key), said) == says


def _set(**kw):
    def change(c):
        for k, v in kw.items():
            setattr(c, k, v)
    return change


def _result(**kw):
    def change(c):
        for k, v in kw.items():
            setattr(c.result, k, v)
    return change


# A wrong census against the case's paragraph: (build, backend, filter, change) -> lines
CENSUSES = {
    "could-not-run": (("after", "tf"), _result(outcome=Outcome.ERROR, reason="parse: boom"),
                      ["the census run ended ERROR: parse: boom"]),
    "hung": (("before", "onnx"), _result(outcome=Outcome.HANG, reason="killed"),
             ["the census run ended HANG: killed"]),
    "failed": (("before", "onnx"), _result(outcome=Outcome.FAIL, reason=""),
               ["the census run ended FAIL: "]),
    "judged-pass": (("before", "torch"), _result(outcome=Outcome.PASS), []),
    "no-injector": (("after", "torch"), lambda c: setattr(c.result.record, "injector", False),
                    ["the census run had no injector loaded"]),
    "injector-unknown": (("after", "onnx"), lambda c: setattr(c.result.record, "injector", None),
                         ["the census run had no injector loaded"]),
    "a-frame-short": (("after", "torch"), lambda c: c.result.record.frames.pop(),
                      ["3 frames out of 4: the run did not go through"]),
    "no-frames-kept": (("after", "onnx"), lambda c: setattr(c.result.record, "frames", None),
                       ["0 frames out of 4: the run did not go through"]),
    "onnx-calls": (("after", "onnx"), _set(calls=1, stacks=[TF_STACK]),
                   [f"1 pthread_create() calls, expected none: ['{TF_STACK}']",
                    f"call 1: {TF_STACK}, expected ff_dnn_start_inference_async < "
                    "(no caller)"]),
    "tf-no-call": (("before", "tf", "dnn_detect"), _set(calls=0, stacks=[]),
                   ["no pthread_create() call, expected some from execute_model_tf"]),
    "a-stack-missing": (("after", "tf"), lambda c: c.stacks.pop(),
                        ["3 stacks named for 4 calls"]),
    "a-stack-more": (("after", "onnx"), _set(stacks=[TF_STACK]),
                     ["1 stacks named for 0 calls",
                      f"call 1: {TF_STACK}, expected ff_dnn_start_inference_async < "
                      "(no caller)"]),
    "torch-call-in-tf": (("before", "tf"), lambda c: c.stacks.__setitem__(2, TH_STACK),
                         [f"call 3: {TH_STACK}, expected ff_dnn_start_inference_async < "
                          "execute_model_tf"]),
    "no-caller-kept": (("before", "tf"), lambda c: c.stacks.__setitem__(0, START),
                       [f"call 1: {START}, expected ff_dnn_start_inference_async < "
                        "execute_model_tf"]),
    "made-elsewhere": (
        ("after", "torch"), lambda c: c.stacks.__setitem__(
            3, "pthread_create_wrapper (x.c:1) < execute_model_th (dnn_backend_torch.cpp:347)"),
        ["call 4: pthread_create_wrapper (x.c:1) < execute_model_th "
         "(dnn_backend_torch.cpp:347), expected ff_dnn_start_inference_async < "
         "execute_model_th"]),
    "two-functions-named": (   # the innermost two are all the check needs
        ("after", "tf"), lambda c: c.stacks.__setitem__(
            0, f"{START} < execute_model_tf (dnn_backend_tf.c:782)"), []),
    "caller-third": (
        ("after", "tf"), lambda c: c.stacks.__setitem__(
            1, f"{START} < run_one (dnn_backend_tf.c:1) < execute_model_tf (dnn_backend_tf.c:782)"),
        [f"call 2: {START} < run_one (dnn_backend_tf.c:1) < execute_model_tf "
         "(dnn_backend_tf.c:782), expected ff_dnn_start_inference_async < execute_model_tf"]),
}


@pytest.mark.parametrize("how", list(CENSUSES))
def test_wrong_censuses(how):
    key, change, says = CENSUSES[how]
    c = _census(*key)
    change(c)
    assert callers.diffs(c, case.CALLERS) == says


@pytest.mark.parametrize("have, want", [
    (set(), []),
    ({"onnx"}, [("onnx", "dnn_processing")]),
    ({"openvino"}, [("openvino", "dnn_processing"), ("openvino", "dnn_detect"),
                    ("openvino", "dnn_detect.yolo")]),
    ({"tf", "openvino"}, [("openvino", "dnn_processing"), ("tf", "dnn_processing"),
                          ("openvino", "dnn_detect"), ("openvino", "dnn_detect.yolo"),
                          ("tf", "dnn_detect"), ("openvino", "dnn_classify")]),
])
def test_pairs_of_a_backend_set(have, want):
    """Every graph whose backends are all built, in the graphs' order: filter by filter, a
    backend's graphs of a filter together."""
    assert callers.pairs(have) == want
