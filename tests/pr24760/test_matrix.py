"""The PR #24760 table: each build x fault, run for real and judged against the
expected table (harness/cases/pr24760/). Reverting patch 9 (the before tree) fails the
after expectations."""

import pytest

from harness import errnos

from harness.cases import pr24760 as expected
from harness.run import faults
from harness.errors import ScenarioError
from harness.run.outcome import Outcome, failed_where, functions
from harness.run.scenario import scenario_id
from harness.obtain.backends import BACKENDS, BACKEND_SETS


BUILDS = ("before", "after")
FAULTS = (*expected.FAULTS, "none")
MARK = {name: b.marker for name, b in BACKENDS.items()}
# The PR's table 1 on every backend, its table 2 graphs, then the backends' own route.
TABLES = [("onnx", "dnn_processing"), ("openvino", "dnn_processing"),
          ("tf", "dnn_processing"), ("torch", "dnn_processing"),
          ("tf", "dnn_detect"), ("openvino", "dnn_detect"), ("openvino", "dnn_classify")]
FRAME_ROUTE = [("torch", "pthread_create=EAGAIN"), ("torch", "pthread_create=EINVAL"),
               ("onnx", "pthread_create=EAGAIN"), ("openvino", "pthread_create=EAGAIN")]


def _param(build, backend, filt, spec, route="flush"):
    """A row, marked by its build, backend and filter; on the default backend also in the
    fast tier (`make check`)."""
    check = [pytest.mark.check] if backend in BACKEND_SETS["default"] else []
    return pytest.param(build, backend, filt, spec, route,
                        id=scenario_id(build, backend, filt, faults.parse(spec), route),
                        marks=[getattr(pytest.mark, build), getattr(pytest.mark, MARK[backend]),
                               getattr(pytest.mark, filt), *check])


def _params():
    for backend, filt in TABLES:
        for build in BUILDS:
            for spec in FAULTS:
                yield _param(build, backend, filt, spec)
    for backend, spec in FRAME_ROUTE:
        for build in BUILDS:
            yield _param(build, backend, "dnn_processing", spec, "frame")


@pytest.mark.parametrize("build, backend, filt, fault, route", list(_params()))
def test_pr_table(run_scenario, build, backend, filt, fault, route):
    r = run_scenario(build, fault, backend=backend, filt=filt, route=route,
                     timeout=10.0 if route == "frame" else 60.0)
    assert r.outcome is Outcome.PASS, f"{r.outcome.value}: {r.diffs or r.reason}"
    exp = expected.lookup(build, faults.parse(fault), backend, filt, route)
    assert getattr(r.record, exp.activate_field) == exp.activate
    frames = 2 if route == "flush" else 2 - exp.failures  # the frame route fails the last
    assert len(r.record.frames) == frames, "the frames before the fault went through"
    assert r.record.counters.failures == exp.failures
    if exp.eligible is not None:  # how many calls FFmpeg made after arming, and which failed
        assert r.record.counters.eligible == exp.eligible
    assert functions(failed_where(r.record))[:len(exp.failed_at)] == list(exp.failed_at)
    assert bool(r.record.hung) == (exp.outcome == "HANG")
    if route == "flush":
        assert tuple(r.record.sink) == exp.sink
        assert r.record.flush_calls == 1


@pytest.mark.onnx
@pytest.mark.dnn_detect
def test_onnx_detect_is_not_expressible_on_this_base(run_scenario):
    """The PR's ONNX dnn_detect row (D-FINE S) needs detection support 9.0.2 lacks."""
    with pytest.raises(ScenarioError, match="not expressible on FFmpeg 9.0.2: 9.0.2's "
                                            "dnn_detect accepts only TensorFlow and OpenVINO"):
        run_scenario("after", "pthread_create=EAGAIN", backend="onnx", filt="dnn_detect")


@pytest.mark.before
@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("fault", expected.FAULTS[:3])
def test_reverted_fix_fails_after_expectations(run_scenario, fault):
    """before = after with patch 9 reverted (test_trees proves it): judged as after, it fails."""
    r = run_scenario("before", fault, expect="after")
    assert r.outcome is Outcome.FAIL
    assert any("activate() at EOF" in d for d in r.diffs)


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("name", ["EAGAIN", "EINVAL", "EPERM"])
def test_every_errno_of_the_profile_follows_the_rule(run_scenario, name):
    """Every errno of pthread_create()'s fault profile (injectors/pthread_create.fi), in a
    spec the PR's rows do not quote (so the expectation is the rule's, not the PR's
    numbers): AVERROR(e) after the fix, EAGAIN mapped to AVERROR_EXTERNAL. An errno outside
    the profile is bad input (tests/pr24760/test_units.py)."""
    r = run_scenario("after", f"pthread_create=1*return({name})")
    assert r.outcome is Outcome.PASS, r.diffs
    e = faults.parse(f"pthread_create={name}").errno
    assert r.record.activate_at_eof == (errnos.AVERROR_EXTERNAL if name == "EAGAIN" else -e)


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_wrap_injector_variant(run_scenario):
    """The link-time --wrap injector gives the same row as the LD_PRELOAD one."""
    r = run_scenario("after", "pthread_create=EINVAL", injector="wrap")
    assert r.outcome is Outcome.PASS, r.diffs
    assert r.record.counters.failures == 1
