"""The real results in tests/data/verdicts/ (re-recorded by its record.py) as the judging
code takes them: runner.Result, sweep.Found, callers.Census, diff.Diff. A test derives
its wrong variants from a fresh copy each time (`load` copies)."""

import copy
import functools
import json
from pathlib import Path
from types import SimpleNamespace

from harness.judge import callers, merge
from harness.judge.diff import Change, Diff, Group, Pair
from harness.judge.sweep import Class, Found, Site
from harness.judge.touched import Touched
from harness.run import chains, faults
from harness.run.outcome import Outcome
from harness.run.record import RunRecord
from harness.run.runner import Result
from harness.run.scenario import Scenario

DATA = Path(__file__).parent / "data" / "verdicts"


@functools.cache
def _read(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def load(name: str) -> dict:
    """A recording, a copy of its own to break."""
    return copy.deepcopy(_read(name))


def scenario(s: dict) -> Scenario:
    """The scenario a recorded run was: the harness's own graph where the recording (a
    `harness run`) did not keep the description."""
    s = dict(s)
    s.setdefault("tree", "")
    s.setdefault("description", chains.description(s["backend"], s["filter"]))
    s["fault"] = faults.parse(s["fault"])
    return Scenario(**s)


def result(run: dict) -> Result:
    return Result(scenario(run["scenario"]), Outcome(run["outcome"]),
                  RunRecord.from_dict(run["data"]),
                  list(run["diffs"]), run["seconds"], run["reason"])


def run(name: str, build: str, fault: str = None) -> dict:
    """The recorded run of `build` (and `fault`) in a table recording."""
    return next(r for r in load(name)["runs"] if r["scenario"]["build"] == build
                and (fault is None or r["scenario"]["fault"] == fault))


def found(name: str) -> dict:
    """A sweep recording as sweep.sweep() returned it: build -> Found(count, [Site]) with
    its census, the sites classified by the code under test."""
    from harness.judge import sweep
    out = {}
    for build, b in load(name)["builds"].items():
        census = result(b["census"])
        clean = census.record.frames or []
        sites = [Site(build, r["call"] - 1, sweep.classify(result(r), clean), result(r), "",
                      r["where"]) for r in b["runs"]]
        out[build] = Found(b["sites"], sites, census)
    return out


def censuses(name: str = "census") -> list:
    return [callers.Census(c["build"], c["backend"], c["filter"], result(c), c["calls"],
                           c["stacks"]) for c in load(name)["censuses"]]


def _site(j, build):
    return merge._site(j, build)


def diff(name: str) -> Diff:
    """A `harness diff --json` recording as the Diff it was written from."""
    d = load(name)
    sides = [merge._side({**d[k], "path": ""}) for k in ("from", "to")]
    groups = [Group(g["backend"], g["filter"], g["fault"], g["family"],
                    [g["sites"]["from"], g["sites"]["to"]],
                    [g["errors"]["from"], g["errors"]["to"]], route=g["route"],
                    left=merge._left(g))
              for g in d["groups"]]
    pairs = [Pair(groups[s["order"][0]], s["place"], s["nth"],
                  [_site(s["from"], sides[0].tree.name), _site(s["to"], sides[1].tree.name)],
                  Change(s["change"]),
                  [[Class(c) for c in s["seen"]["from"]], [Class(c) for c in s["seen"]["to"]]],
                  s["touched"], tuple(s["order"]), s.get("value", ""), merge._leaked(s))
              for s in d["sites"]]
    t = d["touched"]
    touched = Touched(tuple(t["paths"]), frozenset(
        (f.rsplit(" (", 1)[1].rstrip(")"), f.rsplit(" (", 1)[0]) for f in t["functions"]),
        t["known"])
    out = Diff(sides, groups, pairs, {}, 0, touched=touched)
    out.recorded = SimpleNamespace(exit_status=d["exit_status"], counts=d["counts"],
                                   verdict=d["verdict"])
    return out
