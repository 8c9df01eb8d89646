"""The judge (harness/run/outcome.py) on results shaped as a worker writes them: each check
it makes fails when the thing it checks is wrong, and a command's exit status follows
the outcomes (harness/run/outcome.py exit_status, sweep.problems, claims.as_expected)."""

import dataclasses
import errno

import pytest

from harness.cases import pr24760 as expected
from harness import errnos
from harness.errors import ExitStatus
from harness.judge import claims, sweep
from harness.run import faults
from harness.run.outcome import Outcome, exit_status, judge
from harness.run.record import Box, CallSite, Counters, Frame, RunRecord
from harness.run.runner import Result

pytestmark = pytest.mark.unit

EOF_ = errnos.AVERROR_EOF
FLUSH_STACK = ("ff_dnn_start_inference_async (dnn_backend_common.c:182) < "
               "standin_flush (_ffdnn_after.c:2911) < flush_frame (vf_dnn_processing.c:271)")


def _passing(build="after", spec="pthread_create=EINVAL", boxes=None):
    """A result as the after build gives it for the PR's EINVAL row, and its expectation."""
    exp = expected.lookup(build, faults.parse(spec), filt="dnn_detect" if boxes else
                          "dnn_processing")
    frames = [Frame(m, boxes or []) for m in ("a", "b")]
    code = exp.activate
    data = RunRecord(activate_at_eof=code, sink=[code, EOF_] if code < 0 else [EOF_],
                     frames=frames, inputs=["a", "b"], flush_calls=1, log=exp.log_has,
                     counters=Counters(calls=3, eligible=1, failures=1), failed_call=1,
                     sites=[CallSite(1, FLUSH_STACK)])
    return data, exp


def test_the_passing_result_passes():
    data, exp = _passing()
    assert judge(data, exp, same_as_input=True) == (Outcome.PASS, [])


BREAKS = {  # id -> (how the result is broken, what the judge must say)
    "one-frame-lost": (lambda d: setattr(d, "frames", d.frames[:1]),
                       "frames out: got 1, expected 2"),
    "no-frame": (lambda d: setattr(d, "frames", []), "frames out: got 0, expected 2"),
    "frame-not-the-input": (lambda d: setattr(d.frames[1], "md5", "c"),
                            "frame 1: not the frame pushed"),
    "inputs-not-recorded": (lambda d: setattr(d, "inputs", None), "recorded no input frames"),
    "flush-never-ran": (lambda d: setattr(d, "flush_calls", 0),
                        "flush calls at EOF: got 0, expected 1"),
    "flush-ran-twice": (lambda d: setattr(d, "flush_calls", 2),
                        "flush calls at EOF: got 2, expected 1"),
    "two-eligible-calls": (lambda d: setattr(d.counters, "eligible", 2),
                           "calls from FFmpeg's code after arming: got 2"),
    "a-frame-start-failed": (
        lambda d: setattr(d, "sites", [CallSite(1, "ff_dnn_start_inference_async (x.c:1) "
                                                   "< execute_model_tf (y.c:2)")]),
        "the failed pthread_create() call: got ff_dnn_start_inference_async (x.c:1) < "
        "execute_model_tf"),
    "no-stack-kept": (lambda d: setattr(d, "sites", []),
                      "the failed pthread_create() call: got no stack"),
    "another-call-failed": (lambda d: setattr(d, "failed_call", 2),
                            "the failed pthread_create() call: got no stack"),
}


@pytest.mark.parametrize("how", list(BREAKS))
def test_each_check_fails(how):
    break_it, says = BREAKS[how]
    data, exp = _passing()
    break_it(data)
    outcome, diffs = judge(data, exp, same_as_input=True)
    assert outcome is Outcome.FAIL
    assert any(says in d for d in diffs), diffs


def test_pixels_are_not_compared_for_a_model_that_changes_them():
    data, exp = _passing()
    data.frames[0].md5 = "changed by the model"
    assert judge(data, exp, same_as_input=False) == (Outcome.PASS, [])


def test_a_hang_is_judged_without_its_flush():
    data, exp = _passing()
    data.flush_calls = 0  # the checkpoint is taken before EOF
    assert not any("flush" in d for d in judge(data, exp, hung=True)[1])


def test_the_box_check_fails_with_no_frame():
    box = Box("32x32+16+16", "", "9000/10000", [])
    data, exp = _passing(boxes=[box])
    assert judge(data, exp) == (Outcome.PASS, [])
    exp = dataclasses.replace(exp, frames=None)  # even with the frame count unchecked
    data.frames = []
    outcome, diffs = judge(data, exp)
    assert outcome is Outcome.FAIL
    assert diffs == ["boxes: 0 frames came out, expected 2 with a box each"]


def test_the_census_rows_name_the_flush_start():
    """Every PR row with injection expects one eligible call, the stand-in flush's."""
    for build in ("before", "after"):
        for spec in expected.FAULTS[:3]:
            exp = expected.lookup(build, faults.parse(spec))
            assert (exp.eligible, exp.failures) == (1, 1)
            assert exp.failed_at == ("ff_dnn_start_inference_async", "standin_flush")
        assert expected.lookup(build, faults.parse("flush=AVERROR(EAGAIN)")).eligible is None


def _r(outcome):
    return Result(None, outcome)


