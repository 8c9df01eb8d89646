"""`python -m harness diff` (issue 16): the verdict rule, the pairing of sites by place,
bad input, and real diffs: base -> before fixes every ONNX Runtime post-processing site
(#24702's commit 3), a patch that drops that check again (written here, applied with
--patch on after) regresses them and exits 1, and the HTML page of that diff, rendered
by real headless chromium, shows the grid."""

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.errors import ExitStatus
from harness.judge.pairing import pair_plan
from harness.judge import diff, diffreport, schemas
from harness.judge.diff import Change
from harness.judge.sweep import Class
from harness.obtain.tree import Tree
from harness.paths import PROJECT
from tests import screenshot
from tests.conftest import BACKENDS

# The verdict rule, as issue 16 states it: "a site that goes from SURFACED or CLEAN to
# LOST, DROPPED, ALTERED, HANG or CRASH is a regression; one that goes the other way is a
# fix; a site present in one tree only is listed as such". ERROR is not judged.
CHANGES = [
    ("SURFACED", "ALTERED", Change.REGRESSION), ("CLEAN", "HANG", Change.REGRESSION),
    ("SURFACED", "LOST", Change.REGRESSION), ("CLEAN", "DROPPED", Change.REGRESSION),
    ("SURFACED", "CRASH", Change.REGRESSION),
    # worse is worse (issue 38): a new crash is a regression whatever the site did
    ("HANG", "CRASH", Change.REGRESSION), ("ALTERED", "CRASH", Change.REGRESSION),
    ("LOST", "CRASH", Change.REGRESSION), ("CRASH", "HANG", Change.CHANGED),
    ("HANG", "SURFACED", Change.FIX), ("ALTERED", "SURFACED", Change.FIX),
    ("LOST", "CLEAN", Change.FIX), ("CRASH", "SURFACED", Change.FIX),
    ("SURFACED", "CLEAN", Change.CHANGED), ("HANG", "ALTERED", Change.CHANGED),
    ("HANG", "HANG", Change.SAME), ("SURFACED", "SURFACED", Change.SAME),
    ("CRASH", "CRASH", Change.SAME),
    # a call only the to-tree makes is judged against the classes that do no harm
    (None, "HANG", Change.REGRESSION), (None, "CRASH", Change.REGRESSION),
    (None, "LOST", Change.REGRESSION), (None, "ALTERED", Change.REGRESSION),
    (None, "DROPPED", Change.REGRESSION), (None, "SURFACED", Change.ONLY_TO),
    (None, "CLEAN", Change.ONLY_TO), ("SURFACED", None, Change.ONLY_FROM),
    ("HANG", None, Change.ONLY_FROM), (None, "ERROR", Change.ERROR),
    ("ERROR", "SURFACED", Change.ERROR), ("SURFACED", "ERROR", Change.ERROR),
]

# Drops #24702's commit 3 check again in after: ONNX Runtime's completion callback
# completes the task as a success whatever ff_proc_from_dnn_to_frame() returned.
DROP_CHECK = """\
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: ffdnn <ffdnn@localhost>
Date: Sat, 1 Jan 2000 00:00:00 +0000
Subject: [PATCH] avfilter/dnn_backend_onnx: ignore the post-processing result

A regression made on purpose (tests/engine/test_diff.py).
---
 libavfilter/dnn/dnn_backend_onnx.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/libavfilter/dnn/dnn_backend_onnx.c b/libavfilter/dnn/dnn_backend_onnx.c
--- a/libavfilter/dnn/dnn_backend_onnx.c
+++ b/libavfilter/dnn/dnn_backend_onnx.c
@@ -609,7 +609,7 @@ static void infer_completion_callback(void *args)
 
     av_free(dims);
     g_ort->ReleaseTensorTypeAndShapeInfo(tensor_info);
-    ff_dnn_complete_lltask(task, ret);
+    ff_dnn_complete_lltask(task, 0);
 
 err:
     av_freep(&request->lltask);
--\x20
2.39.5

"""
# one site per call (--values one): these tests are about pairing, verdicts and reports;
# every value of the profile is tests/pr24760/test_profiles.py's
ONE_FAMILY = ("--backend-name", "onnx", "--filter", "dnn_processing", "--route", "frames",
              "--fault", "wrap:ff_proc_from_dnn_to_frame", "--confirm", "1", "--values", "one")
POST_PROC = "infer_completion_callback (dnn_backend_onnx.c) < execute_model_onnx"


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", "diff", *args], cwd=PROJECT,
                          capture_output=True, text=True)


def no_traceback(r):
    assert "Traceback" not in r.stderr, r.stderr[-2000:]


@pytest.mark.unit
@pytest.mark.parametrize("a, b, want", CHANGES,
                         ids=[f"{a}-{b}".lower() for a, b, _ in CHANGES])
def test_verdict_rule(a, b, want):
    assert diff.change(a and Class(a), b and Class(b)) is want


@pytest.mark.unit
def test_an_error_logged_and_not_returned_is_no_recovery():
    """SURFACED -> CLEAN is changed otherwise (a patch may recover), a regression when
    every to-tree run logged an error at AV_LOG_ERROR (said and dropped); not when one
    run logged none, nor when the from-tree did not surface it in every run."""
    S, C = Class.SURFACED, Class.CLEAN
    line = ["[dnn_processing @ 0x1] could not get input from the model"]
    assert diff.dropped_error([S, S], [C, C], [line, line])
    assert not diff.dropped_error([S, S], [C, C], [line, []])
    assert not diff.dropped_error([S, C], [C, C], [line, line])
    assert not diff.dropped_error([S], [Class.LOST], [line])
    assert diff.with_dropped_error(diff.change(S, C), True) is Change.REGRESSION
    assert diff.with_dropped_error(diff.change(S, C), False) is Change.CHANGED
    assert diff.with_dropped_error(Change.FIX, True) is Change.FIX
    assert diff.with_dropped_error(Change.FLAKY, True) is Change.FLAKY


