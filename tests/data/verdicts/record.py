"""Re-records the real results the verdict tests feed the judging code (tests/pr24760/test_recorded_judge.py and the other test_recorded_*.py,
tests/engine/test_idle.py; `make mutants`): each file here is what real runs of the 9.0.2 trees
did, kept small (the fields the judging code reads, and the scenario each run was), so the
judge, the sweep's classes, the diff's verdict and the callers check are tested on what
FFmpeg really did, and on wrong variants derived from it, in a fraction of a second.

Re-record (the trees of `make build BACKENDS=all` in the cache; about a minute):

    FFDNN_BACKENDS=all .venv/bin/python tests/data/verdicts/record.py [NAME ...]

NAME: one of RECORDINGS (default: all). The table runs are what `python -m harness run
... --json` writes for the same options, the diffs what `python -m harness diff ... --json`
writes (both commands are run as they are); the sweeps and the censuses come from the
library calls `harness sweep` and tests/pr24760/test_callers.py make, since the command's JSON
keeps neither the census run nor its frames.
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

# what a recorded run keeps of the worker's result: what the judging code reads
KEEP = ("build", "fault", "route", "inputs", "drained", "frames", "frame_sink", "counters",
        "injector", "activate", "activate_at_eof", "activate_first_error", "flush_calls",
        "log", "eof_push", "sink", "failed_call", "sites", "hung", "error")


# what a census run keeps: what callers.diffs() and sweep.problems() read
CENSUS = ("injector", "frames", "counters", "sites")


def _data(data: dict, keep=KEEP) -> dict:
    out = {k: data[k] for k in keep if k in data}
    if keep is CENSUS:
        out["frames"] = [{"md5": f["md5"]} for f in out.get("frames", [])]
    return out


def _result(r, keep=KEEP) -> dict:
    """A runner.Result as the tests rebuild it (tests/recorded.py)."""
    return {"scenario": json.loads(r.scenario.to_json()), "outcome": r.outcome.value,
            "reason": r.reason, "diffs": r.diffs, "seconds": round(r.seconds, 2),
            "data": _data(r.record.to_dict(), keep)}


def _harness(*args) -> dict:
    """`python -m harness ARGS --json FILE --results ''`: the JSON it wrote, its exit status."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, "-m", "harness", *args, "--json", str(out), "--results", ""]
        p = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "FFDNN_BACKENDS": "all"},
                           stdout=subprocess.DEVNULL)
        return {"command": "python -m harness " + " ".join(args) + " --json FILE",
                "exit_status": p.returncode, **json.loads(out.read_text())}


def table(*args):
    """A `harness run`: its results, each with the scenario it ran."""
    from harness.run.scenario import Scenario  # noqa: F401 (the same module the runs used)
    got = _harness("run", "--backend", "all", *args)
    opts = dict(zip(args[::2], args[1::2]))
    runs = []
    for r in got["results"]:
        d = r["result"]
        runs.append({"scenario": {"build": d["build"], "backend": opts["--backend-name"],
                                  "filter": opts.get("--filter", "dnn_processing"),
                                  "route": d["route"], "fault": r["fault"],
                                  "expect": "" if r["expect"] == d["build"] else r["expect"],
                                  "frames": int(opts.get("--frames", 2))},
                     "outcome": r["outcome"], "reason": r["reason"], "diffs": r["diffs"],
                     "seconds": r["seconds"], "data": _data(d)})
    return {"command": got["command"], "exit_status": got["exit_status"], "runs": runs}


def _trees(*names):
    from harness.cases.pr24760 import LAYOUT
    from harness.obtain.trees import Plan
    plan = Plan("all", LAYOUT)
    return [plan.get(n, build=False) for n in names]


def sweep(builds, backend, filt, fault, route="sweep", limit=None):
    """sweep.sweep() as `harness sweep --limit` runs it: each census and each site's run."""
    from harness.cases.pr24760 import EXPECT
    from harness.compile.families import sweep_fault
    from harness.experiments import sweep as sw
    from harness.run import matrix
    scs = matrix.scenarios(_trees(*builds), backend, filt, [sweep_fault(fault)], route=route)
    found = sw.sweep(scs, matrix.preload_library(), jobs=2, limit=limit, expect=EXPECT)
    return {"command": f"harness.experiments.sweep.sweep(): python -m harness sweep --build "
                       f"{','.join(builds)} --backend-name {backend} --filter {filt} --fault "
                       f"{fault} --route {sw.ROUTE_NAMES[route]}"
                       + (f" --limit {limit}" if limit else ""),
            "builds": {b: {"sites": f[0], "census": _result(f.census),
                           "runs": [{"call": s.index + 1, "where": s.where,
                                     **_result(s.result)} for s in f[1]]}
                       for b, f in found.items()}}


