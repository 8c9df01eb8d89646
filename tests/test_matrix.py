"""The PR #24760 table: each build x fault, run for real and judged against the
expected table (harness/expected.py). Reverting patch 9 (the before tree) fails the
after expectations."""

import pytest

from harness import expected, faults
from harness.outcome import Outcome
from harness.scenario import scenario_id

BUILDS = ("before", "after")
FAULTS = (*faults.PR_FAULTS, "none")


def _params():
    for build in BUILDS:
        for spec in FAULTS:
            f = faults.parse(spec)
            yield pytest.param(build, spec, id=scenario_id(build, "onnx", "dnn_processing", f),
                               marks=[getattr(pytest.mark, build), pytest.mark.onnx,
                                      pytest.mark.dnn_processing])


@pytest.mark.parametrize("build, fault", list(_params()))
def test_pr_table(run_scenario, build, fault):
    r = run_scenario(build, fault)
    assert r.outcome is Outcome.PASS, f"{r.outcome.value}: {r.diffs or r.reason}"
    exp = expected.lookup(build, faults.parse(fault))
    assert r.data["activate_at_eof"] == exp.activate
    assert tuple(r.data["sink"]) == exp.sink
    assert len(r.data["frames"]) == 2, "both frames went through real inference"
    assert r.data["flush_calls"] == 1


@pytest.mark.before
@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("fault", faults.PR_FAULTS[:3])
def test_reverted_fix_fails_after_expectations(run_scenario, fault):
    """before = after with patch 9 reverted (test_trees proves it): judged as after, it fails."""
    r = run_scenario("before", fault, expect="after")
    assert r.outcome is Outcome.FAIL
    assert any("activate() at EOF" in d for d in r.diffs)


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("name", ["ENOMEM", "EBUSY"])
def test_any_errno_follows_the_rule(run_scenario, name):
    """Not only the PR's three: any errno the platform knows gives AVERROR(e) after the fix."""
    r = run_scenario("after", f"pthread_create={name}")
    assert r.outcome is Outcome.PASS, r.diffs
    assert r.data["activate_at_eof"] == -faults.parse(f"pthread_create={name}").errno


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_wrap_injector_variant(run_scenario):
    """The link-time --wrap injector gives the same row as the LD_PRELOAD one."""
    r = run_scenario("after", "pthread_create=EINVAL", injector="wrap")
    assert r.outcome is Outcome.PASS, r.diffs
    assert r.data["counters"]["failures"] == 1