@pytest.mark.unit
def test_a_sites_verdict_reads_what_its_runs_left_and_logged():
    """A pair's dropped error is read from its own runs: the from-tree's classes, the
    to-tree's classes and the to-tree's lines (Pair.dropped); its verdict takes the leak
    and the dropped error in (diff.with_what_ran()), each alone enough."""
    line = ["[dnn_processing @ 0x1] could not get input from the model"]
    p = _diff([("SURFACED", "CLEAN")]).pairs[0]
    assert p.change is Change.CHANGED and not p.dropped
    p.said = [[[]], [line]]
    assert p.dropped and diff.with_what_ran(p.change, p) is Change.REGRESSION
    p.said = [[line], [[]]]  # the from-tree said it, the to-tree said nothing
    assert not p.dropped and diff.with_what_ran(p.change, p) is Change.CHANGED
    p.seen = [[Class.SURFACED], [Class.CLEAN, Class.SURFACED]]  # the to-tree not clean
    p.said = [[[]], [line, line]]
    assert not p.dropped
    p.seen = [[Class.SURFACED, Class.CLEAN], [Class.CLEAN]]  # the from-tree not steady
    p.said = [[[], []], [line]]
    assert not p.dropped
    q = _diff([("SURFACED", "SURFACED")]).pairs[0]
    q.leaked = [[0], [1]]
    assert diff.with_what_ran(q.change, q) is Change.REGRESSION
    q.leaked = [[1], [1]]
    assert diff.with_what_ran(q.change, q) is Change.SAME
    assert diff.with_what_ran(Change.FLAKY, q) is Change.FLAKY


# A site whose class changed is run again on both sides (--confirm): every class each
# tree showed. A tree that never failed badly against one that did, even once, is still a
# regression; both trees unsteady is flaky, not judged (measured: two ONNX Runtime malloc
# sites in extract_lltask_from_task hang in some runs and not in others, in both trees).
SEEN = [
    (["SURFACED"] * 3, ["ALTERED"] * 3, Change.REGRESSION),
    (["SURFACED"] * 3, ["HANG", "SURFACED", "SURFACED"], Change.REGRESSION),
    (["HANG"] * 3, ["SURFACED"] * 3, Change.FIX),
    (["SURFACED", "HANG", "HANG"], ["HANG", "HANG", "SURFACED"], Change.FLAKY),
    (["HANG", "HANG", "HANG"], ["HANG", "SURFACED", "HANG"], Change.FLAKY),
    (["SURFACED", "SURFACED", "SURFACED"], ["SURFACED", "ERROR", "SURFACED"], Change.ERROR),
    (["HANG"] * 3, ["ALTERED"] * 3, Change.CHANGED),
    (["HANG"] * 3, ["HANG", "CRASH", "HANG"], Change.REGRESSION),  # a crash, even once
    (["CRASH", "HANG"], ["CRASH", "HANG"], Change.FLAKY),
    ([], ["SURFACED", "HANG"], Change.REGRESSION),  # a new call, failing badly once
    ([], ["SURFACED"] * 3, Change.ONLY_TO),
]


@pytest.mark.unit
@pytest.mark.parametrize("a, b, want", SEEN, ids=[w.value + str(i) for i, (*_, w) in
                                                   enumerate(SEEN)])
def test_verdict_after_reruns(a, b, want):
    assert diff.judged([Class(c) for c in a], [Class(c) for c in b]) is want


def site(where, cls, index=0):
    result = SimpleNamespace(outcome=SimpleNamespace(value="MEASURED"), reason="", seconds=0.1)
    return SimpleNamespace(where=where, cls=Class(cls), index=index, command=f"run {index}",
                           result=result)


def paired(a: list, b: list) -> list:
    """The sites of two sides as harness/experiments/diff.py's run() pairs them (pair_plan on
    their calls): (place, nth, the two sites, their change)."""
    by = [{s.index: s for s in sites} for sites in (a, b)]
    out = []
    for p, n, idx in pair_plan([[(s.index, s.where) for s in sites] for sites in (a, b)]):
        two = [by[i][x] if x is not None else None for i, x in enumerate(idx)]
        out.append((p, n, two, diff.change(*(s.cls if s else None for s in two))))
    return out


@pytest.mark.unit
def test_sites_pair_by_place_not_line():
    """Moved code keeps its pairs; the n-th call at a place pairs with the n-th; a call
    made at a new place is in one tree only, judged against the classes that do no harm
    (its error lost: a regression)."""
    a = [site("f (x.c:10) < g (x.c:20)", "SURFACED", 0), site("h (y.c:5)", "HANG", 1),
         site("f (x.c:10) < g (x.c:20)", "CLEAN", 2)]
    b = [site("h (y.c:7)", "SURFACED", 0), site("f (x.c:12) < g (x.c:22)", "SURFACED", 1),
         site("f (x.c:12) < g (x.c:22)", "ALTERED", 2), site("new (z.c:1)", "LOST", 3)]
    got = [(p, n, c) for p, n, _, c in paired(a, b)]
    assert got == [("f (x.c) < g (x.c)", 0, Change.SAME),
                   ("f (x.c) < g (x.c)", 1, Change.REGRESSION),
                   ("h (y.c)", 0, Change.FIX), ("new (z.c)", 0, Change.REGRESSION)]


