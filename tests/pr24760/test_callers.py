"""The PR's "Callers" paragraph from real runs (harness/experiments/callers.py runs them,
harness/judge/callers.py checks them against harness/cases/pr24760/ CALLERS):
on every backend and filter built, every pthread_create() call FFmpeg's own code makes
is made in ff_dnn_start_inference_async(), called from the TensorFlow or LibTorch
backend; graphs on ONNX Runtime and OpenVINO alone make none."""

import pytest

from harness.cases import pr24760 as expected
from harness.experiments import callers as census
from harness.judge import callers
from harness.run import chains as graphs, forkclient

pytestmark = [pytest.mark.before, pytest.mark.after]


@pytest.fixture(scope="module")
def censuses(tree, preload):
    return census.run([tree("before"), tree("after")], preload, expected.CALLERS["family"],
                      jobs=2, expect=expected.EXPECT, pool=forkclient.DEFAULT)  # the process-wide servers, as test_sweep's


def test_every_built_pair_is_counted(censuses, tree):
    have = tree("after").backends
    want = {(b, (k[0], k[1])) for k in graphs.GRAPHS if graphs.needs(*k) <= have
            for b in ("before", "after")}
    assert {(c.build, (c.backend, c.filter)) for c in censuses} == want


def test_the_callers_paragraph_holds(censuses, tree):
    assert {f"{c.build}-{c.backend}-{c.filter}": callers.diffs(c, expected.CALLERS) for c in censuses} == \
        {f"{c.build}-{c.backend}-{c.filter}": [] for c in censuses}
    starters = {"tf", "torch"} & tree("after").backends
    if not starters:
        pytest.skip("the backend set has neither TensorFlow nor LibTorch: no backend that "
                    "starts threads (run: make test BACKENDS=all)")
    assert any(c.calls for c in censuses if c.backend in starters), "the census saw calls"


def test_swapped_callers_would_fail(censuses):
    """Which backend function a call comes from is checked: TensorFlow's and LibTorch's
    callers swapped fail every census that saw a call."""
    reached = expected.CALLERS["reached_from"]
    swapped = {**expected.CALLERS, "reached_from": {**reached, "tf": reached["torch"],
                                                    "torch": reached["tf"]}}
    seen = [c for c in censuses if c.calls and c.backend in ("tf", "torch")]
    if not seen:
        pytest.skip("no census of TensorFlow or LibTorch (run: make test BACKENDS=all)")
    assert all(callers.diffs(c, swapped) for c in seen)


def test_another_paragraph_would_fail(censuses):
    """The census can tell: the same runs fail a paragraph that named another function,
    or that said ONNX Runtime started threads there."""
    wrong = {**expected.CALLERS, "creates": "ff_dnn_execute_model"}
    assert any(callers.diffs(c, wrong) for c in censuses if c.calls)
    onnx = {**expected.CALLERS, "reached_from": {**expected.CALLERS["reached_from"],
                                                 "onnx": ("execute_model_onnx",)}}
    assert all(callers.diffs(c, onnx) for c in censuses
               if c.backend == "onnx" and c.filter == "dnn_processing")
