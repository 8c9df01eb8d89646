"""The diff's verdict (harness/judge/diff.py: change, judged, Pair.blind/judged, Diff.tally,
Diff.exit_status, worth_rerunning, against) on two real diffs (tests/data/verdicts/, recorded
by its record.py): before -> after (the PR fixes both flush-route sites; TensorFlow's frame
route hangs in both trees, blind) exits 0, after -> before (the fix reverted) exits 1, and
the variants derived from them exit as the rule says: a census that could not run in either
tree or in one, a site that could not run, only blind sites, nothing the change touches."""

import dataclasses

import pytest

from harness.errors import ExitStatus
from harness.experiments.diff import CONFIRM
from harness.judge import diff
from harness.judge.diff import Change
from harness.judge.sweep import Class
from tests import recorded

pytestmark = pytest.mark.unit

PASS, FAIL, BLIND = ExitStatus.OK, ExitStatus.FAIL, ExitStatus.BLIND  # the diff's words

FORWARD, BACK = "diff-before-after", "diff-after-before"
ONNX_FLUSH = "onnx / dnn_processing / flush / pthread_create"
TF_FLUSH = "tf / dnn_processing / flush / pthread_create"
TF_FRAMES = "tf / dnn_processing / frames / pthread_create"
ONNX_FRAMES = "onnx / dnn_processing / frames / pthread_create"


def test_recorded_verdicts():
    """The rebuilt diffs give what the command gave: the verdict, the counts, the status."""
    for name, status in ((FORWARD, PASS), (BACK, FAIL)):
        d = recorded.diff(name)
        assert d.exit_status == d.recorded.exit_status == status
        assert d.tally() == d.recorded.counts
        assert {c.value: d.count()[c] for c in Change} == d.recorded.verdict


def test_the_recorded_classes():
    """What the runs were, as the PR and the case say: the flush route's start LOST before
    the fix and SURFACED after (both backends); TensorFlow's frame route HANG in both
    (harness/cases/pr24760/ SWEEP: pre-existing, not changed by the PR); ONNX Runtime's frame
    route no site ("ONNX Runtime and OpenVINO do not use it.")."""
    d = recorded.diff(FORWARD)
    got = {}
    for p in d.pairs:
        got.setdefault(p.group.key, []).append((p.sites[0].cls, p.sites[1].cls, p.change))
    assert got == {ONNX_FLUSH: [(Class.LOST, Class.SURFACED, Change.FIX)],
                   TF_FLUSH: [(Class.LOST, Class.SURFACED, Change.FIX)],
                   TF_FRAMES: [(Class.HANG, Class.HANG, Change.SAME)] * 4}
    assert [g.sites for g in d.groups if g.key == ONNX_FRAMES] == [[0, 0]]
    (p,) = recorded.diff(BACK).pairs
    assert (p.sites[0].cls, p.sites[1].cls, p.change) == (Class.SURFACED, Class.LOST,
                                                         Change.REGRESSION)


def test_change_of_the_recorded_pairs():
    for name in (FORWARD, BACK):
        for p in recorded.diff(name).pairs:
            assert diff.change(p.sites[0].cls, p.sites[1].cls) is p.change


# judged() after reruns: each side's classes -> the verdict (its docstring's rule)
SEEN = {
    "recorded-regression": ("BACK", None, Change.REGRESSION),
    "from-unsteady": ([Class.SURFACED, Class.LOST], [Class.LOST] * 5, Change.FLAKY),
    "to-failed-once": ([Class.SURFACED] * 5, [Class.SURFACED] * 4 + [Class.LOST],
                       Change.REGRESSION),
    # one tree unsteady between two harmless classes: not judged either (the code's rule:
    # more than one class on either side, where neither rule above holds, is FLAKY)
    "to-clean-once": ([Class.SURFACED] * 5, [Class.SURFACED, Class.CLEAN], Change.FLAKY),
    "fixed-once-failed": ([Class.LOST] * 5, [Class.SURFACED, Class.LOST], Change.FLAKY),
    "fixed-steady": ([Class.LOST, Class.HANG], [Class.SURFACED] * 5, Change.FIX),
    "both-unsteady": ([Class.SURFACED, Class.HANG], [Class.LOST, Class.SURFACED],
                      Change.FLAKY),
    "an-error": ([Class.SURFACED] * 4 + [Class.ERROR], [Class.LOST] * 5, Change.ERROR),
    "an-error-after": ([Class.SURFACED] * 5, [Class.ERROR], Change.ERROR),
    "steady-change": ([Class.HANG] * 5, [Class.ALTERED] * 5, Change.CHANGED),
    "one-run-each": ([Class.HANG], [Class.ALTERED], Change.CHANGED),   # --confirm 0
    "one-run-fix": ([Class.LOST], [Class.SURFACED], Change.FIX),
    # every harmless class on one side: still harmless
    "good-both-ways-then-lost": ([Class.SURFACED, Class.CLEAN], [Class.LOST], Change.REGRESSION),
    "lost-then-good-both-ways": ([Class.LOST], [Class.CLEAN, Class.SURFACED], Change.FIX),
    "steady-good-change": ([Class.SURFACED] * 5, [Class.CLEAN] * 5, Change.CHANGED),
}


