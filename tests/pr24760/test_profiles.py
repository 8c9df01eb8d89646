"""Every value of a fault profile (issue 37): one-line mistakes in FFmpeg's DNN error
handling, made on purpose as patches on after, that only a value the gate did not use to
inject shows. The default diff (`--from after --patch P`, every value of each call's
profile where its stack runs through the change) exits 1 naming the regression; with
`--values one` (the first value of each profile, what the gate did before) the same diff
passes: the profile is what catches it."""

import json
import subprocess
import sys

import pytest

from harness.cases import pr24760
from harness.errors import ExitStatus
from harness.paths import PROJECT
from tests import mistakes

# Each mistake: the file, the line as after has it, the line the mistake writes, the
# family and route the diff runs, and what it must find: (from class, to class) per value
# of the profile at the site through the change.
MISTAKES = {
    # #24760's own line, half undone: EAGAIN still AVERROR_EXTERNAL, every other error of
    # pthread_create() returned as its positive errno, which the graph drops at EOF ("the
    # filter graph drops them, so before the fix a failed inference ends as a plain EOF")
    "positive-errno-unless-eagain": (
        "libavfilter/dnn/dnn_backend_common.c",
        "        return ret == EAGAIN ? AVERROR_EXTERNAL : AVERROR(ret);",
        "        return ret == EAGAIN ? AVERROR_EXTERNAL : ret;",
        "pthread_create", "flush",
        {"EAGAIN": ("SURFACED", "SURFACED"), "EINVAL": ("SURFACED", "LOST"),
         "EPERM": ("SURFACED", "LOST")}),
}


@pytest.mark.unit
def test_the_prs_rows_are_the_profile():
    """PR #24760's table injects EAGAIN, EINVAL and EPERM: pthread_create()'s whole fault
    profile, which the gate now fails at every thread start through a change."""
    from harness.judge import profiles
    rows = {spec.split("=")[1] for spec in pr24760.PR_ROWS if spec.startswith("pthread_create=")}
    assert set(profiles.profile("pthread_create", "pthread_create", [])) == rows
    assert set(MISTAKES["positive-errno-unless-eagain"][-1]) == rows


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", "diff", *args], cwd=PROJECT,
                          capture_output=True, text=True)


def mistake(after, tmp_path, name) -> str:
    """The mistake as a git am-able patch on after's source."""
    path, old, new, *_ = MISTAKES[name]
    return mistakes.patch(after, tmp_path, path, old + "\n", new + "\n", f"mistake: {name}")


@pytest.mark.after
@pytest.mark.parametrize("name", MISTAKES)
def test_every_value_of_the_profile_is_failed(tree, tmp_path, name):
    after = tree("after")
    *_, family, route, want = MISTAKES[name]
    patch = mistake(after, tmp_path, name)
    common = ["--from", "after", "--patch", patch, "--fault", family, "--route", route,
              "--backend-name", "onnx", "--confirm", "1"]
    out = tmp_path / "d.json"
    r = harness(*common, "--json", str(out))
    assert r.returncode == ExitStatus.FAIL, r.stdout + r.stderr[-2000:]
    d = json.loads(out.read_text())
    got = {s["value"]: (s["from"]["class"], s["to"]["class"]) for s in d["sites"]}
    assert got == want
    assert all(s["touched"] == "function" for s in d["sites"])
    for value, (a, b) in want.items():
        if a != b:
            assert f"`{family}` | `{value}` |" in r.stdout  # the regression names its value
            line = next(s["to"]["reproduce"] for s in d["sites"] if s["value"] == value)
            assert f"--fault {family}={value}" in line  # and reproduces it
    # the profile taken out: the first value only, the mistake passes unseen
    r = harness(*common, "--values", "one")
    assert r.returncode == ExitStatus.OK, r.stdout + r.stderr[-2000:]
    assert "**PASS**: judged 1 / blind 0 / total 1 sites" in r.stdout