@pytest.mark.unit
def test_a_new_call_beside_another_shifts_nothing():
    """A call the change adds at the same place as another (the same function and callers,
    a few lines on) is a call of its own: the calls that were there pair with themselves,
    by their lines moved through the change's hunks, and the new one is only in the
    to-tree, each frame's."""
    from harness.judge.touched import parse
    change = parse("diff --git a/d/x.c b/d/x.c\n--- a/d/x.c\n+++ b/d/x.c\n"
                   "@@ -20,0 +21,3 @@ static void cb(void)\n+a\n+b\n+c\n")
    old, new, later = "cb (x.c:18) < run (y.c:5)", "cb (x.c:22) < run (y.c:5)", "cb (x.c:30)"
    a = [(0, old), (1, later), (2, old), (3, later)]
    b = [(0, old), (1, new), (2, "cb (x.c:33)"), (3, old), (4, new), (5, "cb (x.c:33)")]
    got = [(n, idx) for _, n, idx in pair_plan([a, b], change.map_where)]
    assert got == [(0, [0, 0]), (1, [2, 3]), (2, [None, 1]), (3, [None, 4]),
                   (0, [1, 2]), (1, [3, 5])]


@pytest.mark.unit
def test_a_site_keeps_its_identity_when_inlining_changes():
    """A patch that changes what the compiler inlines (or puts a function between a call
    and its callers) changes the frames above the call, not where it is made: the calls
    pair by their innermost frame once their places differ (measured: one new allocation
    in dnn_execute_model_onnx() made its callee show up in the stacks of the to-tree;
    follow-up 0007's th_start_inference_async() under the LibTorch forward)."""
    a = [site("extract_lltask_from_task (dnn_backend_onnx.c:102) < ff_dnn_execute_model "
              "(dnn_filter_common.c:203)", "SURFACED", 0),
         site("fill_model_input_onnx (dnn_backend_onnx.c:380)", "SURFACED", 1)]
    b = [site("extract_lltask_from_task (dnn_backend_onnx.c:104) < dnn_execute_model_onnx "
              "(dnn_backend_onnx.c:1072) < ff_dnn_execute_model (dnn_filter_common.c:203)",
              "CRASH", 0),
         site("new_call (dnn_backend_onnx.c:1070) < ff_dnn_execute_model "
              "(dnn_filter_common.c:203)", "CRASH", 1),
         site("fill_model_input_onnx (dnn_backend_onnx.c:382)", "SURFACED", 2)]
    got = [(p.split(" < ")[0], [s and s.index for s in two], c) for p, _, two, c in paired(a, b)]
    assert got == [("extract_lltask_from_task (dnn_backend_onnx.c)", [0, 0], Change.REGRESSION),
                   ("fill_model_input_onnx (dnn_backend_onnx.c)", [1, 2], Change.SAME),
                   ("new_call (dnn_backend_onnx.c)", [None, 1], Change.REGRESSION)]


@pytest.mark.unit
@pytest.mark.parametrize("args, says", [
    (["--from-ref", "HEAD~1"], "--from-ref/--to-ref name refs of a clone: give --git-dir"),
    (["--git-dir", "/", "--from", "before"], "with --git-dir, name refs of your clone"),
    (["--patch", "/nonexistent.patch"], "/nonexistent.patch: no such file"),
    (["--fault", "read"], "bad sweep family 'read'"),
    (["--backend-name", "coreml"], "unknown backend 'coreml' (known: onnx, openvino, tf"),
    (["--filter", "dnn_foo"], "unknown filter 'dnn_foo'"),
    # a filter's other graphs are named after it (harness/run/chains.py)
    (["--filter", "dnn_detect.ssd"], "unknown filter 'dnn_detect.ssd' (known: dnn_processing, "
                                     "dnn_detect, dnn_detect.yolo, dnn_classify)"),
    (["--json", "/nonexistent/d.json"], "/nonexistent/d.json: no such directory"),
], ids=["ref-without-clone", "tree-with-clone", "missing-patch", "bad-family",
        "bad-backend", "bad-filter", "bad-graph", "bad-json-path"])
def test_bad_input(args, says):
    r = harness(*args)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and says in r.stderr, r.stderr
    assert r.stdout == ""


@pytest.mark.unit
@pytest.mark.parametrize("refs", [("HEAD", "HEAD"), ("HEAD~1", "HEAD")],
                         ids=["same-ref-twice", "history-only"])
def test_refs_with_the_same_sources(tmp_path, refs):
    """Two refs whose sources are the same (the same ref twice, or a commit that changes
    only the history) are no change: one line on stdout, exit 0, before anything is built
    (no cache entry appears), not a `git apply` of an empty diff."""
    repo = tmp_path / "clone"
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.c").write_text("int a;\n")
    subprocess.run([*git, "add", "a.c"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "two"], check=True)
    cache = tmp_path / "cache"
    r = subprocess.run([sys.executable, "-m", "harness", "diff", "--git-dir", str(repo),
                        "--from-ref", refs[0], "--to-ref", refs[1]], cwd=PROJECT,
                       capture_output=True, text=True,
                       env={**os.environ, "FFDNN_CACHE": str(cache)})
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1 and "have the same sources" in lines[0] \
        and "no change to diff" in lines[0], r.stdout
    assert not (cache / "trees").exists(), "nothing built"


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_series_trees_fix(tree, tmp_path):
    """base -> before: #24702's commit 3 makes every failed ONNX Runtime post-processing
    an error; the four sites (one per frame) are fixes, nothing regresses: exit 0."""
    tree("base"), tree("before")
    out = tmp_path / "d.json"
    r = harness("--from", "base", "--to", "before", *ONE_FAMILY, "--json", str(out))
    no_traceback(r)
    assert r.returncode == 0, r.stdout + r.stderr[-1500:]
    d = json.loads(out.read_text())
    assert d["schema"] == diffreport.SCHEMA and d["exit_status"] == 0
    assert [(s["from"]["class"], s["to"]["class"], s["change"]) for s in d["sites"]] == \
        [("ALTERED", "SURFACED", "fix")] * 4
    assert all(s["place"].startswith(POST_PROC) for s in d["sites"])
    assert r.stdout.startswith("## Fault sweep diff: base -> before")
    assert "**PASS**: judged 4 / blind 0 / total 4 sites; through the change: judged 4 / " \
        "blind 0 / total 4: 0 regressions, 4 fixes" in r.stdout


