"""The probe on the real 9.0.2 trees: it must say what the harness wrote down for 9.0.2
before it had a probe (the pairs no graph can express, with the same sentence for the
table's ONNX dnn_detect row), and the bindings compiled against the tree carry the
tree's answers as HAS_* flags."""

import dataclasses

import pytest

from harness.compile import ffi_load
from harness.obtain import probe
from harness.run import chains

pytestmark = [pytest.mark.trees]

# What harness/run/chains.py's NOT_ON_THIS_BASE listed for 9.0.2, by hand, before the probe.
WRITTEN_FOR_902 = {("onnx", "dnn_detect"), ("onnx", "dnn_classify"), ("tf", "dnn_classify"),
                   ("torch", "dnn_detect"), ("torch", "dnn_classify")}
PAIRS = {(b, f) for b in chains.BACKENDS for f in chains.FILTERS}


@pytest.mark.parametrize("name", ["base", "before", "after"])
def test_902_pairs_as_written_down(tree, name):
    t = tree(name)
    facts = probe.facts(t.src)
    assert facts.version == "9.0.2"
    assert {p for p in PAIRS if facts.why_not(*p)} == WRITTEN_FOR_902
    assert chains.not_expressible(t.src, "onnx", "dnn_detect") == (
        "not expressible on FFmpeg 9.0.2: 9.0.2's dnn_detect accepts only TensorFlow and "
        "OpenVINO (vf_dnn_detect.c: DNN_TF | DNN_OV) and its ONNX backend supports only "
        "DFT_PROCESS_FRAME")
    assert {n for n, b in facts.backends.items() if b.synchronous} == {"onnx"}
    assert facts.enabled == t.backends
    assert not [a for a in facts.absent() if "DNN" in a and "DNNBackendType" in a]


@pytest.mark.parametrize("name, series_helpers", [("base", 0), ("after", 1)])
def test_bindings_carry_the_tree_flags(tree, name, series_helpers):
    ffi, lib = ffi_load.load(tree(name))
    assert (lib.HAS_DNN_ONNX, lib.HAS_FFFILTER, lib.HAS_START_INFERENCE_ASYNC) == (1, 1, 1)
    assert lib.DNN_ONNX == 8 and lib.DNN_TF == 1
    assert lib.HAS_COMPLETE_LLTASK == lib.HAS_GET_RESULT_STATUS == series_helpers


def test_probe_command_reports_the_tree(tree, plan, capsys):
    from harness import cli
    tree("after")
    assert cli.main(["probe", "--build", "after", "--backend", ",".join(plan.backend_names)]) == 0
    out = capsys.readouterr().out
    assert "- FFmpeg 9.0.2; DNNBackendType: DNN_TF, DNN_OV, DNN_TH, DNN_ONNX" in out
    assert ("- not expressible: onnx / dnn_detect: 9.0.2's dnn_detect accepts only "
            "TensorFlow and OpenVINO") in out


def test_claims_expressible_on_the_release(tree):
    """probe --releases' claim rows, from the tree's facts: a claim whose commit the
    release's trees did not take, a backend the tree lacks (read from the graph's
    dnn_backend= when the claim names none) and a filter its backend cannot run are each
    said; the rest is expressible."""
    from harness.cases import pr24760
    from harness.judge import releasetable as rt
    facts = probe.facts(tree("after").src)
    by_id = {c.id: c for c in rt.claims_of(pr24760.CASE)}
    assert len(by_id) == len(pr24760.COMMIT_CLAIMS) + len(pr24760.SANITIZER_CLAIMS)
    everything = set(range(1, 10))
    assert rt.claim_cell(by_id["commit7-detect-flush-einval"], facts, everything) == "expressible"
    assert rt.claim_cell(by_id["commit7-detect-flush-einval"], facts, everything - {7}) == \
        "not expressible: commit 7 did not apply (git am -3)"
    assert rt.claim_cell(by_id["commit6-onnx-detect-eio"], facts, everything).startswith(
        "not expressible: 9.0.2's dnn_detect accepts only TensorFlow and OpenVINO")
    assert rt.claim_cell(by_id["commit7-detect-flush-einval"], facts, None) == \
        "expressible if its commit applies"
    # the filter a claim is about, not the first of its graph: TensorFlow's boxes, then
    # OpenVINO's dnn_classify, which a tree whose OpenVINO cannot classify cannot express
    ov = dataclasses.replace(facts.backends["openvino"], function_types=frozenset(
        {"DFT_PROCESS_FRAME", "DFT_ANALYTICS_DETECT"}))
    cannot = dataclasses.replace(facts, backends={**facts.backends, "openvino": ov})
    assert "not expressible" in rt.claim_cell(by_id["commit7-classify-flush-einval"], cannot,
                                              everything)
    without_tf = dataclasses.replace(
        facts, backends={**facts.backends, "tf": dataclasses.replace(facts.backends["tf"],
                                                                    source="")})
    assert rt.claim_cell(by_id["commit7-detect-flush-einval"], without_tf, everything) == \
        "not expressible: no TensorFlow backend in the tree"
