"""What a forge shows of a diff (harness/judge/junit.py, harness/judge/annotations.py):
the JUnit XML, a testcase per site and a regression a failure carrying its reproduce line;
in CI one `::error` annotation per regression at the FFmpeg line of its first frame, and
the report in the job's summary. Judged on the real diffs recorded in tests/data/verdicts/
(after -> before: #24760 reverted, its flush site LOST) and on one run now."""

import dataclasses
import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from harness.judge import annotations, junit, schemas
from harness.judge.diff import Change
from harness.judge.sweep import Class
from harness.paths import PROJECT
from tests import recorded

REVERT, FORWARD = "diff-after-before", "diff-before-after"  # after -> before, and back
CI = {"GITHUB_ACTIONS": "true"}


def parse(text: str):
    suite = ET.fromstring(text)
    return suite, {tc.get("name"): tc for tc in suite.iter("testcase")}


@pytest.mark.unit
def test_a_regression_is_a_failure_with_its_reproduce_line():
    d = recorded.diff(REVERT)
    (p,) = d.pairs
    suite, cases = parse(junit.junit(d, "FAIL"))
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "1", "0")
    assert {e.get("name"): e.get("value") for e in suite.iter("property")} == \
        {"verdict": "FAIL", "from": "after", "to": "before"}
    (tc,) = cases.values()
    assert tc.get("classname").endswith(".onnx.dnn_processing")
    assert tc.get("name") == f"onnx / dnn_processing / flush / pthread_create / {p.place}"
    failure = tc.find("failure")
    assert failure.get("type") == "regression"
    assert failure.get("message").startswith("regression: SURFACED -> LOST at ff_dnn_start")
    assert f"reproduce: {p.sites[1].command}" in failure.get("message")
    assert p.sites[1].command.startswith("python -m harness run --build ")
    assert f"reproduce: {p.sites[1].command}" in failure.text


@pytest.mark.unit
def test_every_site_is_a_testcase_and_only_a_regression_fails():
    """before -> after: two fixes pass, four sites that hang in both trees are blind."""
    d = recorded.diff(FORWARD)
    suite, cases = parse(junit.junit(d, "PASS"))
    assert len(cases) == len(d.pairs) == 6
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("0", "0", "4")
    out = [tc.find("system-out").text.split(":")[0] for tc in cases.values()
           if tc.find("system-out") is not None]
    assert out == ["fix", "fix"]
    assert all(tc.find("skipped").get("message").startswith("blind: HANG -> HANG: no run of")
               for tc in cases.values() if tc.find("skipped") is not None)


@pytest.mark.unit
def test_errors_blind_flaky_census_and_case():
    d = recorded.diff(FORWARD)
    fix, *_ = [i for i, p in enumerate(d.pairs) if p.change is Change.FIX]
    d.pairs = [dataclasses.replace(d.pairs[fix], change=Change.ERROR),
               dataclasses.replace(d.pairs[fix], seen=[[Class.HANG], [Class.CRASH]]),
               dataclasses.replace(d.pairs[fix], change=Change.FLAKY,
                                   seen=[[Class.SURFACED], [Class.SURFACED, Class.HANG]])]
    d.groups[0].errors = ["", "ERROR: the worker died"]
    text = junit.junit(d, "FAIL", ["onnx / x / flush / y: not run"], "mine")
    suite, _ = parse(text)
    tags = [next(iter(tc)).tag for tc in suite.iter("testcase")]
    assert tags == ["error", "skipped", "skipped", "error", "failure"]
    skipped = [tc.find("skipped").get("message") for tc in suite.iter("testcase")
               if tc.find("skipped") is not None]
    assert skipped == ["blind: HANG -> CRASH: no run of either tree ended, what the change "
                       "does cannot show", "flaky, not judged: SURFACED -> SURFACED/HANG"]
    assert (suite.get("tests"), suite.get("errors"), suite.get("skipped"),
            suite.get("failures")) == ("5", "2", "2", "1")
    assert "not as case mine says: onnx / x / flush / y: not run" in text


@pytest.mark.unit
def test_one_annotation_per_regression_at_its_first_frame():
    d = recorded.diff(REVERT)
    (p,) = d.pairs
    (line,) = annotations.lines(d, {})
    head, message = line.split("::", 2)[1:]
    assert head == ("error file=libavfilter/dnn/dnn_backend_common.c,line=147,"
                    "title=fault regression%3A onnx / dnn_processing / flush / pthread_create")
    assert p.sites[1].where.startswith("ff_dnn_start_inference_async (dnn_backend_common.c:147)")
    assert message.startswith("SURFACED -> LOST when this call fails (after -> before): ")
    assert "%0Areproduce: python -m harness run --build " in message and "\n" not in line
    assert annotations.lines(recorded.diff(FORWARD), {}) == [], "a fix is no annotation"


