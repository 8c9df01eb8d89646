"""Re-records what bench/bench.py's steps read, from the real commands, each kept small (one
backend, a family's first sites): tests/engine/test_bench.py runs every step's reading code
on these, so a change of what a command writes fails the suite, not the bench.

    FFDNN_BACKENDS=all .venv/bin/python tests/data/bench/record.py [NAME ...]

(the trees of `make build BACKENDS=all` in the cache; about a minute). NAME: one of
RECORDINGS (default: all). Each is the command's own output, as written; only the trees'
paths are blanked (they name this machine's cache).
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
PY = sys.executable
ENV = {**os.environ, "FFDNN_BACKENDS": os.environ.get("FFDNN_BACKENDS", "all")}

# P8b's command (`make sweep`'s ONNX Runtime malloc sweep), its first 2 sites a build
SWEEP = ["sweep", "--build", "before,after", "--backend-name", "onnx", "--fault", "malloc",
         "--limit", "2", "--jobs", "2"]
# sweeps that hang: TensorFlow's frame route, whose threads' start fails (HANG), beside
# ONNX Runtime's, which has no such site
SWEEP_HANG = ["sweep", "--build", "after", "--backend-name", "onnx,tf", "--fault",
              "pthread_create", "--limit", "2", "--jobs", "2"]
# P9's diff, small: the PR's trees on two backends (fixes on the flush route, TensorFlow's
# frame route HANG in both), whole, as 2 shards and their merge
DIFF = ["diff", "--from", "before", "--to", "after", "--backend-name", "onnx,tf", "--fault",
        "pthread_create", "--route", "frames,flush", "--confirm", "1", "--jobs", "2"]
# P3's scenario (after, ONNX Runtime, pthread_create=EAGAIN): the harness's run
RUN = ["run", "--build", "after", "--backend-name", "onnx", "--fault", "pthread_create=EAGAIN"]


def _blank(d: dict) -> dict:
    for t in d.get("trees", []):
        t["path"] = ""
    for side in ("from", "to"):
        if isinstance(d.get(side), dict) and "path" in d[side]:
            d[side]["path"] = ""
    return d


def harness(args: list, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "harness", *args, "--results", "", "--json", str(out)],
                          cwd=ROOT, env=ENV, capture_output=True, text=True)


def record_json(name: str, args: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        r = harness(args, out)
        if not out.exists():
            raise SystemExit(f"{name}: exit {r.returncode}: {r.stderr[-1000:]}")
        (HERE / f"{name}.json").write_text(
            json.dumps(_blank(json.loads(out.read_text())), indent=1) + "\n")


def diff() -> None:
    """The diff whole, its 2 shards and `merge` of them."""
    record_json("diff", DIFF)
    for k in (1, 2):
        record_json(f"diff-shard{k}", DIFF + ["--shard", f"{k}/2"])
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "merged.json"
        r = subprocess.run([PY, "-m", "harness", "merge", str(HERE / "diff-shard1.json"),
                            str(HERE / "diff-shard2.json"), "--json", str(out)],
                           cwd=ROOT, env=ENV, capture_output=True, text=True)
        if not out.exists():
            raise SystemExit(f"merge: exit {r.returncode}: {r.stderr[-1000:]}")
        (HERE / "diff-merged.json").write_text(out.read_text())


def run() -> None:
    """P3: the harness's run (its JSON, and its stdout, a table as `make`'s `harness table`
    prints) and the Python floor's output for the same scenario."""
    from harness import caseload
    from harness.obtain.trees import Plan
    from harness.run import matrix
    import re
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        r = harness(RUN, out)
        (HERE / "run.json").write_text(
            json.dumps(_blank(json.loads(out.read_text())), indent=1) + "\n")
        (HERE / "run-stdout.txt").write_text(r.stdout)
    tree = Plan(ENV["FFDNN_BACKENDS"], caseload.load().layout).get("after", build=False)
    (sc,) = matrix.scenarios([tree], "onnx", "dnn_processing", ["pthread_create=EAGAIN"])
    model = re.search(r":model=([^:]+)", sc.description)[1]
    r = subprocess.run([PY, ROOT / "bench/floor_py.py", tree.path, model, "11"], cwd=ROOT,
                       env={**ENV, "LD_PRELOAD": matrix.preload_library(),
                            "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    (HERE / "floor-py.txt").write_text(r.stdout)


def make() -> None:
    """What `make` and `make test` print of their recipes (make -n), and a pytest run's
    output as `make test` prints it (-q, -n 2; a few unit tests)."""
    for target in ("all", "test"):
        r = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True)
        (HERE / f"make-n-{target}.txt").write_text(r.stdout)
    r = subprocess.run([PY, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider",
                        "tests/engine/test_idle.py"], cwd=ROOT, env=ENV, capture_output=True,
                       text=True)
    (HERE / "pytest-q.txt").write_text(r.stdout)


def gate() -> None:
    """P10: the coverage report of its scope (its files, branches and lines cut to the
    first few: the whole is 250 kB) and `mutate` of its three mutants."""
    sys.path.insert(0, str(ROOT / "bench"))
    import bench
    scope = [a for a in bench.P10_SCOPE if a not in ("--results", "")]
    record_json("coverage", ["coverage", "--tree", "after", *scope])
    d = json.loads((HERE / "coverage.json").read_text())
    d["branches"], d["files"] = d["branches"][:5], d["files"][:2]
    d["lines"] = {p: {k: v[:5] for k, v in ls.items()} for p, ls in list(d["lines"].items())[:2]}
    (HERE / "coverage.json").write_text(json.dumps(d, indent=1) + "\n")
    record_json("mutate", [a for a in bench.P10_MUTATE if a not in ("--results", "")])


RECORDINGS = {"sweep": lambda: record_json("sweep", SWEEP),
              "sweep-hang": lambda: record_json("sweep-hang", SWEEP_HANG),
              "diff": diff, "run": run, "make": make, "gate": gate}


def main(names) -> int:
    for name in names or RECORDINGS:
        RECORDINGS[name]()
        print(name, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