@pytest.fixture(scope="module")
def regression(tree, tmp_path_factory):
    """after -> after + DROP_CHECK, with every report written."""
    tree("after")
    d = tmp_path_factory.mktemp("diff")
    patch = d / "drop-check.patch"
    patch.write_text(DROP_CHECK)
    files = {k: d / f"report.{k}" for k in ("json", "md", "html")}
    r = harness("--from", "after", "--patch", str(patch), *ONE_FAMILY,
                "--json", str(files["json"]), "--markdown", str(files["md"]),
                "--html", str(files["html"]))
    return r, files


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_a_change_that_does_not_build_fails(tree, tmp_path):
    """A patch whose code does not compile is the gate's verdict on it: FAIL (exit 1),
    with the compiler's first error in the report and the JSON; not bad input."""
    tree("after")
    patch = tmp_path / "broken.patch"
    patch.write_text(DROP_CHECK.replace("+    ff_dnn_complete_lltask(task, 0);",
                                        "+    ff_dnn_complete_lltask(task, 0)"))
    out = tmp_path / "d.json"
    r = harness("--from", "after", "--patch", str(patch), *ONE_FAMILY, "--json", str(out))
    no_traceback(r)
    assert r.returncode == ExitStatus.FAIL, r.stdout + r.stderr[-1500:]
    d = json.loads(out.read_text())
    assert d["word"] == "FAIL" and d["exit_status"] == ExitStatus.FAIL
    assert "dnn_backend_onnx.c" in d["build_error"]["first_error"]
    assert "error:" in d["build_error"]["first_error"]
    assert "does not build, so no site of it could run" in r.stdout
    assert schemas.problem(d) is None  # docs/schema/diff.json: its build_error branch


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_focus_runs_only_the_sites_through_the_change(regression, tmp_path):
    """--focus: the censuses, then only the sites whose stack runs through the change; the
    verdict says it is focused, and it is the same verdict on those sites."""
    _, files = regression
    patch = files["json"].parent / "drop-check.patch"
    out = tmp_path / "d.json"
    r = harness("--from", "after", "--patch", str(patch), "--backend-name", "onnx",
                "--filter", "dnn_processing", "--fault",
                "wrap:ff_proc_from_dnn_to_frame,pthread_create", "--values", "one",
                "--confirm", "1", "--focus", "--json", str(out))
    no_traceback(r)
    assert r.returncode == ExitStatus.FAIL, r.stdout + r.stderr[-1500:]
    d = json.loads(out.read_text())
    # the 4 post-processing sites run through the change; the flush route's thread start
    # (dnn_backend_common.c, vf_dnn_processing.c) does not: found, not run
    assert d["focus"] == {"run": 4, "found": 5, "groups_run": 6, "groups": 6}
    assert all(s["touched"] for s in d["sites"]) and len(d["sites"]) == 4
    assert ("**FAIL** (focused: the 4 of 5 sites whose stack runs through the change, in the 6 "
            "of 6 groups whose graphs can run it") in r.stdout


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_dropped_check_is_a_regression(regression):
    r, files = regression
    no_traceback(r)
    assert r.returncode == 1, r.stdout + r.stderr[-1500:]
    d = json.loads(files["json"].read_text())
    assert schemas.problem(d) is None  # docs/schema/diff.json
    assert d["to"]["label"] == "after+drop-check.patch"
    assert d["to"]["series"][-1] == "drop-check.patch"
    assert d["verdict"]["regression"] == 4 and d["exit_status"] == 1
    assert [(s["from"]["class"], s["to"]["class"]) for s in d["sites"]] == \
        [("SURFACED", "ALTERED")] * 4
    assert all(s["place"].startswith(POST_PROC) for s in d["sites"])
    assert all(d["to"]["path"] in s["to"]["reproduce"] for s in d["sites"])
    assert files["md"].read_text().strip() == r.stdout.strip()
    assert "### Regressions (4)" in r.stdout


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_page_in_chromium(regression, tmp_path):
    """The page is self-contained and, rendered by chromium, shows a cell per site and
    tree: the four sites SURFACED in after, each above its ALTERED cell in after+patch;
    every cell links to its site's row, which holds the reproducer."""
    if not screenshot.chromium():
        pytest.skip("chromium not installed (Debian package: chromium)")
    _, files = regression
    text = files["html"].read_text()
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", text), "fetches nothing"
    assert "<script" not in text
    links = re.findall(r'href="#(s\d+)"', text)
    assert len(links) == 8 and all(f'id="{a}"' in text for a in links)
    assert html.unescape(text).count("--fault 'wrap:ff_proc_from_dnn_to_frame=") >= 8
    png = tmp_path / "diff.png"
    r = screenshot.screenshot(files["html"], png)
    assert r.returncode == 0 and png.is_file(), r.stderr[-1000:]
    img = screenshot.read_png(png)
    assert img.shape == (900, 1400, 3)
    import numpy as np
    from harness.judge.diff_html import COLOURS, CSS
    # every site here runs through the change: its cells carry the page's bar across
    # their foot (its height and colour from the page's own style), under the colour
    bar, dark = re.search(r"\.grid a\.t \{ box-shadow: inset 0 -(\d+)px 0 (#[0-9a-f]{6})",
                          CSS).groups()
    surfaced = screenshot.squares(img, COLOURS["SURFACED"][0], height=16 - int(bar))
    altered = screenshot.squares(img, COLOURS["ALTERED"][0], height=16 - int(bar))
    assert len(surfaced) == 4 and len(altered) == 4, (surfaced, altered)
    rgb = np.array([int(dark[i:i + 2], 16) for i in (1, 3, 5)])
    for x, y in surfaced + altered:
        foot = img[y + 16 - int(bar):y + 16, x + 3:x + 13].astype(int)
        assert (np.abs(foot - rgb) <= 2).all(), f"no bar at the foot of the cell at {x},{y}"
    assert [x for x, _ in surfaced] == [x for x, _ in altered], "one column per site"
    assert len({y for _, y in surfaced}) == 1 and surfaced[0][1] < altered[0][1]


