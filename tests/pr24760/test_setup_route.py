"""The setup route: every call FFmpeg's DNN code makes while the graph is made (the filter's
init and config, the model's loading) is failed in turn. Before it, no route armed a fault
until the graph was configured, so a mistake in the model-loading error paths passed the
gate's diff unseen (issue 38: 104 of the reachable error branches were set-up code)."""

import json
import subprocess
import sys

import pytest

from harness.cases import pr24760
from harness.cases.pr24760 import EXPECT
from harness.errors import ExitStatus
from harness.experiments import sweep as sweeps
from harness.judge import sweep
from harness.paths import PROJECT
from harness.run import forkclient, matrix, sites
from tests import mistakes

SERVERS = forkclient.DEFAULT

# ff_dnn_init() reporting a model that could not be loaded: the mistake returns 0, so a
# filter whose model failed to load goes on with none (a one-line slip of the kind the
# issue tries: an error status dropped)
LOAD_FAILED = ('        av_log(filter_ctx, AV_LOG_ERROR, "could not load DNN model\\n");\n'
               "        return AVERROR(EINVAL);\n")
LOAD_FAILED_IGNORED = ('        av_log(filter_ctx, AV_LOG_ERROR, "could not load DNN model\\n");\n'
                       "        return 0;\n")


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_every_setup_site_is_the_dnn_codes_and_a_failed_setup_surfaces(tree, preload):
    after = tree("after")
    scs = matrix.scenarios([after], "onnx", "dnn_processing", ["malloc=1*return(ENOMEM)"],
                           route="setup")
    count, found = sweeps.sweep(scs, preload, jobs=2, expect=EXPECT, pool=SERVERS)["after"]
    assert count == len(found) > 5, "the model's loading allocates"
    assert all(sites.in_dnn_code(s.where, after.src) for s in found), \
        [s.where for s in found if not sites.in_dnn_code(s.where, after.src)]
    assert any("dnn_load_model_onnx (dnn_backend_onnx.c:" in s.where for s in found)
    failed = [s for s in found if s.result.record.setup and s.result.record.setup.ret < 0]
    assert failed and all(s.cls is sweep.Class.SURFACED for s in failed)
    assert all("--route setup" in s.command for s in found)
    assert not [s for s in found if s.cls in (sweep.Class.ERROR, sweep.Class.CRASH)]


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", "diff", *args], cwd=PROJECT,
                          capture_output=True, text=True)


@pytest.mark.after
@pytest.mark.onnx
def test_a_dropped_model_load_error_is_a_regression_on_the_setup_route(tree, tmp_path):
    """The default routes include setup: the mistake crashes where after said "could not
    load"; without the setup route (frames and flush only) no fault reaches the changed
    line, and the diff can only say it is blind to it."""
    patch = mistakes.patch(tree("after"), tmp_path, "libavfilter/dnn_filter_common.c",
                           LOAD_FAILED, LOAD_FAILED_IGNORED,
                           f"{pr24760.__name__}: model load failure ignored")
    common = ["--from", "after", "--patch", patch, "--backend-name", "onnx", "--filter",
              "dnn_processing", "--fault", "malloc", "--values", "one", "--confirm", "1"]
    out = tmp_path / "d.json"
    r = harness(*common, "--json", str(out))
    assert r.returncode == ExitStatus.FAIL, r.stdout[-3000:] + r.stderr[-2000:]
    d = json.loads(out.read_text())
    caught = [s for s in d["sites"] if s["change"] == "regression"]
    assert caught and all(s["route"] == "setup" for s in caught)
    assert {(s["from"]["class"], s["to"]["class"]) for s in caught} <= {
        ("SURFACED", "CRASH"), ("SURFACED", "HANG"), ("SURFACED", "DROPPED"),
        ("SURFACED", "LOST")}
    r = harness(*common, "--route", "frames,flush")
    assert r.returncode == ExitStatus.BLIND, r.stdout[-3000:] + r.stderr[-2000:]
