"""One record of a run (harness/run/record.py): its JSON form keeps every field, in the
record's order, reads back as the same record, and is the JSON the worker and the runner
wrote before it was typed (the real results of tests/data/verdicts/, key for key)."""

import dataclasses
import json

import pytest

from harness.run.record import (Activation, Box, CallSite, Counters, Frame, Label, Leak,
                                Leaks, RunRecord, Setup)
from tests import recorded

pytestmark = pytest.mark.unit

# every field set, none to its default: a field the JSON form drops fails the round trip
FULL = RunRecord(
    id="after-onnx-dnn_detect-pthread_create-eagain", build="after",
    fault="pthread_create=EAGAIN", route="flush", setup=Setup(-12, "av_frame_alloc: ENOMEM"),
    inputs=["a" * 32, "b" * 32], drained=[0, -11], frames=[
        Frame("a" * 32, [Box("32x32+16+16", "face", "9000/10000", [Label("x", "1/2")])]),
        Frame("b" * 32, [])],
    frame_sink=[-5], counters=Counters(calls=3, eligible=1, failures=1), injector=True,
    activate=[Activation(0, False), Activation(-542398533, True)],
    activate_at_eof=-542398533, activate_first_error=-542398533, flush_calls=1,
    log="Unable to start async inference",
    errors_logged=["[dnn_processing @ 0x1] Unable to start async inference"], failed_call=1,
    sites=[CallSite(1, "ff_dnn_start_inference_async (dnn_backend_common.c:182)",
                    "pthread_create")],
    eof_push=0, sink=[-542398533, -541478725],
    leaks=Leaks(2, 480, 1, [Leak("av_frame_alloc (frame.c:54) < filter_frame (x.c:1)", 1, 464),
                            Leak("extract_lltask_from_task (dnn_backend_tf.c:188)", 1, 16)]),
    error="parse graph: boom", output="tail",
    pid=1234, worker="fork server", watch={"1234": {"cpu": 0.0}}, hung=True,
    artifacts="/results/x")


def test_every_field_goes_and_comes_back():
    d = FULL.to_dict()
    assert list(d) == [f.name for f in dataclasses.fields(RunRecord)], \
        "every field, in the order the worker writes them"
    assert RunRecord.from_dict(json.loads(json.dumps(d))) == FULL
    assert d["frames"][0] == {"md5": "a" * 32, "boxes": [{
        "box": "32x32+16+16", "label": "face", "confidence": "9000/10000",
        "classify": [{"label": "x", "confidence": "1/2"}]}]}
    assert (d["setup"], d["counters"], d["activate"][1], d["sites"][0]["function"]) == (
        {"ret": -12, "error": "av_frame_alloc: ENOMEM"},
        {"calls": 3, "eligible": 1, "failures": 1},
        {"ret": -542398533, "flushed": True}, "pthread_create")
    assert d["leaks"] == {"blocks": 2, "bytes": 480, "untracked": 1, "places": [
        {"where": "av_frame_alloc (frame.c:54) < filter_frame (x.c:1)", "blocks": 1,
         "bytes": 464},
        {"where": "extract_lltask_from_task (dnn_backend_tf.c:188)", "blocks": 1, "bytes": 16}]}


def test_what_was_not_recorded_is_not_in_the_json():
    """None is a field the run did not record: its key is absent, but for the two
    activate() codes snapshot() writes with the records (None: none flushed, none
    failed); an injector not loaded has its counters, empty."""
    assert RunRecord().to_dict() == {}
    assert RunRecord(error="boom", pid=1, worker="fork server").to_dict() == {
        "error": "boom", "pid": 1, "worker": "fork server"}
    snap = RunRecord(counters=Counters(), injector=False, activate=[], flush_calls=0, log="")
    assert snap.to_dict() == {"counters": {}, "injector": False, "activate": [],
                              "activate_at_eof": None, "activate_first_error": None,
                              "flush_calls": 0, "log": ""}
    assert RunRecord.from_dict(snap.to_dict()) == snap
    assert RunRecord(setup=Setup(0)).to_dict() == {"setup": {"ret": 0}}
    assert RunRecord.from_dict({"frames": [{"md5": "a"}]}).frames == [Frame("a")]


def test_a_key_no_field_has_is_refused():
    with pytest.raises(ValueError, match="not a run record's: frame"):
        RunRecord.from_dict({"frame": []})


def _runs():
    """Every recorded run's JSON: the table recordings' runs, the sweeps' censuses and
    sites, the callers' censuses."""
    for name in ("table-onnx", "frame-onnx", "frame-torch", "detect-openvino",
                 "classify-openvino"):
        yield from (r["data"] for r in recorded.load(name)["runs"])
    for name in ("sweep-flush-onnx", "sweep-malloc-onnx", "sweep-none-onnx", "sweep-tf",
                 "sweep-wrap-pre-onnx"):
        for b in recorded.load(name)["builds"].values():
            yield b["census"]["data"]
            yield from (r["data"] for r in b["runs"])
    yield from (c["data"] for c in recorded.load("census")["censuses"])


def test_the_real_results_read_back_as_written():
    runs = list(_runs())
    assert len(runs) > 40
    for d in runs:
        assert RunRecord.from_dict(d).to_dict() == d  # key for key, at every depth


def test_a_result_still_gives_its_json_form_as_data():
    """A fault test written before the record had a type reads `Result.data`: the record's
    JSON form, with a warning that says what to read instead."""
    from types import SimpleNamespace
    from harness.run.outcome import Outcome
    from harness.run.runner import Result
    r = Result(SimpleNamespace(id="x"), Outcome.MEASURED, FULL)
    with pytest.warns(DeprecationWarning, match="Result.record"):
        assert r.data == FULL.to_dict()