@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.trees
def test_git_refs(tree, tmp_path):
    """Two refs of a user's clone: #24702's head (the tree tests/pr24760/test_byo.py builds) and a
    commit that drops the check on top of #24760: the same four regressions, exit 1."""
    import os

    from harness.obtain.recipe import GIT_ID
    repo, patch = tmp_path / "ffmpeg", tmp_path / "drop-check.patch"
    subprocess.run(["git", "clone", "-q", "--shared", str(tree("after").src), str(repo)],
                   check=True)
    patch.write_text(DROP_CHECK)
    subprocess.run(["git", "-C", str(repo), "am", "-q", "--committer-date-is-author-date",
                    str(patch)], check=True, env={**os.environ, **GIT_ID})
    out = tmp_path / "d.json"
    r = harness("--git-dir", str(repo), "--from-ref", "HEAD~2", "--to-ref", "HEAD",
                "--backend", BACKENDS, *ONE_FAMILY, "--json", str(out))
    no_traceback(r)
    assert r.returncode == 1, r.stdout + r.stderr[-1500:]
    d = json.loads(out.read_text())
    assert (d["from"]["label"], d["to"]["label"]) == ("HEAD~2", "HEAD")
    assert d["from"]["source"]["kind"] == d["to"]["source"]["kind"] == "git"
    assert [(s["from"]["class"], s["to"]["class"], s["change"]) for s in d["sites"]] == \
        [("SURFACED", "ALTERED", "regression")] * 4


@pytest.mark.onnx
def test_patch_that_does_not_apply(tree, tmp_path):
    """A patch whose context is not in the tree: one error line naming it and the file,
    exit 2, before the tree is copied (git apply --check in a temporary index)."""
    after = tree("after")
    patch = tmp_path / "stale.patch"
    patch.write_text(DROP_CHECK.replace("    g_ort->ReleaseTensorTypeAndShapeInfo(tensor_info);\n-",
                                        "    g_ort->ReleaseTensorTypeAndShape(tensor_info);\n-"))
    r = harness("--from", "after", "--patch", str(patch), *ONE_FAMILY)
    assert r.returncode == 2, r.stderr[-1500:]
    errors = [l for l in r.stderr.splitlines() if l.startswith("error:")]
    assert errors == [r.stderr.strip().splitlines()[-1]]
    assert "stale.patch: does not apply to after" in errors[0]
    assert "libavfilter/dnn/dnn_backend_onnx.c" in errors[0]
    assert errors == r.stderr.strip().splitlines(), "refused before any copy or progress"
    assert r.stdout == "" and "Traceback" not in r.stderr
    assert not list(after.path.parent.glob("after+stale-*")), "nothing half-built is kept"


# What a change touches, read from a unified diff (the series' own patches are real ones):
# patch -> (paths, (file, function) pairs). Hunk headers name the enclosing function.
TOUCHES = {
    "0009": (("libavfilter/dnn/dnn_backend_common.c",),
             {("dnn_backend_common.c", "ff_dnn_start_inference_async")}),
    "0007": (("libavfilter/vf_dnn_classify.c", "libavfilter/vf_dnn_detect.c",
              "libavfilter/vf_dnn_processing.c"),
             {("vf_dnn_classify.c", "dnn_classify_flush_frame"),
              ("vf_dnn_detect.c", "dnn_detect_flush_frame"),
              ("vf_dnn_processing.c", "flush_frame")}),
}


@pytest.mark.unit
@pytest.mark.parametrize("number", TOUCHES)
def test_what_a_patch_touches(number):
    from harness.judge import touched
    from harness.paths import PATCHES
    (patch,) = PATCHES.glob(f"{number}-*.patch")
    t = touched.parse(patch.read_text())
    assert (t.paths, set(t.functions)) == TOUCHES[number]


@pytest.mark.unit
def test_a_stack_through_the_change():
    """By (file, function): a static function of the same name in another file is not
    the change's; a file the change touches marks a stack that runs through it."""
    from harness.judge.touched import Touched
    t = Touched(("libavfilter/vf_dnn_processing.c",),
                frozenset({("vf_dnn_processing.c", "flush_frame")}))
    assert t.mark("ff_x (dnn_backend_common.c:1) < flush_frame (vf_dnn_processing.c:259)") \
        == "function"
    assert t.mark("flush_frame (vf_dnn_detect.c:12)") == ""
    assert t.mark("activate (vf_dnn_processing.c:300)") == "file"
    assert t.mark("") == ""