@pytest.mark.parametrize("outcomes, measure, status", [
    ([Outcome.PASS, Outcome.PASS], False, 0),
    ([Outcome.PASS, Outcome.MEASURED], False, 1),
    ([Outcome.PASS, Outcome.MEASURED], True, 0),
    ([Outcome.SKIP], False, 1),
    ([Outcome.SKIP], True, 0),
    ([Outcome.MEASURED, Outcome.FAIL], True, 1),
    ([Outcome.PASS, Outcome.ERROR], True, 1),
    ([Outcome.PASS, Outcome.CRASH], True, 1),
    ([Outcome.PASS, Outcome.HANG], True, 1),
    ([], False, 1),
])
def test_exit_status(outcomes, measure, status):
    assert exit_status([_r(o) for o in outcomes], measure) == status


def _site(cls, i=0, reason=""):
    return sweep.Site("after", i, cls, Result(None, Outcome.MEASURED, reason=reason), "cmd")


def _found(*classes, census=Outcome.MEASURED, injector=True, n=None):
    run = Result(None, census, RunRecord(injector=injector), reason="parse graph: boom")
    sites = [_site(c, i) for i, c in enumerate(classes)]
    return {"after": sweep.Found(len(classes) if n is None else n, sites, run)}


@pytest.mark.parametrize("found, want, says", [
    (_found(sweep.Class.HANG, sweep.Class.HANG), "HANG", None),
    (_found(sweep.Class.HANG, sweep.Class.LOST), "HANG", "after call 2: LOST, expected HANG"),
    (_found(sweep.Class.SURFACED, sweep.Class.HANG), ..., None),
    (_found(sweep.Class.CLEAN, sweep.Class.CRASH), ..., "after call 2: CRASH"),
    (_found(sweep.Class.ERROR), ..., "after call 1: ERROR"),
    (_found(), None, None),
    (_found(sweep.Class.CLEAN), None, "after: 1 sites, expected none"),
    (_found(census=Outcome.ERROR), None, "the census run (no call failed) ended ERROR: parse"),
    (_found(injector=False), None, "the census run had no injector loaded"),
    (_found(sweep.Class.HANG, sweep.Class.CLEAN), ("HANG", "CLEAN"), None),
    (_found(sweep.Class.HANG, sweep.Class.HANG), ("HANG", "CLEAN"),
     "after call 2: HANG, expected CLEAN"),
    (_found(sweep.Class.HANG), ("HANG", "CLEAN"), "after: 1 sites, expected 2"),
])
def test_sweep_problems(found, want, says):
    got = sweep.problems(found, want)
    assert (got == []) if says is None else any(says in p for p in got), got


def test_skipped_claim_rows_are_not_as_expected():
    row = {"commit": 7, "id": "x", "claim": "c", "base": "SKIP", "before": "SKIP",
           "verdict": "skipped: the trees were built without tf"}
    assert claims.skipped(row) and not claims.as_expected(row)
    assert claims.as_expected({**row, "verdict": "reproduces"})
    assert claims.as_expected({**row, "verdict": "not expressible on 9.0.2: why"})
    assert not claims.as_expected({**row, "verdict": "does not reproduce: x"})


# claims' exit status (issue 26): an unmeasured sanitizer claim is not green
MEASURED_ROWS = [
    (["reproduces", "not expressible on 9.0.2: why"], 0),
    (["reproduces", "not measured on this toolchain: base stopped in the sanitizer's own "
                    "check"], 4),
    (["does not reproduce: x", "not measured on this toolchain: y"], 1),
    (["skipped: tree 'base-asan' is not built", "reproduces"], 1),
    ([], 1),
]


@pytest.mark.unit
@pytest.mark.parametrize("verdicts, status", MEASURED_ROWS,
                         ids=["as-expected", "unmeasured", "unreproduced", "skipped", "none"])
def test_claims_exit_status(verdicts, status):
    rows = [{"id": f"r{i}", "verdict": v} for i, v in enumerate(verdicts)]
    assert claims.exit_status(rows) == status
    assert ExitStatus.NOT_MEASURED == 4


def test_commit7_rows_cover_its_three_filters_and_any_code():
    rows = [c for c in expected.COMMIT_CLAIMS if c.commit == 7]
    assert {c.filter for c in rows} == {"dnn_processing", "dnn_detect", "dnn_classify"}
    assert all(c.base["activate"] == -errno.EPERM and c.base["errors"] == [-errno.EPERM]
               for c in rows), "base: -1 whatever the flush returned"
    assert sorted({c.before["activate"] for c in rows}) == sorted(
        [-errno.EINVAL, -errno.ENOMEM, -errno.EAGAIN, errno.EAGAIN])
    assert all(c.route == "flush" for c in rows)


def test_junit_does_not_pass_a_measured_run():
    from harness.judge import report
    from harness.run.scenario import Scenario
    sc = Scenario("base", "/x", "onnx", "dnn_processing", faults.parse("none"), "/m.onnx")
    xml = report.junit([Result(sc, Outcome.MEASURED), Result(sc, Outcome.PASS)])
    assert 'tests="2"' in xml and 'skipped="1"' in xml and 'failures="0"' in xml
    assert '<skipped message="MEASURED: no expectation for this build and fault"' in xml


@pytest.mark.unit
def test_a_broken_tree_fails_a_missing_one_skips():
    """tests/conftest.py's need_tree (issue 26): a tree that is not built skips with the
    command that builds it; a tree in the cache that does not check fails the test with
    its error, so a broken cache cannot make the suite green."""
    from _pytest.outcomes import Failed, Skipped
    from tests.conftest import need_tree
    trees = ({}, {"after": (True, "after-1234/stamp.json: series hash does not match"),
                  "before": (False, "tree 'before' is not built")})
    with pytest.raises(Failed, match="in the cache but broken: after-1234/stamp.json"):
        need_tree(trees, "after")
    with pytest.raises(Skipped, match="tree 'before' missing"):
        need_tree(trees, "before")
