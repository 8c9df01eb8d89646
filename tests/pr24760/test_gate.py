"""The diff as a regression gate (issue 24): a revert of #24760 made on purpose is caught
on the route #24760 fixes (the flush at EOF) on every backend built; the series' trees in
order show #24702 losing the error there and #24760 surfacing it again; and a change
whose every site hangs in both trees is said to be blind, with an exit status of its own."""

import json
import os
import subprocess
import sys

import pytest

from harness.errors import ExitStatus
from harness.obtain.recipe import GIT_ID
from harness.paths import PROJECT
from harness.run import chains as graphs

# What the gate must see, per route, for `pthread_create` failed at each of its sites.
# "flush": the PR's own route, the stand-in flush starting an inference thread at EOF
# ("before the fix `activate()` returned 11, 22 and 1 and the sink returned only
# `AVERROR_EOF`"; after it, AVERROR_EXTERNAL for EAGAIN): SURFACED on after, LOST with
# #24760 reverted. "frames": the backends' own starts; TensorFlow's and LibTorch's hang in
# both trees (harness/cases/pr24760/ SWEEP), OpenVINO's dnn_classify through TensorFlow's boxes
# too, and ONNX Runtime and OpenVINO start no thread ("ONNX Runtime and OpenVINO do not
# use it."): blind, or no site.
REVERT = {
    "flush": ("SURFACED", "LOST", "regression"),
    "frames": ("HANG", "HANG", "same"),
}
# base -> before -> after on the flush route: #24702's commit 7 returns ff_dnn_flush()'s
# result at EOF, so base's -1 (AVERROR(EPERM), "base returns -1 (AVERROR(EPERM)) at EOF,
# before returns 11") becomes the positive errno the graph drops; #24760 makes it AVERROR.
CHAIN = {
    ("base", "before"): ("SURFACED", "LOST", "regression", ExitStatus.FAIL),
    ("before", "after"): ("LOST", "SURFACED", "fix", ExitStatus.OK),
}


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", "diff", *args], cwd=PROJECT,
                          capture_output=True, text=True)


def pairs(tree) -> list:
    have = tree.backends
    return sorted((b, f) for (b, f) in graphs.GRAPHS if graphs.needs(b, f) <= have)


@pytest.fixture(scope="module")
def revert_patch(tree, tmp_path_factory):
    """`git revert` of #24760 (after's last commit, patch 9) as a patch file."""
    after = tree("after")
    d = tmp_path_factory.mktemp("revert")
    repo = d / "ffmpeg"
    subprocess.run(["git", "clone", "-q", "--shared", str(after.src), str(repo)], check=True)
    env = {**os.environ, **GIT_ID}
    subject = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%s"],
                             capture_output=True, text=True, check=True).stdout
    assert subject.startswith("avfilter/dnn: return AVERROR codes when an async thread")
    subprocess.run(["git", "-C", str(repo), "revert", "--no-edit", "HEAD"], check=True,
                   env=env, capture_output=True)
    out = subprocess.run(["git", "-C", str(repo), "format-patch", "-1", "-o", str(d)],
                         capture_output=True, text=True, check=True, env=env)
    return out.stdout.strip()


