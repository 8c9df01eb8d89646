"""The from-tree's runs a diff made, kept in the cache for the next diff against the same
tree (`runs/<tree entry>-<key>.json`): a developer diffing one change after another
against one tree, or a job diffing each new patch against the same base, runs that
tree's censuses and site runs once. Only what makes a run the same run keys them: the
tree's entry (its sources, configuration and backends), the scenario itself (the fault,
its call, the route, the frames; harness.experiments.batch.Memo), the code a run's
result comes from (`code_hash()`: the worker and runner, the module's C, the
injectors), the FFDNN_* settings that change a run and the machine's CPUs. The reruns
that confirm a changed class are always new; `diff --fresh` takes none (and keeps what
it ran).

`harness cache` asks `entries()` what names each file (a kept file of a tree something
names, made by this code) and `verify()` whether one reads."""

import functools
import hashlib
import json
import os
import platform
import sys
from pathlib import Path

from harness.errors import CacheError
from harness.experiments.batch import Memo
from harness.paths import PROJECT, Entry, atomic_file
from harness.run.outcome import Outcome
from harness.run.record import RunRecord
from harness.run.runner import Result
from harness.run.scenario import Scenario

KIND = "runs"
DIR = "runs"
# the code a run's result comes from: the worker and runner, the module's C and its
# compiler, the injectors, the generated models
CODE = ("harness/run", "harness/compile", "injectors", "harness/obtain/models")


@functools.lru_cache(maxsize=None)
def code_hash() -> str:
    h = hashlib.sha256()
    for top in CODE:
        for path in sorted((PROJECT / top).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".c", ".h", ".fi"):
                h.update(str(path.relative_to(PROJECT)).encode() + b"\0" + path.read_bytes())
    h.update(sys.version.encode())
    return h.hexdigest()[:16]


def _settings() -> str:
    """The FFDNN_* settings a run reads (but which backends a command uses), and the
    machine: its CPUs (FFmpeg's TensorFlow backend makes av_cpu_count() / 2 + 1 requests,
    the runtimes size their pools by them) and its architecture. A cache restored on
    another runner keeps its runs apart."""
    return json.dumps([sorted((k, v) for k, v in os.environ.items()
                              if k.startswith("FFDNN_") and k != "FFDNN_BACKENDS"),
                       os.cpu_count(), len(os.sched_getaffinity(0)), platform.machine()])


def path_of(tree, root: Path) -> Path:
    key = hashlib.sha256((code_hash() + _settings()).encode()).hexdigest()[:16]
    return root / DIR / f"{Path(tree.path).name}-{key}.json"


def _result(d: dict) -> Result:
    sc = Scenario.from_json(d["scenario"])
    return Result(sc, Outcome(d["outcome"]), RunRecord.from_dict(d["record"]), d["diffs"],
                  d["seconds"], d["reason"])


def _plain(r: Result) -> dict:
    return {"scenario": r.scenario.to_json(), "outcome": r.outcome.value,
            "record": r.record.to_dict(), "diffs": r.diffs, "seconds": r.seconds,
            "reason": r.reason}


def load(tree, root: Path, fresh: bool = False) -> Memo:
    """The memo of `tree`'s runs with those an earlier diff kept (none when `fresh`); a
    kept file that does not read is left for the next save to replace (said on
    stderr)."""
    memo = Memo(str(tree.path))
    path = path_of(tree, root)
    if fresh:
        return memo
    try:
        kept = json.loads(path.read_text())
        memo.results = {k: _result(v) for k, v in kept["runs"].items()}
    except FileNotFoundError:
        pass
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"diff: the kept runs {path} do not read ({e}); they are made again",
              file=sys.stderr)
    return memo


def save(memo: Memo, tree, root: Path) -> None:
    """The memo's runs of `tree` added to those kept (a run made again replaces its
    older one), written whole. A run that could not run (ERROR, SKIP) is not kept."""
    path = path_of(tree, root)
    try:
        runs = json.loads(path.read_text())["runs"]
    except (OSError, ValueError, KeyError, TypeError):
        runs = {}
    runs.update({k: _plain(r) for k, r in memo.results.items()
                 if r.outcome not in (Outcome.ERROR, Outcome.SKIP)})
    with atomic_file(path) as tmp:
        tmp.write_text(json.dumps({"tree": str(tree.path), "code": code_hash(),
                                   "runs": runs}) + "\n")


def entries(root: Path, trees: set) -> list:
    """Every kept-runs file of the cache at `root`; `trees`, the tree entries something
    names."""
    out = []
    for f in sorted((root / DIR).glob("*.json")) if (root / DIR).is_dir() else ():
        tree = f.stem.rpartition("-")[0]
        try:
            code = json.loads(f.read_text()).get("code")
        except (OSError, ValueError, AttributeError):
            code = None
        if code != code_hash():
            out.append(Entry(f, KIND, why="runs of older code, or not readable"))
        elif tree not in trees:
            out.append(Entry(f, KIND, why=f"its tree {tree} is not named"))
        else:
            out.append(Entry(f, KIND, f"runs of trees/{tree}"))
    return out


def verify(path: Path) -> None:
    """Every kept run reads back as a run: a cache error if not."""
    try:
        for v in json.loads(path.read_text())["runs"].values():
            _result(v)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CacheError(path, f"its kept runs do not read ({e})",
                         "the next diff against its tree keeps them again") from e
