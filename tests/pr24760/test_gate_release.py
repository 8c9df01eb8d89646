"""The regression gate on the other pinned FFmpeg releases (opt-in, `-m other_release`):
on each, before -> after on the PR's flush route is a fix on every backend the release
has, and a revert of #24760 on after a LOST regression there, as on 9.0.2
(tests/pr24760/test_gate.py). Builds the release's trees when the cache has none."""

import json
import os
import subprocess
import sys

import pytest

from harness.cases.pr24760 import LAYOUT, TABLE_NEEDS
from harness.compile.families import FAMILIES
from harness.errors import ExitStatus
from harness.judge import series
from harness.obtain import releases
from harness.obtain.recipe import GIT_ID
from harness.obtain.trees import Plan
from harness.paths import PROJECT
from harness.run import chains as graphs
from tests.pr24760.test_other_release import PINNED

pytestmark = [pytest.mark.other_release]

# a release whose flush route the gate cannot judge yet fails, strictly, with the reason;
# and a Debian suite's tree (bookworm's: 5.1.9 with its source package's patch), as a
# distribution's maintainer gates a backport
OTHER = [pytest.param(v, marks=pytest.mark.xfail(reason=PINNED[v].gate_blind, strict=True)
                      if PINNED[v].gate_blind else ())
         for v in PINNED if v != LAYOUT.release] + [
    pytest.param("debian:bookworm", id="debian-bookworm-5.1.9")]  # in `-k 5.1.9`'s runs


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", "diff", *args], cwd=PROJECT,
                          capture_output=True, text=True)


@pytest.fixture(scope="module", params=OTHER)
def release(request, tmp_path_factory):
    """(version, before, after, a patch reverting #24760 on after), built now if needed."""
    version = request.param
    backends = PINNED[releases.get(version).version].backends
    plan = Plan(backends, LAYOUT, release=version)
    trees = [plan.get(n) for n in ("before", "after")]
    notes = series.notes(trees, TABLE_NEEDS)
    if not notes or not notes[-1].startswith("the case's tables can be shown"):
        pytest.skip(f"{version}: {notes[-1] if notes else 'no note'}")
    d = tmp_path_factory.mktemp(f"revert-{version}")
    repo = d / "ffmpeg"
    subprocess.run(["git", "clone", "-q", "--shared", str(trees[1].src), str(repo)], check=True)
    env = {**os.environ, **GIT_ID}
    subprocess.run(["git", "-C", str(repo), "revert", "--no-edit", "HEAD"], check=True, env=env,
                   capture_output=True)
    patch = subprocess.run(["git", "-C", str(repo), "format-patch", "-1", "-o", str(d)],
                           capture_output=True, text=True, check=True, env=env).stdout.strip()
    return version, backends, trees[0], trees[1], patch


# what `--values changed` (the default) fails pthread_create() with: its stanza's values
VALUES = FAMILIES["pthread_create"].declared("pthread_create")


def _pairs(tree) -> list:
    have = tree.backends
    return sorted((b, f) for (b, f) in graphs.GRAPHS if graphs.needs(b, f) <= have
                  and not graphs.not_on_trees([tree], b, f))


# the trees diffed on the flush route (after + patch: #24760 reverted), the exit status, and
# the one (class on the first, class on the second, change) every site must show
GATE = {
    "before-after-fixes": (("--from", "before", "--to", "after"), ExitStatus.OK,
                           ("LOST", "SURFACED", "fix")),
    "revert-is-caught": (("--from", "after", "--patch", None), ExitStatus.FAIL,
                         ("SURFACED", "LOST", "regression")),
}


@pytest.mark.parametrize("which", GATE)
def test_the_gate_on_the_flush_route(release, tmp_path, which):
    version, backends, _, after, patch = release
    trees, status, classes = GATE[which]
    out = tmp_path / "d.json"
    r = harness("--release", version, "--backend", backends,
                *(patch if t is None else t for t in trees),
                "--fault", "pthread_create", "--route", "flush", "--confirm", "1",
                "--json", str(out))
    assert r.returncode == status, r.stdout + r.stderr[-2000:]
    d = json.loads(out.read_text())
    assert sorted({(s["backend"], s["filter"]) for s in d["sites"]}) == _pairs(after)
    # every value the thread start's profile fails it with, at each pair's one site
    values = {(s["backend"], s["filter"], s["value"]) for s in d["sites"]}
    assert len(values) == len(d["sites"]) == len(_pairs(after)) * len(VALUES)
    assert {v for *_, v in values} == set(VALUES)
    assert {(s["from"]["class"], s["to"]["class"], s["change"]) for s in d["sites"]} == \
        {classes}