@pytest.mark.after
def test_revert_of_24760_is_caught(tree, revert_patch, tmp_path):
    """Exit 1, a LOST regression on the flush route of every backend and filter built;
    the frames route's thread starts blind (HANG in both trees), said, and marked as
    running through the change (ff_dnn_start_inference_async, the function #24760 edits)."""
    after = tree("after")
    out = tmp_path / "d.json"
    r = harness("--from", "after", "--patch", revert_patch, "--fault", "pthread_create",
                "--confirm", "1", "--json", str(out))
    assert r.returncode == ExitStatus.FAIL, r.stdout + r.stderr[-2000:]
    d = json.loads(out.read_text())
    assert d["exit_status"] == ExitStatus.FAIL and d["word"] == "FAIL"
    assert d["touched"]["functions"] == ["ff_dnn_start_inference_async (dnn_backend_common.c)"]
    flush = [s for s in d["sites"] if s["route"] == "flush"]
    assert sorted({(s["backend"], s["filter"]) for s in flush}) == pairs(after)
    # every value of pthread_create()'s profile where the site runs through the change
    assert {s["value"] for s in flush} == {"EAGAIN", "EINVAL", "EPERM"}
    assert len(flush) == 3 * len(pairs(after))
    for s in flush:
        assert (s["from"]["class"], s["to"]["class"], s["change"]) == REVERT["flush"], s
        assert s["touched"] == "function" and not s["blind"]
    frames = [s for s in d["sites"] if s["route"] == "frames"]
    own = {"tf", "torch"} & {b for b, _ in pairs(after)}
    assert bool(frames) == bool(own), "TensorFlow's and LibTorch's own starts are swept"
    for s in frames:
        assert (s["from"]["class"], s["to"]["class"], s["change"]) == REVERT["frames"], s
        assert s["blind"] and s["touched"] == "function"
    assert d["counts"]["blind"] == len(frames) and d["counts"]["judged"] == len(flush)
    assert f"judged {len(flush)} / blind {len(frames)} / total {len(flush) + len(frames)}" \
        in r.stdout


@pytest.mark.before
@pytest.mark.after
@pytest.mark.parametrize("a, b", CHAIN, ids=[f"{a}-{b}" for a, b in CHAIN])
def test_series_in_order(tree, tmp_path, a, b):
    """base -> before -> after on the PR's route, every backend and filter built."""
    tree(a), tree(b)
    out = tmp_path / "d.json"
    r = harness("--from", a, "--to", b, "--fault", "pthread_create", "--route", "flush",
                "--confirm", "1", "--json", str(out))
    *classes, status = CHAIN[(a, b)]
    assert r.returncode == status, r.stdout + r.stderr[-2000:]
    d = json.loads(out.read_text())
    assert sorted({(s["backend"], s["filter"]) for s in d["sites"]}) == pairs(tree(b))
    assert {(s["from"]["class"], s["to"]["class"], s["change"]) for s in d["sites"]} == \
        {tuple(classes)}


# A change to execute_model_tf() that changes nothing a run shows (a debug message; a
# comment would change no code at all, and mark no site), so every TensorFlow
# thread-start site runs through it and hangs in both trees.
LOGGED = """\
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: ffdnn <ffdnn@localhost>
Date: Sat, 1 Jan 2000 00:00:00 +0000
Subject: [PATCH] avfilter/dnn_backend_tf: a debug message in execute_model_tf()

A change the gate cannot see behind its hangs (tests/pr24760/test_gate.py).
---
 libavfilter/dnn/dnn_backend_tf.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/libavfilter/dnn/dnn_backend_tf.c b/libavfilter/dnn/dnn_backend_tf.c
--- a/libavfilter/dnn/dnn_backend_tf.c
+++ b/libavfilter/dnn/dnn_backend_tf.c
@@ -778,6 +778,7 @@ static int execute_model_tf(TFRequestItem *request, Queue *lltask_queue)
         goto err;
     }
 
+    av_log(ctx, AV_LOG_DEBUG, "one thread per task in async mode\\n");
     if (task->async) {
         if (ff_dnn_start_inference_async(ctx, &request->exec_module) != 0) {
             goto err;
--\x20
2.39.5

"""