def _diff(classes, touched=("function",) * 8, known=True, paths=("x.c",)):
    """A Diff of one group whose sites have these (from, to) classes; each site touched
    as `touched` says."""
    from harness.judge.touched import Touched
    g = diff.Group("tf", "dnn_processing", "pthread_create=1*return(EAGAIN)", "pthread_create",
                   [len(classes)] * 2, ["", ""])
    pairs = []
    for i, (a, b) in enumerate(classes):
        sites = [site("f (x.c:1)", a, i) if a else None, site("f (x.c:1)", b, i) if b else None]
        pairs.append(diff.Pair(g, "f (x.c)", i, sites, diff.change(*(s and s.cls for s in sites)),
                               [[s.cls] if s else [] for s in sites], touched[i]))
    sides = [diff.Side(n, Tree(n, Path(f"/{n}"), {"source": {}, "key": n, "series": []}))
             for n in "ab"]
    return diff.Diff(sides, [g], pairs, {"census": 0, "sites": 0, "confirm": 0, "total": 1}, 0,
                     touched=Touched(paths if known else (), known=known))


# (sites' classes, each site touched?, what the change could be read as) -> exit status,
# as issue 24 says: a change whose touched sites are all blind is not a PASS, with a
# status of its own (distinct from 1, a regression, and 2, bad input).
VERDICTS = [
    ([("HANG", "HANG")] * 4, ("function",) * 4, True, ExitStatus.BLIND),
    ([("HANG", "HANG"), ("CRASH", "HANG"), ("CRASH", "CRASH")], ("function",) * 3, True,
     ExitStatus.BLIND),
    ([("HANG", "HANG"), ("HANG", "CRASH")], ("function",) * 2, True, ExitStatus.FAIL),  # new crash
    ([("HANG", "HANG"), ("SURFACED", "SURFACED")], ("function", ""), True, ExitStatus.BLIND),
    ([("HANG", "HANG"), ("SURFACED", "SURFACED")], ("function", "file"), True, ExitStatus.OK),
    ([("HANG", "HANG"), ("SURFACED", "LOST")], ("function", "function"), True, ExitStatus.FAIL),
    ([("SURFACED", "SURFACED")], ("",), True, ExitStatus.BLIND),  # nothing runs through it
    ([("SURFACED", "SURFACED")], ("",), False, ExitStatus.OK),  # unknown: any judged site
    ([("HANG", "HANG")], ("",), False, ExitStatus.BLIND),
    ([("HANG", "SURFACED")], ("function",), True, ExitStatus.OK),  # a fix is seen
    ([(None, "SURFACED"), ("HANG", None)], ("function",) * 2, True, ExitStatus.OK),  # judged
    ([(None, "HANG"), ("HANG", None)], ("function",) * 2, True, ExitStatus.FAIL),  # a new call hangs
    ([("SURFACED", "ERROR")], ("function",), True, ExitStatus.FAIL),
]


@pytest.mark.unit
@pytest.mark.parametrize("classes, touched, known, want", VERDICTS,
                         ids=[f"{i}-{w}" for i, (*_, w) in enumerate(VERDICTS)])
def test_blind_verdict(classes, touched, known, want):
    d = _diff(classes, touched, known)
    assert d.exit_status == want
    t = d.tally()
    blind = sum(set(c for c in pair if c) <= {"HANG", "CRASH"} for pair in classes)
    assert (t["blind"], t["total"]) == (blind, len(classes))
    word = diffreport.verdict_line(d).split("**")[1]
    assert word == {ExitStatus.OK: "PASS", ExitStatus.FAIL: "FAIL", ExitStatus.BLIND: "BLIND"}[want]


@pytest.mark.unit
def test_blind_counts_in_every_report():
    """Markdown, JSON and the page carry the same judged / blind / total counts."""
    from harness.judge import diff_html
    from harness.judge.touched import Touched
    d = _diff([("HANG", "HANG")] * 3 + [("SURFACED", "LOST")], ("function",) * 4)
    j = diffreport.to_json(d)
    assert j["counts"]["blind"] == 3 and j["counts"]["judged"] == 1 and j["counts"]["total"] == 4
    assert j["blind"] == [{"route": "frames", "family": "pthread_create", "blind": 3, "sites": 4}]
    assert [s["blind"] for s in j["sites"]] == [True, True, True, False]
    line = "judged 1 / blind 3 / total 4 sites"
    assert line in diffreport.markdown(d) and line in diff_html.page(d)
    assert isinstance(d.touched, Touched)


@pytest.mark.unit
def test_setup_route_sites_are_the_dnn_codes(tmp_path):
    """census_calls(): the setup route keeps the calls with a DNN file on their stack (the
    tree's own file names), the other routes every call, but a family's whose stanza says
    `sites dnn` (libav: the sink's calls are no sites)."""
    from types import SimpleNamespace
    from harness.experiments import sweep
    from harness.run.record import CallSite, Counters, RunRecord
    (tmp_path / "src/libavfilter/dnn").mkdir(parents=True)
    for name in ("dnn/dnn_backend_onnx.c", "vf_dnn_processing.c", "formats.c"):
        (tmp_path / "src/libavfilter" / name).write_text("")
    sites = [CallSite(1, "ff_formats_ref (formats.c:1) < parse (graphparser.c:9)"),
             CallSite(2, "av_mallocz (mem.c:3) < init (vf_dnn_processing.c:7)"),
             CallSite(3, "?"),
             CallSite(4, "create_entry (queue.c:41) < x (dnn_backend_onnx.c:982)")]
    record = RunRecord(counters=Counters(eligible=4), sites=sites)

    def calls(route, site="malloc"):
        sc = SimpleNamespace(route=route, tree=str(tmp_path), fault=SimpleNamespace(site=site))
        return sweep.census_calls(SimpleNamespace(record=record, scenario=sc))
    assert [i for i, _ in calls("setup")] == [1, 3]
    assert [i for i, _ in calls("sweep")] == [0, 1, 2, 3]
    assert [i for i, _ in calls("sweep", "libav")] == [1, 3]
    assert [i for i, _ in calls("sweep", "wrap:ff_dnn_fill_task")] == [0, 1, 2, 3]