@pytest.mark.parametrize("how", list(SEEN))
def test_judged_after_reruns(how):
    a, b, want = SEEN[how]
    if a == "BACK":
        (p,) = recorded.diff(BACK).pairs
        a, b = p.seen
        assert len(a) == len(b) == 1 + CONFIRM
    assert diff.judged(a, b) is want


def _pair(d, key, i=0):
    return [p for p in d.pairs if p.group.key == key][i]


# Pair.blind and Pair.judged: (recorded pair, its seen replaced, its change replaced) ->
# (blind, judged)
PAIRS = {
    "fix": ((FORWARD, ONNX_FLUSH), None, None, (False, True)),
    "hang-in-both": ((FORWARD, TF_FRAMES), None, None, (True, False)),
    "regression": ((BACK, ONNX_FLUSH), None, None, (False, True)),
    "hang-then-crash": ((FORWARD, TF_FRAMES), [[Class.HANG], [Class.CRASH]], None,
                        (True, False)),
    "crash-in-both": ((FORWARD, TF_FRAMES), [[Class.CRASH], [Class.CRASH]], None,
                      (True, False)),
    "hang-once-of-two": ((FORWARD, TF_FRAMES), [[Class.HANG], [Class.HANG, Class.LOST]],
                         None, (False, True)),
    "hang-only-from": ((FORWARD, TF_FRAMES), [[Class.HANG], []], Change.ONLY_FROM,
                       (True, False)),
    "no-run": ((FORWARD, TF_FRAMES), [[], []], Change.SAME, (False, True)),
    "hang-then-surfaced": ((FORWARD, TF_FRAMES), [[Class.HANG], [Class.SURFACED]],
                           Change.FIX, (False, True)),
    "error": ((FORWARD, ONNX_FLUSH), None, Change.ERROR, (False, False)),
    "flaky": ((BACK, ONNX_FLUSH), None, Change.FLAKY, (False, False)),
}


@pytest.mark.parametrize("how", list(PAIRS))
def test_blind_and_judged(how):
    (name, key), seen, change, want = PAIRS[how]
    p = _pair(recorded.diff(name), key)
    if seen is not None:
        p.seen = seen
    if change is not None:
        p.change = change
    assert (p.blind, p.judged) == want


def _keep(d, keys):
    """The diff of only the groups `keys` (the others not run)."""
    d.groups = [g for g in d.groups if g.key in keys]
    d.pairs = [p for p in d.pairs if p.group.key in keys]
    return d


def _census_error(d, key, side, why="ERROR: the clean run failed"):
    """A census that could not run: its group's sites are not paired (harness/experiments/diff.py)."""
    g = next(g for g in d.groups if g.key == key)
    g.errors[side], g.sites[side] = why, None
    d.pairs = [p for p in d.pairs if p.group is not g]
    return d


def _untouched(d):
    for p in d.pairs:
        p.touched = ""
    return d


def _unknown(d):
    d.touched = dataclasses.replace(d.touched, known=False)
    return d


def _change(key, change, i=0):
    def f(d):
        _pair(d, key, i).change = change
        return d
    return f