def census():
    """callers.run() on before and after, as tests/pr24760/test_callers.py runs it."""
    from harness.cases.pr24760 import CALLERS, EXPECT
    from harness.experiments import callers
    from harness.run import matrix
    cs = callers.run(_trees("before", "after"), matrix.preload_library(), CALLERS["family"],
                     jobs=2, expect=EXPECT)
    return {"command": "harness.experiments.callers.run([before, after], ...) as "
                       "tests/pr24760/test_callers.py runs it",
            "censuses": [{"build": c.build, "backend": c.backend, "filter": c.filter,
                          "calls": c.calls, "stacks": c.stacks, **_result(c.result, CENSUS)}
                         for c in cs]}


def diff(*args):
    """A `harness diff`'s JSON as written, less what no verdict reads (paths, timings)."""
    got = _harness("diff", "--backend", "all", *args)
    for side in ("from", "to"):
        got[side]["path"] = ""
    return got


RECORDINGS = {
    # the PR's table 1 on ONNX Runtime, before and after: PASS every row
    "table-onnx": lambda: table("--build", "before,after", "--backend-name", "onnx"),
    # the frame route: LibTorch's start fails, then the run hangs at EOF (a HANG row),
    # and ONNX Runtime, which starts no thread, ends clean
    "frame-torch": lambda: table("--build", "before,after", "--backend-name", "torch",
                                 "--route", "frame", "--fault", "pthread_create=EAGAIN"),
    "frame-onnx": lambda: table("--build", "after", "--backend-name", "onnx", "--route",
                                "frame", "--fault", "pthread_create=EAGAIN"),
    # table 2's graphs: a box on each frame, and its label
    "detect-openvino": lambda: table("--build", "after", "--backend-name", "openvino",
                                     "--filter", "dnn_detect", "--fault",
                                     "pthread_create=EINVAL"),
    "classify-openvino": lambda: table("--build", "before,after", "--backend-name",
                                       "openvino", "--filter", "dnn_classify", "--fault",
                                       "pthread_create=EINVAL"),
    # the sweep's classes: LOST (before) and SURFACED (after) on the flush route, SURFACED
    # malloc sites, ALTERED frames (pre-processing failed unseen), HANG (TensorFlow's
    # frame route), and a family with no site at all
    "sweep-flush-onnx": lambda: sweep(("before", "after"), "onnx", "dnn_processing",
                                      "pthread_create", route="flush"),
    "sweep-malloc-onnx": lambda: sweep(("after",), "onnx", "dnn_processing", "malloc",
                                       limit=3),
    "sweep-wrap-pre-onnx": lambda: sweep(("after",), "onnx", "dnn_processing",
                                         "wrap:ff_proc_from_frame_to_dnn", limit=2),
    "sweep-tf": lambda: sweep(("after",), "tf", "dnn_processing", "pthread_create", limit=2),
    "sweep-none-onnx": lambda: sweep(("after",), "onnx", "dnn_processing", "pthread_create"),
    # what the frames carry: TensorFlow's box on each frame, classified by OpenVINO (its
    # label and confidence), and the thread the stand-in flush cannot start
    "sweep-classify-openvino": lambda: sweep(("after",), "openvino", "dnn_classify",
                                             "pthread_create", route="flush"),
    # the PR's "Callers" paragraph: every backend and filter, before and after
    "census": census,
    # before -> after (the PR: fixes, and TensorFlow's frame route blind, HANG in both),
    # and the other way (the fix reverted: a regression)
    "diff-before-after": lambda: diff("--from", "before", "--to", "after", "--fault",
                                      "pthread_create", "--backend-name", "onnx,tf",
                                      "--filter", "dnn_processing"),
    "diff-after-before": lambda: diff("--from", "after", "--to", "before", "--fault",
                                      "pthread_create", "--route", "flush",
                                      "--backend-name", "onnx", "--filter", "dnn_processing"),
}


def main(names) -> int:
    for name in names or RECORDINGS:
        got = RECORDINGS[name]()
        (HERE / f"{name}.json").write_text(json.dumps(got, indent=1) + "\n")
        print(f"{name}.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