@pytest.mark.unit
@pytest.mark.parametrize("where, paths, want", [
    # the harness's own module (_ffdnn.c) is no FFmpeg file: the next frame that is
    ("standin_flush (_ffdnn.c:802) < flush_frame (vf_dnn_processing.c:259)",
     {"vf_dnn_processing.c": "libavfilter/vf_dnn_processing.c"},
     ("libavfilter/vf_dnn_processing.c", 259)),
    ("f (a.c:1) < g (b.c:2)", {"a.c": "x/a.c", "b.c": "x/b.c"}, ("x/a.c", 1)),
    ("f (a.c) < g (b.c:2)", {"a.c": "x/a.c", "b.c": "x/b.c"}, ("x/b.c", 2)),
    ("f (a.c:1)", {}, None),
])
def test_the_first_frame_in_ffmpegs_source(where, paths, want):
    assert annotations.place(where, paths) == want


@pytest.mark.unit
def test_a_file_the_paths_do_not_name_is_annotated_without_a_place():
    d = recorded.diff(REVERT)
    d.touched = dataclasses.replace(d.touched, paths=())
    (line,) = annotations.lines(d, {})  # the tree's source is not on this machine
    assert line.startswith("::error title=fault regression%3A onnx / ")


@pytest.mark.unit
def test_annotations_and_summary_only_in_ci(tmp_path):
    d = recorded.diff(REVERT)
    summary = tmp_path / "summary.md"
    summary.write_text("# before\n")
    for env, printed in (({}, 0), (CI, 1), ({"FORGEJO_ACTIONS": "true"}, 1),
                         ({"GITHUB_ACTIONS": ""}, 0)):
        out = io.StringIO()
        annotations.publish(d, "## report\n", {**env, "GITHUB_STEP_SUMMARY": str(summary)}, out)
        assert len(out.getvalue().splitlines()) == printed, env
    assert summary.read_text() == "# before\n" + "## report\n" * 4, "appended, each time"


def harness(*args, env=None):
    import os
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=PROJECT,
                          capture_output=True, text=True, env={**os.environ, **(env or {})})


@pytest.mark.onnx
@pytest.mark.before
@pytest.mark.after
def test_the_revert_in_ci(tree, tmp_path):
    """#24760 reverted (after -> before) in a CI job: exit 1; the JUnit file, the
    annotation at dnn_backend_common.c's pthread_create() line, the job summary."""
    tree("before"), tree("after")
    files = {k: tmp_path / f"diff.{k}" for k in ("json", "xml")}
    summary = tmp_path / "summary.md"
    r = harness("diff", "--from", "after", "--to", "before", "--fault", "pthread_create",
                "--route", "flush", "--backend-name", "onnx", "--filter", "dnn_processing",
                "--json", str(files["json"]), "--junit", str(files["xml"]),
                env={**CI, "GITHUB_STEP_SUMMARY": str(summary)})
    assert r.returncode == 1, r.stderr[-2000:]
    d = json.loads(files["json"].read_text())
    assert schemas.problem(d) is None
    # the one call, failed with each errno of pthread_create()'s profile: a site each
    sites = d["sites"]
    assert sorted(s["value"] for s in sites) == ["EAGAIN", "EINVAL", "EPERM"]
    assert {s["change"] for s in sites} == {"regression"}
    (where,) = {s["to"]["where"] for s in sites}
    line = where.split("dnn_backend_common.c:", 1)[1].split(")")[0]
    errors = [l for l in r.stdout.splitlines() if l.startswith("::error ")]
    assert errors == [l for l in r.stdout.splitlines() if l.startswith("::")]
    assert len(errors) == 3 and all(e.startswith(
        f"::error file=libavfilter/dnn/dnn_backend_common.c,line={line},title=")
        for e in errors)
    suite, cases = parse(files["xml"].read_text())
    assert len(cases) == 3
    for site in sites:
        assert any(tc.find("failure").get("message").endswith(
            f"reproduce: {site['to']['reproduce']}") for tc in cases.values())
    report = r.stdout.split("\n::error", 1)[0]
    assert summary.read_text().strip() == report.strip()
    assert report.startswith("## Fault sweep diff: after -> before")