# Diff.exit_status: (recording, how it is changed) -> status (its docstring's rule)
STATUS = {
    "forward": (FORWARD, lambda d: d, PASS),
    "back": (BACK, lambda d: d, FAIL),
    # a census that could not run, in both trees or in one: FAIL, never PASS or BLIND
    "both-censuses-error": (BACK, lambda d: _census_error(_census_error(d, ONNX_FLUSH, 0),
                                                          ONNX_FLUSH, 1), FAIL),
    "from-census-error": (FORWARD, lambda d: _census_error(d, ONNX_FLUSH, 0), FAIL),
    "to-census-crash": (FORWARD, lambda d: _census_error(d, TF_FRAMES, 1,
                                                         "CRASH: worker died on SIGSEGV"),
                        FAIL),
    # a site that could not run in either tree
    "site-error": (FORWARD, _change(ONNX_FLUSH, Change.ERROR), FAIL),
    "site-error-among-blind": (FORWARD, lambda d: _change(TF_FRAMES, Change.ERROR, 2)(
        _keep(d, {TF_FRAMES})), FAIL),
    "regression-among-fixes": (FORWARD, _change(TF_FLUSH, Change.REGRESSION), FAIL),
    # nothing the change's code runs in could show it
    "only-blind": (FORWARD, lambda d: _keep(d, {TF_FRAMES, ONNX_FRAMES}), BLIND),
    "no-site": (FORWARD, lambda d: _keep(d, {ONNX_FRAMES}), BLIND),
    "nothing-touched": (FORWARD, _untouched, BLIND),
    "change-unread": (FORWARD, lambda d: _unknown(_untouched(d)), PASS),
    "change-unread-only-blind": (FORWARD, lambda d: _unknown(_keep(d, {TF_FRAMES})), BLIND),
    "flaky-fix": (FORWARD, lambda d: _change(TF_FLUSH, Change.FLAKY)(
        _keep(d, {TF_FLUSH, TF_FRAMES})), BLIND),
    "one-touched-fix": (FORWARD, lambda d: (setattr(_pair(d, TF_FLUSH), "touched", ""), d)[1],
                        PASS),
    # the changed lines (harness/judge/coverage.py): not one ran under a fault, BLIND
    # whatever the sites say; one ran, the sites decide; none changed (a change to no code
    # line), the sites decide
    "no-changed-line-ran": (FORWARD, lambda d: _lines(d, changed=3, executed=0), BLIND),
    "a-changed-line-ran": (FORWARD, lambda d: _lines(d, changed=3, executed=1), PASS),
    "no-changed-line": (FORWARD, lambda d: _lines(d, changed=0, executed=0), PASS),
}


def _lines(d, changed, executed):
    d.coverage = {"changed": changed, "executed": executed}
    return d


@pytest.mark.parametrize("how", list(STATUS))
def test_exit_status(how):
    name, change, want = STATUS[how]
    assert change(recorded.diff(name)).exit_status == want


def test_census_errors_name_the_group_and_the_side():
    d = _census_error(recorded.diff(BACK), ONNX_FLUSH, 1, "ERROR: boom")
    assert d.census_errors == [f"{ONNX_FLUSH}: before: census ERROR: boom"]
    _census_error(d, ONNX_FLUSH, 0, "HANG: killed")
    assert d.census_errors == [f"{ONNX_FLUSH}: after: census HANG: killed",
                               f"{ONNX_FLUSH}: before: census ERROR: boom"]
    assert recorded.diff(FORWARD).census_errors == []


def test_tally():
    d = recorded.diff(FORWARD)
    every = {"judged": 2, "blind": 4, "not_judged": 0, "total": 6}
    assert d.tally() == {**every, "touched": every}
    _pair(d, TF_FLUSH).touched = ""
    _pair(d, TF_FRAMES, 1).touched = ""
    _pair(d, ONNX_FLUSH).change = Change.ERROR
    assert d.tally() == {"judged": 1, "blind": 4, "not_judged": 1, "total": 6,
                         "touched": {"judged": 0, "blind": 3, "not_judged": 1, "total": 4}}


# worth_rerunning: the pair -> whether more runs could change its verdict
RERUN = {
    "regression": ((BACK, ONNX_FLUSH), None, None, True),
    "fix": ((FORWARD, ONNX_FLUSH), None, None, False),
    "same-hang": ((FORWARD, TF_FRAMES), None, None, False),
    "changed-from-good": ((BACK, ONNX_FLUSH), Class.SURFACED, Change.CHANGED, True),
    "changed-from-clean": ((BACK, ONNX_FLUSH), Class.CLEAN, Change.CHANGED, True),
    "changed-from-bad": ((FORWARD, TF_FRAMES), Class.HANG, Change.CHANGED, False),
    "same-good": ((BACK, ONNX_FLUSH), Class.SURFACED, Change.SAME, False),
    "only-to": ((BACK, ONNX_FLUSH), None, Change.ONLY_TO, False),
}


def test_worth_rerunning_a_new_call_that_regressed():
    """A call only the to-tree makes, failing badly (a regression without a from-site):
    more runs could show it flaky, so it is rerun."""
    p = _pair(recorded.diff(BACK), ONNX_FLUSH)
    p.sites[0], p.change = None, Change.REGRESSION
    assert p.sites[1].cls is not Class.CRASH
    assert diff.worth_rerunning(p) is True


