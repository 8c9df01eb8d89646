"""Every command's --json is one envelope (harness/judge/envelope.py): the schema, the
tool and its version, the command, the trees by the keys of their cache entries, the exit
status the command returned, then the command's own data."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness import __version__
from harness.judge import envelope, readers, schemas
from harness.obtain.tree import Tree
from harness.paths import PROJECT

# command line -> the command's own fields (the diff's, merge's and claims' are checked by
# tests/engine/test_shard.py, tests/engine/test_diff.py and tests/pr24760/test_claims.py)
COMMANDS = {
    "run": (["run", "--build", "after", "--backend-name", "onnx", "--fault",
             "pthread_create=EAGAIN"], ("platform", "results")),
    "sweep": (["sweep", "--build", "after", "--backend-name", "onnx", "--fault",
               "wrap:ff_proc_from_dnn_to_frame", "--limit", "1"],
              ("case", "shard", "inputs", "skipped", "problems", "sweeps")),
}


@pytest.mark.unit
def test_the_envelope():
    t = Tree("after", Path("/t"), {"key": "k"})
    e = envelope.envelope("run", [t, {"name": "x", "key": None, "path": None}], 1, a=2)
    assert list(e) == ["schema", "tool", "version", "command", "trees", "exit_status", "a"]
    assert (e["schema"], e["tool"], e["version"]) == (envelope.ENVELOPE, envelope.TOOL,
                                                      __version__)
    assert e["trees"] == [{"name": "after", "key": "k", "path": "/t"},
                          {"name": "x", "key": None, "path": None}]
    assert envelope.is_envelope(e, "run") and not envelope.is_envelope(e, "diff")


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.parametrize("command", COMMANDS)
def test_a_commands_json_is_the_envelope(tree, tmp_path, command):
    after = tree("after")
    args, own = COMMANDS[command]
    out = tmp_path / "out.json"
    r = subprocess.run([sys.executable, "-m", "harness", *args, "--json", str(out)],
                       cwd=PROJECT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    d = json.loads(out.read_text())
    assert envelope.is_envelope(d, command) and d["exit_status"] == r.returncode
    assert d["trees"] == [{"name": "after", "key": after.stamp["key"], "path": str(after.path)}]
    assert list(d)[6:] == list(own)
    assert schemas.problem(d) is None  # docs/schema/run.json, sweep.json
    if command == "sweep":  # what bench/bench.py reads of it (tests/engine/test_bench.py)
        (built,) = readers.sweep(d)
        assert (built.build, built.backend, len(built.runs)) == ("after", "onnx", 1)