@pytest.mark.after
@pytest.mark.tensorflow
def test_all_touched_sites_blind(tree, tmp_path):
    """Every site that runs through the change hangs in both trees: not a PASS, exit
    BLIND, and the report says why."""
    after = tree("after")
    if "tf" not in after.backends:
        pytest.skip("tree built without tf (run: make test BACKENDS=all)")
    patch = tmp_path / "logged.patch"
    patch.write_text(LOGGED)
    out = tmp_path / "d.json"
    r = harness("--from", "after", "--patch", str(patch), "--backend-name", "tf",
                "--filter", "dnn_processing", "--route", "frames", "--fault", "pthread_create",
                "--confirm", "1", "--json", str(out))
    assert r.returncode == ExitStatus.BLIND, r.stdout + r.stderr[-2000:]
    d = json.loads(out.read_text())
    assert d["word"] == "BLIND" and d["exit_status"] == ExitStatus.BLIND
    assert d["touched"]["functions"] == ["execute_model_tf (dnn_backend_tf.c)"]
    # its 4 thread starts, each failed with the 3 values of pthread_create()'s profile
    assert d["counts"]["touched"] == {"judged": 0, "blind": 12, "not_judged": 0, "total": 12}
    assert "**BLIND**: judged 0 / blind 12 / total 12 sites" in r.stdout
    assert "Not a pass: every one of the 12 sites whose stack runs through the change hung " \
        "or crashed in both trees" in r.stdout


# With the fifth follow-up (0005 in builds/patches/followups/), LibTorch's own thread starts
# surface their error through the task, so a revert of #24760 shows on LibTorch's real
# frame route too: the positive errno is no error to ff_dnn_complete_lltask(), the task
# completes as a success and its frame comes out unwritten (ALTERED). TensorFlow's 0001
# also returns the error from execute_model, which dnn_processing turns into AVERROR(EIO)
# whatever its sign: there the revert shows on the flush route only.
REVERT_ON_FOLLOWUPS = {
    ("torch", "frames"): ("SURFACED", "ALTERED", "regression"),
    ("torch", "flush"): ("SURFACED", "LOST", "regression"),
    ("tf", "frames"): ("SURFACED", "SURFACED", "same"),
    ("tf", "flush"): ("SURFACED", "LOST", "regression"),
}


@pytest.mark.after
@pytest.mark.torch
@pytest.mark.tensorflow
@pytest.mark.trees
def test_revert_on_followups_caught_on_libtorch_frames(tree, tmp_path):
    """after + the follow-ups, and that with #24760 reverted, as two refs of a clone
    (bring your own tree: the first is the follow-ups case's tree again, its objects
    copied; the second compiles one object)."""
    from harness.cases import followups
    from harness.obtain.patched import PatchedPlan
    from tests.conftest import BACKENDS
    after = tree("after")
    if not {"tf", "torch"} <= after.backends:
        pytest.skip("trees built without tf and torch (run: make test BACKENDS=all)")
    series = [followups.SERIES / n for n in (followups.SERIES / "series").read_text().split()]
    plan = PatchedPlan(BACKENDS, followups.LAYOUT, on="after", patches=series)
    fixed = plan.get(plan.patched)
    repo = tmp_path / "ffmpeg"
    subprocess.run(["git", "clone", "-q", "--shared", str(fixed.src), str(repo)], check=True)
    env = {**os.environ, **GIT_ID}
    pr = subprocess.run(["git", "-C", str(repo), "log", "--format=%H",
                         "--grep=return AVERROR codes when an async thread cannot start"],
                        capture_output=True, text=True, check=True).stdout.split()
    assert len(pr) == 1, "#24760 is one commit under the follow-ups"
    subprocess.run(["git", "-C", str(repo), "revert", "--no-edit", pr[0]], check=True, env=env,
                   capture_output=True)
    out = tmp_path / "d.json"
    r = harness("--git-dir", str(repo), "--from-ref", "HEAD~1", "--to-ref", "HEAD",
                "--backend", BACKENDS, "--backend-name", "torch,tf", "--filter", "dnn_processing",
                "--fault", "pthread_create", "--confirm", "1", "--json", str(out))
    assert r.returncode == ExitStatus.FAIL, r.stdout + r.stderr[-2000:]
    d = json.loads(out.read_text())
    got = {}
    for s in d["sites"]:
        got.setdefault((s["backend"], s["route"]), set()).add(
            (s["from"]["class"], s["to"]["class"], s["change"]))
    assert got == {k: {v} for k, v in REVERT_ON_FOLLOWUPS.items()}