@pytest.mark.unit
def test_a_failed_setup_is_surfaced_whatever_its_code():
    """A graph that could not be made and said so is SURFACED, AVERROR(EAGAIN) included
    (which a sink's code would not count)."""
    from types import SimpleNamespace
    from harness.judge import sweep
    from harness.run.outcome import Outcome
    from harness.run.record import Frame, RunRecord, Setup
    r = SimpleNamespace(outcome=Outcome.MEASURED, record=RunRecord(setup=Setup(-11)),
                        scenario=SimpleNamespace(frames=4))
    assert sweep.classify(r) is sweep.Class.SURFACED
    r.record = RunRecord(setup=Setup(0), frames=[Frame("a")] * 4)
    assert sweep.classify(r) is sweep.Class.CLEAN


# What each tree's runs of a site left behind of FFmpeg's blocks once the graph was freed
# (harness/run/leaks.py) -> whether the to-tree leaks more (diff.leaks_more): the from-tree's
# runs (None: the call is the to-tree's alone), the to-tree's, what the to-tree's census
# left (a run with no call failed), and the verdict.
LEAKS = [
    ([0], [1], 0, True),               # a free deleted on the error path: one block more
    ([2], [2], 0, False),              # the same leak in both trees (TensorFlow's lltasks)
    ([2], [1], 0, False),              # fewer: no regression (nor a fix: not judged)
    ([0, 0, 0], [0, 1, 0], 0, True),   # a steady from-tree: more even once
    ([0, 1], [1, 1], 0, False),        # an unsteady from-tree: more in every run, not so
    ([0, 1], [2, 2], 0, True),         # ... and so
    ([0, 1], [2, 1], 0, False),
    ([], [3], 0, False),               # every from-tree run hung or crashed: not compared
    ([0], [], 0, False),               # every to-tree run did
    (None, [3], 3, False),             # a call only the to-tree makes: against its census
    (None, [4], 3, True),
    (None, [1], None, True),           # its census counted none: against no leak
    (None, [0], None, False),
    (None, [], 0, False),
]


@pytest.mark.unit
@pytest.mark.parametrize("a, b, census, want", LEAKS, ids=[f"{i}-{w}" for i, (*_, w) in
                                                            enumerate(LEAKS)])
def test_leak_rule(a, b, census, want):
    assert diff.leaks_more(a, b, census or 0) is want
    if not census:  # no census figure: against no leak, the default
        assert diff.leaks_more(a, b) is want
    sites = [site("f (x.c:1)", "SURFACED") if a is not None else None,
             site("f (x.c:1)", "SURFACED")]
    g = diff.Group("onnx", "dnn_processing", "malloc=1*return(ENOMEM)", "malloc", [1, 1],
                   ["", ""], left=[0, census])
    p = diff.Pair(g, "f (x.c)", 0, sites, diff.Change.SAME, [[], []], leaked=[a or [], b])
    assert p.leak is want
    assert diff.worth_rerunning(p) is False  # its classes alone: the same


# A site's verdict once what it left behind is read (diff.with_leak): a leak is a regression
# whatever its classes did; a site not judged stays so.
WITH_LEAK = [(c, True, Change.REGRESSION) for c in (Change.SAME, Change.CHANGED, Change.FIX,
                                                     Change.ONLY_TO, Change.REGRESSION)] + [
    (Change.ERROR, True, Change.ERROR), (Change.FLAKY, True, Change.FLAKY)] + [
    (c, False, c) for c in Change]


@pytest.mark.unit
@pytest.mark.parametrize("change, leak, want", WITH_LEAK,
                         ids=[f"{c.value}-{leak}" for c, leak, _ in WITH_LEAK])
def test_a_leak_is_a_regression(change, leak, want):
    assert diff.with_leak(change, leak) is want


@pytest.mark.unit
@pytest.mark.parametrize("cls", ["ALTERED", "SURFACED", "LOST"])
def test_a_leak_is_run_again(cls):
    """A site judged a regression for what it left behind alone is run again, whatever its
    class: an unsteady from-tree can undo it (leaks_more)."""
    g = diff.Group("onnx", "dnn_processing", "malloc=1*return(ENOMEM)", "malloc", [1, 1],
                   ["", ""])
    sites = [site("f (x.c:1)", cls), site("f (x.c:1)", cls)]
    p = diff.Pair(g, "f (x.c)", 0, sites, diff.Change.REGRESSION, [[Class(cls)]] * 2,
                  leaked=[[0], [1]])
    assert p.leak and diff.worth_rerunning(p) is True
    p.leaked = [[1], [1]]
    assert diff.worth_rerunning(p) is (cls == "SURFACED")  # a class regression's own rule


