"""The schemas of the commands' JSON (docs/schema/, harness/judge/schemas.py): each a valid
draft 2020-12 schema, one for every command that writes --json, met by what the harness
writes from real runs (the recordings of tests/data/verdicts/ here; the tests that run the
commands check their own outputs), and broken by a document that lacks what a reader
needs: merge refuses such a shard with one line, exit 2."""

import json
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator

from harness import cli
from harness.judge import diffreport, schemas
from harness.paths import PROJECT, data_dir
from tests import recorded

pytestmark = pytest.mark.unit

SECONDS = {"census": 1.0, "sites": 2.0, "confirm": 0.5, "total": 3.5}


def diff_json(name: str, shard=None) -> dict:
    """A recorded real diff as `diff --json` writes it (the writer under test)."""
    d = recorded.diff(name)
    d.seconds, d.shard = dict(SECONDS), shard
    return json.loads(json.dumps({**diffreport.to_json(d), "exit_status": d.exit_status}))


def test_every_schema_is_a_2020_12_schema():
    assert schemas.names() == ["claims.json", "coverage.json", "diff.json", "envelope.json",
                               "mutate.json", "run.json", "sweep.json"]
    for name in schemas.names():
        schema = json.loads((data_dir("schema") / name).read_text())
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)
        schemas.problem({}, name)  # every $ref resolves


def test_every_command_that_writes_json_has_one():
    """merge writes a diff's or a sweep's; every other command its own."""
    sub = next(a for a in cli.parser()._actions if a.dest == "command")
    writes = {name for name, p in sub.choices.items()
              if any("--json" in a.option_strings for a in p._actions)}
    assert writes - {"merge"} == set(schemas.BY_COMMAND)
    for command, name in schemas.BY_COMMAND.items():
        assert (PROJECT / "docs" / "schema" / name).is_file()


@pytest.mark.parametrize("name", ["diff-after-before", "diff-before-after"])
def test_real_diffs_meet_it(name):
    for shard in (None, [1, 2]):
        d = diff_json(name, shard)
        assert schemas.schema_of(d) == "diff.json" and schemas.problem(d) is None


def test_a_diff_with_fault_profiles_meets_it():
    """Since fault profiles a site's order is (group, pair, value's index in the profile):
    the writer's three numbers meet the schema (a real shard of `diff --shard` once did not,
    and merge refused it), four do not."""
    d = recorded.diff("diff-before-after")
    d.seconds, d.shard = dict(SECONDS), [1, 4]
    for i, p in enumerate(d.pairs):
        p.order = (*p.order[:2], i % 3)
    out = json.loads(json.dumps({**diffreport.to_json(d), "exit_status": d.exit_status}))
    assert {len(s["order"]) for s in out["sites"]} == {3}
    assert schemas.problem(out) is None
    out["sites"][0]["order"].append(0)
    assert "is too long" in schemas.problem(out)


@pytest.mark.parametrize("name", ["table-onnx", "frame-onnx", "frame-torch", "detect-openvino",
                                  "classify-openvino"])
def test_real_worker_results_meet_it(name):
    """What the worker recorded, as a run's `result` keeps it."""
    runs = recorded.load(name)["runs"]
    assert runs
    for run in runs:
        r = {"id": "x", "outcome": run["outcome"], "reason": run["reason"],
             "diffs": run["diffs"], "seconds": run["seconds"], "expect": "after",
             "fault": run["scenario"]["fault"],
             "result": recorded.result(run).record.to_dict()}
        assert schemas.problem({**_envelope("run"), "platform": "x", "results": [r]}) is None


@pytest.mark.parametrize("name", ["sweep-flush-onnx", "sweep-malloc-onnx", "sweep-tf"])
def test_real_sweeps_meet_it(name):
    """A recorded sweep's sites, as `sweep --json` writes them (commands/sweep.py)."""
    from harness.commands.sweep import to_json
    found = recorded.found(name)
    group = {"backend": "onnx", "filter": "dnn_processing", "route": "frames",
             "family": "malloc", "fault": "malloc", "title": "t"}
    d = {**_envelope("sweep"), "case": "c", "shard": None,
         "inputs": {"fault": "malloc", "routes": ["frames"], "pairs": [["onnx", "dnn_processing"]],
                    "limit": None}, "skipped": [], "problems": [],
         "sweeps": to_json({"onnx": found}, {"onnx": group})}
    d = json.loads(json.dumps(d))
    assert d["sweeps"]["onnx"]["builds"] and schemas.problem(d) is None


def test_a_part_of_a_schema():
    """A crash's or hang's result.json is a run's result (run.json's $defs/result)."""
    d = json.loads(json.dumps(recorded.result(recorded.load("table-onnx")["runs"][0]).to_dict()))
    assert schemas.problem(d, "run.json#/$defs/result") is None
    del d["outcome"]
    assert schemas.problem(d, "run.json#/$defs/result") == \
        "the document: 'outcome' is a required property"


def _envelope(command: str) -> dict:
    from harness.judge.envelope import envelope
    return envelope(command, [{"name": "after", "key": "k", "path": "/t"}], 0)


@pytest.mark.parametrize("path, says", [
    (("touched",), "the document: 'touched' is a required property"),
    (("sites", 0, "from", "class"), "sites[0].from: 'class' is a required property"),
    (("sites", 0, "change"), "sites[0]: 'change' is a required property"),
])
def test_a_document_that_lacks_a_key_breaks_it(path, says):
    d = diff_json("diff-after-before")
    *parents, key = path
    at = d
    for p in parents:
        at = at[p]
    del at[key]
    assert schemas.problem(d) == says


@pytest.mark.parametrize("change, says", [
    (lambda d: d["sites"][0]["to"].update({"class": "BROKEN"}),
     "sites[0].to.class: 'BROKEN' is not one of"),
    (lambda d: d.update(word="MAYBE"), "word: 'MAYBE' is not one of"),
    (lambda d: d["timing"].update(runs="14"), "timing.runs: '14' is not of type 'integer'"),
])
def test_a_value_of_the_wrong_kind_breaks_it(change, says):
    d = diff_json("diff-after-before")
    change(d)
    assert schemas.problem(d).startswith(says)


@pytest.mark.parametrize("path", [("touched",), ("sites", 0, "from", "class"),
                                  ("groups", 0, "errors")])
def test_merge_refuses_a_malformed_shard(tmp_path, path):
    """A shard with a valid envelope and a key missing: one `error:` line naming the shard,
    the schema and where it breaks it, exit 2 (not a KeyError's traceback, exit 1)."""
    files = []
    for k in (1, 2):
        d = diff_json("diff-after-before", [k, 2])
        if k == 2:
            *parents, key = path
            at = d
            for p in parents:
                at = at[p]
            del at[key]
        files.append(tmp_path / f"s{k}.json")
        files[-1].write_text(json.dumps(d))
    r = subprocess.run([sys.executable, "-m", "harness", "merge", *map(str, files)],
                       cwd=PROJECT, capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == "", r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"error: {files[1]}: not a well-formed shard of a diff "
                           "(docs/schema/diff.json): "), line
    assert f"'{path[-1]}' is a required property" in line