def test_worth_rerunning_a_new_crash():
    """HANG -> CRASH, a new crash where the from-tree already failed badly, is a
    regression (issue 38) and is rerun: the crash may not come every time."""
    p = _pair(recorded.diff(FORWARD), TF_FRAMES)
    assert p.sites[0].cls is Class.HANG
    p.sites[1].cls, p.change = Class.CRASH, Change.REGRESSION
    assert diff.worth_rerunning(p) is True


@pytest.mark.parametrize("how", list(RERUN))
def test_worth_rerunning(how):
    (name, key), cls, change, want = RERUN[how]
    p = _pair(recorded.diff(name), key)
    if cls is not None:
        p.sites[0].cls = cls
    if change is not None:
        p.change = change
    if how == "only-to":
        p.sites[0] = None
    assert diff.worth_rerunning(p) is want


# against(): what a case's DIFF says of the forward diff -> the lines that differ. As the
# PR and the case say: the flush route's start LOST -> SURFACED on each backend; TensorFlow's
# frame route HANG in both (pre-existing); ONNX Runtime's frame route no site.
AS_SAID = {ONNX_FLUSH: {("LOST", "SURFACED"): 1}, TF_FLUSH: {("LOST", "SURFACED"): 1},
           TF_FRAMES: {("HANG", "HANG"): 4}, ONNX_FRAMES: {}}
AGAINST = {
    "as-said": ({}, []),
    "a-site-more": ({TF_FRAMES: {("HANG", "HANG"): 5}},
                    [f"{TF_FRAMES}: got 4 HANG -> HANG, the case says 5 HANG -> HANG"]),
    "another-change": ({ONNX_FLUSH: {("LOST", "SURFACED"): 1, ("HANG", "HANG"): 1}},
                       [f"{ONNX_FLUSH}: got 1 LOST -> SURFACED, the case says 1 HANG -> "
                        "HANG, 1 LOST -> SURFACED"]),
    "a-site-where-none": ({ONNX_FRAMES: {("CLEAN", "CLEAN"): 1}},
                          [f"{ONNX_FRAMES}: got no site, the case says 1 CLEAN -> CLEAN"]),
    "not-run": ({"openvino / dnn_processing / frames / pthread_create": {}},
                ["openvino / dnn_processing / frames / pthread_create: not run"]),
    # ANY: so many sites may come from any class, a named one too (a site that reads what a
    # failed call left unset: HANG most runs, now and then another class)
    "any-of-a-named-class": ({TF_FRAMES: {("HANG", "HANG"): 3, ("ANY", "HANG"): 1}}, []),
    "any-all": ({TF_FRAMES: {("ANY", "HANG"): 4}}, []),
    "any-one-too-many": ({TF_FRAMES: {("HANG", "HANG"): 4, ("ANY", "HANG"): 1}},
                         [f"{TF_FRAMES}: got 4 HANG -> HANG, the case says 1 ANY -> HANG, "
                          "4 HANG -> HANG"]),
    "any-and-a-named-row-not-seen": (
        {TF_FRAMES: {("CLEAN", "HANG"): 3, ("ANY", "HANG"): 1}},
        [f"{TF_FRAMES}: got 4 HANG -> HANG, the case says 1 ANY -> HANG, 3 CLEAN -> HANG"]),
    "any-of-another-to-class": ({TF_FRAMES: {("HANG", "HANG"): 4, ("ANY", "CLEAN"): 1}},
                                [f"{TF_FRAMES}: got 4 HANG -> HANG, the case says 1 ANY -> "
                                 "CLEAN, 4 HANG -> HANG"]),
}


@pytest.mark.parametrize("how", list(AGAINST))
def test_against(how):
    more, says = AGAINST[how]
    assert diff.against(recorded.diff(FORWARD), {**AS_SAID, **more}) == says


def test_against_a_site_only_one_tree_makes():
    d = recorded.diff(FORWARD)
    _pair(d, ONNX_FLUSH).sites[1] = None
    assert diff.against(d, {ONNX_FLUSH: {("LOST", None): 1}}) == []
    assert diff.against(d, AS_SAID)[0] == (f"{ONNX_FLUSH}: got 1 LOST -> None, the case says "
                                           "1 LOST -> SURFACED")
    _pair(d, TF_FLUSH).group = _pair(d, ONNX_FLUSH).group   # two sites, one with no to-site
    assert diff.against(d, {ONNX_FLUSH: {("LOST", None): 2}}) == [
        f"{ONNX_FLUSH}: got 1 LOST -> SURFACED, 1 LOST -> None, the case says 2 LOST -> None"]


def test_judged_a_site_only_the_from_tree_ran():
    """judged() with no run of the to-tree (its call gone): the pair's own change, not an
    error of the judge."""
    assert diff.judged([Class.SURFACED], []) is Change.ONLY_FROM