@pytest.mark.unit
def test_a_leak_in_every_report():
    """The markdown names the leak (the blocks each tree left, where the to-tree's were
    allocated), the JSON has each side's counts and the verdict, JUnit's failure says it;
    the exit status is 1."""
    from harness.judge import junit
    from harness.run.record import Leak, Leaks, RunRecord
    d = _diff([("SURFACED", "SURFACED")], ("function",))
    p = d.pairs[0]
    p.leaked = [[0], [1]]
    p.sites[1].result.record = RunRecord(leaks=Leaks(1, 424, 0, [Leak(
        "av_frame_alloc (frame.c:54) < av_buffersrc_add_frame_flags (buffersrc.c:252)", 1, 424)]))
    p.change = diff.with_leak(p.change, p.leak)
    assert d.exit_status == ExitStatus.FAIL
    md = diffreport.markdown(d)
    assert "### Regressions (1)" in md and "| SURFACED, leaks 0 | SURFACED, leaks 1 |" in md
    assert ("leaks: b left 1 block (424 bytes) of FFmpeg's behind once the graph was freed, "
            "where a left none; allocated at: av_frame_alloc (frame.c:54) < "
            "av_buffersrc_add_frame_flags (buffersrc.c:252) (1 of 1 block (424 bytes))") in md
    j = diffreport.to_json(d)
    (s,) = j["sites"]
    assert (s["change"], s["leak"], s["leaked"]) == ("regression", True, {"from": [0], "to": [1]})
    assert s["to"]["leaks"]["blocks"] == 1 and "leaks" not in s["from"]
    assert "left 1 block (424 bytes)" in junit.junit(d, "FAIL")


def _frames(*frames):
    """[Frame] from (md5, [(box, label, confidence)]) each."""
    from harness.run.record import Box, Frame
    return [Frame(md5, None if boxes is None else [Box(b, label, c, []) for b, label, c in boxes])
            for md5, boxes in frames]


BOX = ("32x32+16+0", "0", "9000/10000")
OTHER = ("32x32+16+0", "0", "8000/10000")
# (from-tree's census frames, to-tree's) -> what the diff says of the output with no fault
OUTPUTS = [
    (_frames(("a" * 32, [BOX])), _frames(("a" * 32, [BOX])), ""),
    (_frames(("a" * 32, [BOX])), _frames(("a" * 32, [BOX, OTHER])),
     "frame 1 of 1: boxes [32x32+16+0 0 9000/10000] -> "
     "[32x32+16+0 0 9000/10000, 32x32+16+0 0 8000/10000]"),
    (_frames(("a" * 32, []), ("b" * 32, [])), _frames(("a" * 32, []), ("c" * 32, [])),
     "frame 2 of 2: md5 bbbbbbbbbbbb -> cccccccccccc"),
    (_frames(("a" * 32, []), ("b" * 32, [])), _frames(("a" * 32, [])), "2 frames -> 1"),
    (_frames(("a" * 32, None)), _frames(("a" * 32, [])), ""),  # kept without its boxes
]


@pytest.mark.unit
@pytest.mark.parametrize("a, b, want", OUTPUTS, ids=["same", "boxes", "md5", "count", "none"])
def test_output_change_rule(a, b, want):
    assert diff.output_change(a, b) == want


@pytest.mark.unit
def test_a_changed_output_is_judged_when_each_tree_is_steady():
    """Each tree's census run again: the same frames every time and the two differ is a
    change; a tree whose census gave other frames run to run is unsteady, not judged."""
    one, two = _frames(("a" * 32, [BOX])), _frames(("a" * 32, [BOX, OTHER]))
    assert diff.output_judged([one] * 3, [two] * 3) == (diff.output_change(one, two), False)
    assert diff.output_judged([one] * 3, [one] * 3) == ("", False)
    assert diff.output_judged([one, one, two], [two] * 3) == ("", True)
    assert diff.output_judged([one] * 3, [two, one]) == ("", True)
    assert diff.output_judged([one], [two]) == (diff.output_change(one, two), False)  # --confirm 0


@pytest.mark.unit
def test_a_changed_output_fails_the_diff_in_every_report():
    """A group whose output with no fault changed fails the diff though every site is the
    same (exit 1), and every report says which and how; --output-may-change says it and
    passes."""
    from harness.judge import diff_html, junit
    d = _diff([("SURFACED", "SURFACED")], ("function",))
    d.sides = [diff.Side(n, Tree(n, Path(f"/{n}"), {"source": {"kind": "release"}, "key": n,
                                                    "series": []})) for n in "ab"]
    assert d.exit_status == ExitStatus.OK
    d.groups[0].output = "frame 1 of 3: md5 aaaaaaaaaaaa -> bbbbbbbbbbbb"
    assert d.exit_status == ExitStatus.FAIL
    key = "tf / dnn_processing / frames"  # the graph's, whichever family's census it was
    said = f"{key}: frame 1 of 3: md5 aaaaaaaaaaaa -> bbbbbbbbbbbb"
    assert diffreport.verdict_line(d).startswith("**FAIL**")
    assert "the output with no fault changed in 1 graph" in diffreport.verdict_line(d)
    twin = diff.Group(**{**vars(d.groups[0]), "family": "malloc"})  # the graph's other family
    d.groups.append(twin)
    assert d.output_changes == [said]  # said once a graph
    assert f"The output with no fault changed (a regression): {said}" in diffreport.markdown(d)
    assert html.escape(said) in diff_html.page(d)
    j = diffreport.to_json(d)
    assert j["output_changes"] == [said] and j["groups"][0]["output"]["changed"]
    assert schemas.problem(json.loads(json.dumps(j))) is None
    assert 'type="output"' in junit.junit(d, "FAIL")
    d.output_may_change = True
    assert d.exit_status == ExitStatus.OK
    assert "(said, not failed: --output-may-change)" in diffreport.markdown(d)
    assert 'type="output"' not in junit.junit(d, "PASS")
    d.groups[0].output, d.groups[0].unsteady = "", True
    assert d.exit_status == ExitStatus.OK
    assert f"differed run to run, not compared: `{key}`" in diffreport.markdown(d)
