"""The sweep: every pthread_create() site FFmpeg's own code reaches is failed in turn.
TensorFlow's async start failures hang the run in both builds (the PR leaves them);
ONNX Runtime has no site."""

from dataclasses import replace

import pytest

from harness.cases import pr24760 as expected
from harness.run import forkclient, matrix, runner
from harness.experiments import sweep as sweeps
from harness.judge import sweep
from harness.run.outcome import Outcome, functions
from harness.cases.pr24760 import EXPECT

# the process-wide fork servers the single runs use (run_one): each module imported once
SERVERS = forkclient.DEFAULT


def run_sweep(tree, preload, backend, filt="dnn_processing"):
    have = tree("after").backends
    if backend not in have:
        pytest.skip(f"tree built without {backend} (run: make test BACKENDS=all)")
    trees = [tree("before"), tree("after")]
    scs = matrix.scenarios(trees, backend, filt, ["pthread_create=EAGAIN"], route="sweep")
    return sweeps.sweep(scs, preload, jobs=2, expect=EXPECT, pool=SERVERS)


@pytest.mark.parametrize("backend, filt, caller", [
    pytest.param("tf", "dnn_processing", "execute_model_tf (dnn_backend_tf.c:",
                 marks=[pytest.mark.tensorflow, pytest.mark.dnn_processing]),
    pytest.param("tf", "dnn_detect", "execute_model_tf (dnn_backend_tf.c:",
                 marks=[pytest.mark.tensorflow, pytest.mark.dnn_detect]),
    pytest.param("torch", "dnn_processing", "execute_model_th (dnn_backend_torch.cpp:",
                 marks=[pytest.mark.torch, pytest.mark.dnn_processing])])
def test_async_start_failure_hangs(tree, preload, monkeypatch, backend, filt, caller):
    monkeypatch.setattr(sweeps, "FRAMES", 2)  # two sites are enough to show it
    monkeypatch.setattr(sweeps, "TIMEOUT", 6.0)
    found = run_sweep(tree, preload, backend, filt)
    want, _ = expected.SWEEP[(backend, filt, "pthread_create")]
    for build in ("before", "after"):
        count, sites = found[build]
        assert count == 2, "one thread per frame in async mode"
        assert [s.cls.value for s in sites] == [want] * 2
        # LibTorch's single request never comes back: only a failed start of the last
        # frame gets to EOF (and its checkpoint); the others hang at the next frame
        at_eof = sites if backend == "tf" else sites[-1:]
        assert all(s.result.record.counters and s.result.record.counters.failures == 1
                   for s in at_eof), \
            "the checkpoint before EOF shows the one failed call"
        assert all("--route sweep" in s.command for s in sites)
        assert all(s.where.startswith("ff_dnn_start_inference_async (dnn_backend_common.c:")
                   and caller in s.where for s in sites), \
            "the census names each site in FFmpeg's code"


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_onnx_has_no_site(tree, preload):
    """0 sites, counted by a census that ran: the injector loaded and armed, every frame
    through real inference (a census that could not run would count 0 as well)."""
    found = run_sweep(tree, preload, "onnx")
    assert {b: n for b, (n, _) in found.items()} == {"before": 0, "after": 0}
    assert expected.SWEEP[("onnx", "dnn_processing", "pthread_create")][0] is None
    for build, f in found.items():
        census = f.census
        assert census.outcome is Outcome.MEASURED, f"{build}: {census.reason}"
        assert census.record.injector and census.record.counters.eligible == 0
        assert len(census.record.frames) == sweep.FRAMES, "every frame went through"
        assert sweep.problems({build: f}, None) == []


@pytest.mark.unit
def test_classes():
    from harness.run.record import Activation, Frame, RunRecord
    from harness.run.runner import Result
    r = Result(None, Outcome.MEASURED, RunRecord(activate=[Activation(11, False)],
                                                 sink=[-541478725], frames=[Frame("")] * 4))
    assert sweep.classify(r) is sweep.Class.LOST
    r.record.activate = [Activation(-22, False)]
    assert sweep.classify(r) is sweep.Class.SURFACED
    r.record.activate, r.record.frames = [Activation(0, False)], [Frame("a")] * 3
    assert sweep.classify(r) is sweep.Class.DROPPED
    r.record.frames = [Frame("a"), Frame("b"), Frame("c"), Frame("d")]
    assert sweep.classify(r) is sweep.Class.CLEAN
    assert sweep.classify(r, [Frame(m) for m in "abcd"]) is sweep.Class.CLEAN
    assert sweep.classify(r, [Frame(m) for m in "0bcd"]) is sweep.Class.ALTERED


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_malloc_family_fires(run_scenario):
    """The malloc interposer, armed through the module before the frames: FFmpeg's first
    allocation fails, and the counters prove it (the harness's own are made before)."""
    r = run_scenario("after", "malloc=1*return(ENOMEM)", route="sweep")
    assert r.record.counters.failures == 1
    assert r.record.counters.eligible >= 1
    assert r.scenario.fault.kind == "malloc"


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_malloc_sweep_classifies_every_site(tree, preload):
    """The first sites of the ONNX Runtime malloc sweep, each failed once, class by class
    and named where the table says (expected.SWEEP_FIRST); the census counts all 124."""
    trees = [tree("after")]
    scs = matrix.scenarios(trees, "onnx", "dnn_processing", ["malloc=1*return(ENOMEM)"],
                           route="sweep")
    total, first = expected.SWEEP_FIRST[("onnx", "dnn_processing", "malloc")]
    found = sweeps.sweep(scs, preload, jobs=2, limit=len(first), expect=EXPECT,
                         pool=SERVERS)
    count, sites = found["after"]
    assert count == total
    assert [(s.cls.value, functions(s.where)[0]) for s in sites] == list(first)
    assert [s.result.record.counters.failures for s in sites] == [1] * len(first)
    assert sweep.problems(found) == []


