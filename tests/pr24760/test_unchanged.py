"""The series changes no output: the ffmpeg program of before and after gives the same
MD5s, and the check can fail (a different model through one build is caught)."""

import pytest

from harness.cases import pr24760 as expected
from harness.experiments import unchanged as u
from harness.judge.unchanged import Row, problems

pytestmark = [pytest.mark.onnx, pytest.mark.dnn_processing]


@pytest.fixture(scope="module")
def builds(tree):
    return [tree("before"), tree("after")]


@pytest.fixture(scope="module")
def short_clip(builds):
    return u.clip(builds[0], u.SHORT_CLIP)


def test_identity_md5_same_before_and_after(builds):
    chain = u.processing_chain("onnx")
    runs = [u.identity_md5(t, chain) for t in builds]
    assert [r.exit for r in runs] == [0, 0]
    assert runs[0].md5 == runs[1].md5 != ""
    assert runs[0].md5 == expected.IDENTITY_MD5, "the PR's MD5: testsrc 64x64, 10 frames, rgb24"
    plain = u.identity_md5(builds[0], "format=rgb24")
    assert plain.md5 == runs[0].md5, "an identity model changes no pixel"


def test_identity_md5_every_backend(builds):
    """The PR: the same MD5, exit 0, for both builds on each backend (identity models)."""
    identity, _ = u.plan_rows(builds[0].backends)
    u.run_rows(builds, identity, [], None)
    assert problems(identity, []) == []
    assert {r.md5 for row in identity for r in row.runs.values()} == {expected.IDENTITY_MD5}


def test_whole_clip_same_before_and_after(builds, short_clip):
    """Every row: before == after, exit 0; every filtered MD5 differs from the no-filter
    one and from each other; the constant detector gives one box a frame, classify a
    label a box."""
    _, rows = u.plan_rows(builds[0].backends)
    u.run_rows(builds, [], rows, short_clip)
    assert problems([], rows) == []
    first = {row.label + row.backend: next(iter(row.runs.values())) for row in rows}
    assert {r.frames for r in first.values()} == {4}, "fps=2 over 50 frames at 25 fps"
    for key, r in first.items():
        if "dnn_detect" in key:
            assert r.boxes == r.frames
        assert r.labels == (r.boxes if "dnn_classify" in key else 0)


def test_the_check_can_fail(builds, short_clip):
    row = Row("`dnn_processing`", "onnx, mixed", "")
    conv, ident = u.processing_chain("onnx", identity=False), u.processing_chain("onnx")
    row.runs["before"] = u.showinfo_md5(builds[0], short_clip, conv)
    row.runs["after"] = u.showinfo_md5(builds[1], short_clip, ident)
    assert row.runs["before"].md5 != row.runs["after"].md5
    assert problems([], [row]) == ["`dnn_processing` (onnx, mixed): MD5 differs between builds"]
