"""#24702's commits 1 (ASan) and 2 (TSan), base against before, each through the sanitizer
variant's own ffmpeg_g; the expected rows are harness/cases/pr24760/'s SANITIZER_CLAIMS. The
report parser is tested on report text captured from those runs (tests/data/)."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.cases import pr24760 as expected
from harness.cases.pr24760 import LAYOUT
from harness.experiments import sanitizer
from harness.judge import sanreport, sanverdict
from harness.obtain import derived
from harness.obtain.build import git
from harness.errors import HarnessError
from harness.obtain.backends import BACKENDS

DATA = Path(__file__).resolve().parents[1] / "data"
CLAIM = {c.commit: c for c in expected.SANITIZER_CLAIMS}
MARK = {name: b.marker for name, b in BACKENDS.items()}


def reports(name: str) -> list:
    return sanreport.parse((DATA / f"{name}.txt").read_text())


@pytest.mark.unit
@pytest.mark.sanitizer
def test_asan_report_parsed():
    first, copy_in, copy_out = reports("asan-commit1-base")
    assert (first.tool, first.kind) == ("AddressSanitizer", "stack-buffer-overflow")
    assert (first.function, first.where) == ("scale_internal", "libswscale/swscale.c:1089")
    (stack,) = first.stacks  # the thread-creation stack is not an access
    assert (stack.what, stack.who) == ("READ of size 8", "thread T7 (vf#0:0)")
    own = [f.function for f in first.ffmpeg_frames()]
    assert own[:4] == ["scale_internal", "sws_scale", "ff_proc_from_frame_to_dnn",
                       "fill_model_input_onnx"]
    assert "start_thread" not in own  # glibc's frame is not FFmpeg's
    # ASan says the read overflows middle_data; for memcpy's 32-byte read it names the
    # next object ("partially underflows 'linesize'"): the parser takes the one whose end
    # is the bad offset, middle_data again, in the frame of each caller
    assert [(r.variable, r.frame) for r in (first, copy_in, copy_out)] == [
        ("middle_data", "ff_proc_from_frame_to_dnn"), ("middle_data", "ff_proc_from_frame_to_dnn"),
        ("middle_data", "ff_proc_from_dnn_to_frame")]
    assert copy_out.function == "__interceptor_memcpy"
    assert copy_out.brief() == (
        "stack-buffer-overflow in scale_internal() libswscale/swscale.c:1092 "
        "(__interceptor_memcpy), from sws_scale() <- ff_proc_from_dnn_to_frame(), "
        "on 'middle_data'")


@pytest.mark.unit
@pytest.mark.sanitizer
def test_tsan_race_parsed():
    race, other = reports("tsan-commit2-base")
    assert (race.tool, race.kind) == ("ThreadSanitizer", "data race")
    assert [s.what for s in race.stacks] == ["Write of size 4", "Previous read of size 4"]
    assert [str(s.frames[0]) for s in race.stacks] == [
        "infer_completion_callback libavfilter/dnn/dnn_backend_tf.c:746",
        "ff_dnn_get_result_common libavfilter/dnn/dnn_backend_common.c:153"]
    assert race.stacks[1].who == "thread T9"
    assert race.variable == ""  # TSan does not name it; the judge reads the source line
    assert other.function == "free" and other.ffmpeg_frames()[0].function == "av_free"


@pytest.mark.unit
@pytest.mark.sanitizer
def test_tsan_before_has_only_the_queue_size_race():
    (r,) = reports("tsan-commit2-before")
    assert r.brief() == ("data race: ff_queue_size() libavfilter/dnn/queue.c:90 vs "
                         "ff_queue_push_back() libavfilter/dnn/queue.c:146")
    # the completion callback is in it (it pushes its request back), the reader is not
    assert "infer_completion_callback" in r.functions()
    assert "ff_dnn_get_result_common" not in r.functions()
    assert not sanverdict.matches(CLAIM[2], r, tree=None)


@pytest.mark.unit
@pytest.mark.sanitizer
def test_matches_names_the_variable():
    r = reports("asan-commit1-base")[0]
    assert sanverdict.matches(CLAIM[1], r, tree=None)
    other = sanreport.Report(r.tool, r.kind, r.stacks, "linesize", r.frame)
    assert not sanverdict.matches(CLAIM[1], other, tree=None)
    assert not sanverdict.matches(CLAIM[2], r, tree=None)


@pytest.mark.unit
@pytest.mark.sanitizer
def test_judge_needs_runs_that_finished():
    """The verdict from the captured base report and made-up before runs: no report
    counts only from a run that wrote its output; a timeout never reproduces."""
    def run(name, code, found=(), md5="", tail=()):
        return sanitizer.Run(SimpleNamespace(name=name), "ffmpeg_g ...", code, 0.1,
                             list(found), md5, list(tail))
    base = run("base-asan", 1, reports("asan-commit1-base"))
    clean = run("before-asan", 0, md5=expected.IDENTITY_MD5)
    failed = run("before-asan", 1, tail=["Failed to load model"])
    assert sanverdict.judge(CLAIM[1], base, clean)["verdict"] == "reproduces"
    assert sanverdict.judge(CLAIM[1], base, failed)["verdict"] == (
        "does not reproduce: before-asan did not run the graph to its end "
        "(exit 1: Failed to load model)")
    assert sanverdict.judge(CLAIM[1], clean, clean)["verdict"].startswith(
        "does not reproduce: base has no stack-buffer-overflow report on middle_data")
    assert sanverdict.judge(CLAIM[1], base, run("before-asan", None))["verdict"] == \
        "does not reproduce: a run timed out"
    one_path = run("base-asan", 0, reports("asan-commit1-base")[:2], expected.IDENTITY_MD5)
    assert sanverdict.judge(CLAIM[1], one_path, clean)["verdict"] == (
        "does not reproduce: base has no such report through ff_proc_from_dnn_to_frame()")
    row = sanverdict.judge(CLAIM[1], base, clean)
    assert row["base"] == ("3 reports, first: stack-buffer-overflow in scale_internal() "
                           "libswscale/swscale.c:1089, from sws_scale() <- "
                           "ff_proc_from_frame_to_dnn(), on 'middle_data'; through "
                           "ff_proc_from_frame_to_dnn() 2x, ff_proc_from_dnn_to_frame() 1x; "
                           "exit 1")
    assert row["before"] == "no such report; exit 0"


@pytest.mark.unit
@pytest.mark.sanitizer
def test_no_report_in_plain_output():
    assert sanreport.parse("MD5=eadd543ed2bc6e4e16e9295f92a11f5c\n==1==WARNING: other\n") == []


@pytest.mark.unit
@pytest.mark.sanitizer
def test_unknown_sanitizer_is_one_error():
    with pytest.raises(HarnessError, match="unknown sanitizer 'msan'"):
        sanitizer.plan("msan", LAYOUT)


@pytest.fixture(scope="module")
def runs():
    """(claim id, build) -> sanitizer.Run, each run once per test process."""
    found = {}

    def get(claim, build):
        if (claim.id, build) not in found:
            try:
                t = sanitizer.trees(claim.sanitizer, LAYOUT)[build]
            except HarnessError as e:
                pytest.skip(f"{e}; make sanitizers builds every variant")
            found[claim.id, build] = sanitizer.run(claim, t)
        r = found[claim.id, build]
        stops = sanverdict.stopped(r)
        if stops:  # measured nothing the claim is about: said, with the runtime's words
            pytest.skip(f"not measurable with this toolchain ({r.tree.stamp.get('compiler')}): "
                        f"{r.tree.name} stopped by {stops[0].brief()}")
        return r
    return get


def _marks(claim, *extra):
    return [pytest.mark.sanitizer, getattr(pytest.mark, f"commit{claim.commit}"),
            getattr(pytest.mark, MARK[claim.backend]), *extra]


def _params():
    for c in expected.SANITIZER_CLAIMS:
        for build in ("base", "before"):
            yield pytest.param(c, build, id=f"{c.id}-{build}",
                               marks=_marks(c, getattr(pytest.mark, build)))


@pytest.mark.parametrize("claim, build", list(_params()))
def test_sanitizer_claim(runs, claim, build):
    r = runs(claim, build)
    assert r.exit is not None, f"timed out: {r.command}"
    hits = [x for x in r.reports if sanverdict.matches(claim, x, r.tree)]
    if build == "base":
        for caller in claim.base["callers"] or [None]:  # every path the claim names
            assert [x for x in hits if caller is None or caller in x.functions()], (
                f"no {claim.base['kind']} on {claim.base['variable']} through {caller}: "
                f"{[x.brief() for x in r.reports]} {r.stderr_tail}")
    else:
        assert hits == [], [x.brief() for x in hits]
    if claim.sanitizer == "asan":
        # "the output is unaffected": every frame out, the PR's identity MD5, in both
        # builds (the ASan build recovers); before has no report at all
        assert r.md5 == expected.IDENTITY_MD5, r.stderr_tail
        assert r.exit == 0 and (build == "base" or r.reports == []), r.stderr_tail


@pytest.mark.parametrize("claim", [pytest.param(c, id=c.id, marks=_marks(c))
                                   for c in expected.SANITIZER_CLAIMS])
def test_claim_row(runs, claim):
    """The row the claims table shows, and that its verdict is measured: with base and
    before swapped the same judge says the claim does not reproduce."""
    base, before = runs(claim, "base"), runs(claim, "before")
    row = sanverdict.judge(claim, base, before)
    assert set(row) == {"commit", "id", "claim", "base", "before", "verdict"}
    assert (row["commit"], row["id"], row["verdict"]) == (claim.commit, claim.id, "reproduces")
    assert sanverdict.judge(claim, before, base)["verdict"].startswith("does not reproduce: ")


COMMIT1 = "avfilter/dnn: fix single-pointer arrays passed as 4-plane"
COMMON = "libavfilter/dnn/dnn_backend_common.c"


def _without_locks(text: str) -> str:
    lines = [l for l in text.splitlines(True) if "(&task_completion_lock);" not in l]
    assert len(lines) == len(text.splitlines(True)) - 4, "commit 2's four lock calls"
    return "".join(lines)


def _revert(tree, commit: int):
    """before with one commit undone, ffmpeg_g relinked (a cache entry of its own,
    harness/obtain/derived.py, built once and then reused): commit 1 with `git revert` (it
    reverts cleanly), commit 2 by deleting its lock calls (commit 3 rewrites the lines
    around them, so `git revert` conflicts); the lock is all commit 2 adds to the reader."""
    label = f"without-{commit}"
    if commit == 1:
        sha = git(tree.src, "log", "--format=%H", "--fixed-strings",
                  f"--grep={COMMIT1}").stdout.split()
        undone = derived.without_commit(tree, label, COMMIT1, "ffmpeg_g")
        assert undone.stamp["derived"]["change"] == f"git revert {sha[0]}"
    else:
        undone = derived.edited(tree, label, COMMON, _without_locks, "ffmpeg_g")
        assert (undone.src / COMMON).read_text() == _without_locks((tree.src / COMMON).read_text())
    return undone


@pytest.mark.parametrize("claim", [pytest.param(c, id=c.id, marks=_marks(c))
                                   for c in expected.SANITIZER_CLAIMS])
def test_reverted_fix_reports_again(runs, claim):
    """before with the claim's commit undone (and ffmpeg_g relinked) reports again: the
    test of before is one that can fail."""
    base, before = runs(claim, "base"), runs(claim, "before")
    undone = _revert(before.tree, claim.commit)
    row = sanverdict.judge(claim, base, sanitizer.run(claim, undone))
    assert row["verdict"].startswith("does not reproduce: before still reports it"), row


@pytest.mark.unit
@pytest.mark.sanitizer
def test_runtime_check_failure_is_named_not_unfinished():
    """gcc 14's ASan stops at pthread_join() of a never-started thread in
    ff_dnn_async_module_cleanup() (FFmpeg's defect, issue 13). The report keeps the
    runtime's own line and the FFmpeg frame; the verdict says what was not measured
    instead of "did not run the graph to its end". The report is base-asan's own, captured
    on Debian trixie (gcc 14.2): it stops while ffmpeg probes the graph, before a frame."""
    (check,) = reports("asan-check-trixie-base")
    assert check.kind == sanreport.CHECK_KIND
    assert check.brief() == (
        'AddressSanitizer: CHECK failed: sanitizer_thread_arg_retval.cpp:56 "((t)) != (0)" '
        "(0x0, 0x0) (tid=5399) in pthread_join() < ff_dnn_async_module_cleanup() "
        "libavfilter/dnn/dnn_backend_common.c:94 < destroy_request_item() < "
        "dnn_free_model_onnx()")

    def run(name, found, code=1):
        return sanitizer.Run(SimpleNamespace(name=name), "ffmpeg_g ...", code, 0.1,
                             list(found), "", ["Using CPU execution provider"])
    base = run("base-asan", reports("asan-commit1-base") + [check])
    before = run("before-asan", [check])
    row = sanverdict.judge(CLAIM[1], base, before)
    assert row["verdict"].startswith(
        "not measured on this toolchain: base-asan stopped in the sanitizer's own check, "
        'not at a report of the claim (AddressSanitizer: CHECK failed: '
        'sanitizer_thread_arg_retval.cpp:56'), row
    assert "ff_dnn_async_module_cleanup() libavfilter/dnn/dnn_backend_common.c:94" in row["verdict"]
    assert "(base had 3 such reports, before 0 before that)" in row["verdict"], row
    assert "did not run the graph to its end" not in row["verdict"]
    assert "stopped by AddressSanitizer: CHECK failed" in row["before"]
    # what trixie really gives: both runs stop before a frame, nothing of the claim seen
    row = sanverdict.judge(CLAIM[1], run("base-asan", [check]), run("before-asan", [check]))
    assert row["verdict"].endswith("(base had 0 such reports, before 0 before that)"), row



@pytest.mark.unit
@pytest.mark.sanitizer
def test_tsan_check_failure_with_build_ids():
    """gcc 14's TSan stops at the same join (captured on trixie, base-tsan, TensorFlow);
    its frames end in `(BuildId: ...)`, which the frame parser reads past."""
    (check,) = reports("tsan-check-trixie-base")
    assert check.brief() == (
        'ThreadSanitizer: CHECK failed: sanitizer_thread_registry.cpp:348 "((t)) != (0)" '
        "(0x0, 0x0) (tid=26498) in pthread_join() < ff_dnn_async_module_cleanup() "
        "libavfilter/dnn/dnn_backend_common.c:94 < destroy_request_item() < "
        "dnn_free_model_tf()")