@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("want, build, fault, route", [
    ("SURFACED", "before", "wrap:ff_proc_from_dnn_to_frame=1*return(AVERROR(ENOMEM))", "sweep"),
    ("ALTERED", "base", "wrap:ff_proc_from_dnn_to_frame=1*return(AVERROR(ENOMEM))", "sweep"),
    ("LOST", "before", "pthread_create=EAGAIN", "flush"),
    # the 17th allocation (swscale's yuv2rgb tables) fails and is retried or not needed
    ("CLEAN", "after", "malloc=16*off->1*return(ENOMEM)", "sweep"),
], ids=lambda v: v if v in ("SURFACED", "ALTERED", "LOST", "CLEAN", "base", "before",
                            "after") else None)
def test_classes_from_real_runs(run_scenario, want, build, fault, route):
    """Each class from a real run (HANG: the TensorFlow sweep above; CRASH and the
    containment: tests/engine/test_runner.py). ALTERED needs the clean run's frames."""
    clean = run_scenario(build, "none", route=route, frames=sweep.FRAMES)
    r = run_scenario(build, fault, route=route, frames=sweep.FRAMES)
    reference = clean.record.frames
    assert len(reference) == sweep.FRAMES
    assert sweep.classify(r, reference).value == want
    assert r.record.counters.failures == 1
    if want == "CLEAN":
        assert "ff_yuv2rgb_c_init_tables" in r.record.sites[0].where


@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("build", ["base", "before", "after"])
def test_pre_processing_result_is_ignored(tree, preload, build):
    """Every site of ff_proc_from_frame_to_dnn() failed in turn: the frame still comes
    out, made from an input tensor that was never filled, and nothing reports it."""
    scs = matrix.scenarios([tree(build)], "onnx", "dnn_processing",
                           ["wrap:ff_proc_from_frame_to_dnn=1*return(AVERROR(ENOMEM))"],
                           route="sweep")
    count, sites = sweeps.sweep(scs, preload, jobs=2, expect=EXPECT, pool=SERVERS)[build]
    want, _ = expected.SWEEP[("onnx", "dnn_processing", "wrap:ff_proc_from_frame_to_dnn")]
    assert count == sweep.FRAMES, "one pre-processing call per frame"
    assert [s.cls.value for s in sites] == [want] * count
    assert all(s.result.record.counters.failures == 1 for s in sites)
    assert all(s.where.startswith("fill_model_input_onnx (dnn_backend_onnx.c:") for s in sites)


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_lltask_sites_are_steady(tree, preload):
    """The lltask's own allocation in extract_lltask_from_task(), one site a frame, once
    hung in some runs and surfaced in others (the failed call returns before the task's
    counts are set, and the task, never zeroed, read what the block last held): with the
    injector poisoning what it lets through, each site has one class in 5 runs of each,
    and the three after the first frame hang (harness/cases/followups.py: 0003 makes them
    surface)."""
    scs = matrix.scenarios([tree("after")], "onnx", "dnn_processing",
                           ["malloc=1*return(ENOMEM)"], route="sweep")
    census = sweeps.census(scs[0])
    clean = runner.run([census], preload, jobs=1, expect=EXPECT, pool=SERVERS)[0]
    calls = [s.call - 1 for s in clean.record.sites
             if functions(s.where)[0] == "extract_lltask_from_task"]
    assert len(calls) == sweep.FRAMES, "one lltask a frame"
    reference = clean.record.frames
    plans = [replace(census, fault=replace(census.fault, skip=i, count=1))
             for i in calls for _ in range(5)]
    runs = runner.run(plans, preload, jobs=2, expect=EXPECT, pool=SERVERS)
    seen = {}
    for sc, r in zip(plans, runs):
        seen.setdefault(sc.fault.skip + 1, []).append(sweep.classify(r, reference).value)
    assert all(len(set(v)) == 1 for v in seen.values()), seen
    assert [v[0] for v in seen.values()][1:] == ["HANG"] * 3, seen
