"""The from-tree's runs a diff keeps in the cache for the next diff against the same tree
(harness/experiments/kept.py): the next one takes them and gives the same verdict on
every site, `--fresh` takes none, and kept runs that do not read are made again."""

import json
import uuid

import pytest

from harness.errors import ExitStatus
from harness.experiments import kept
from harness.paths import cache_root
from tests.engine.test_diff import DROP_CHECK, harness, no_traceback

pytestmark = [pytest.mark.onnx, pytest.mark.dnn_processing]

# the drop-check patch's sites on the frames route: three families, values "one"
SMALL = ("--backend-name", "onnx", "--filter", "dnn_processing", "--route", "frames",
         "--fault", "wrap:ff_proc_from_dnn_to_frame,pthread_create,wrap:ff_dnn_fill_task",
         "--confirm", "1", "--values", "one")


def _diff(tmp_path, name, *more):
    out = tmp_path / f"{name}.json"
    r = harness("--from", "after", "--patch", str(tmp_path / "drop-check.patch"), *SMALL,
                "--results", "", "--json", str(out), *more)
    no_traceback(r)
    assert r.returncode == ExitStatus.FAIL, r.stdout + r.stderr[-1500:]  # its regression
    return r, json.loads(out.read_text())


def _sites(d):
    return {(s["family"], s["place"], s["nth"]): (s["change"], s["from"]["class"])
            for s in d["sites"]}


@pytest.fixture
def own_key(tree, monkeypatch):
    """after's kept file for this test alone: the FFDNN_* settings key it, and the suite's
    other diffs against after, run beside this one (-n 2), keep theirs in the shared one
    (and can write it whole between this test's damage and its next diff)."""
    monkeypatch.setenv("FFDNN_TEST_MARK", uuid.uuid4().hex)
    path = kept.path_of(tree("after"), cache_root())
    yield path
    path.unlink(missing_ok=True)


def test_the_next_diff_takes_the_from_trees_runs(own_key, tmp_path):
    (tmp_path / "drop-check.patch").write_text(DROP_CHECK)
    _, first = _diff(tmp_path, "first", "--fresh")
    assert first["timing"]["kept_runs"] == 0
    from_runs = len(first["groups"]) + sum(1 for s in first["sites"] if s["from"])
    _, second = _diff(tmp_path, "second")
    # every census and site run of after taken, none of the change's tree
    assert second["timing"]["kept_runs"] == from_runs
    assert second["timing"]["runs"] == first["timing"]["runs"] - from_runs
    assert _sites(second) == _sites(first) and second["verdict"] == first["verdict"]

    own_key.write_text('{"runs": {"x": ')  # cut short
    r, third = _diff(tmp_path, "third")
    assert "do not read" in r.stderr and third["timing"]["kept_runs"] == 0
    assert _sites(third) == _sites(first)
    assert json.loads(own_key.read_text())["code"] == kept.code_hash()  # made again, whole
