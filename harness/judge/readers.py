"""Reading what the commands write with --json: one small function per kind, so whatever
reads a command's output (bench/bench.py) reads it the one way, beside the code that
writes it (the envelope, harness/judge/envelope.py; a sweep's, harness/commands/sweep.py
to_json; a diff's and a merge's, harness/judge/diffreport.py to_json; a coverage report's,
harness/judge/branchcov.py; mutate's, harness/judge/mutatereport.py to_json).
tests/engine/test_bench.py feeds them recorded outputs and what the writers make of them
now, so a change of shape fails the suite, not the bench."""

import json
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError
from harness.judge.envelope import ENVELOPE, is_envelope


def load(path, command: str) -> dict:
    """The JSON a command wrote to `path`, checked to be its envelope of this schema."""
    try:
        d = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise HarnessError(f"{path}: no JSON of `{command}`: {e}") from None
    return checked(d, command, path)


def checked(d, command: str, where="the JSON") -> dict:
    if not is_envelope(d, command):
        got = (d.get("command"), d.get("schema")) if isinstance(d, dict) else type(d).__name__
        raise HarnessError(f"{where}: not the JSON of `{command}` of schema {ENVELOPE} "
                           f"(command, schema: {got})")
    return d


@dataclass(frozen=True)
class SweepRun:
    call: int
    cls: str        # harness/judge/sweep.py Class's value
    seconds: float


@dataclass(frozen=True)
class SweepBuild:
    """One build of one sweep (a backend, filter and route): its count and the runs made."""
    key: str
    backend: str
    filter: str
    route: str
    build: str
    sites: int
    runs: tuple


def sweep(d: dict) -> list:
    """A `sweep --json` (or a merge of its shards): a SweepBuild per sweep and build."""
    checked(d, "sweep")
    return [SweepBuild(key, g["backend"], g["filter"], g["route"], build, b["sites"],
                       tuple(SweepRun(r["call"], r["class"], r["seconds"]) for r in b["runs"]))
            for key, g in d["sweeps"].items() for build, b in g["builds"].items()]


TIMING = ("census_seconds", "sites_seconds", "confirm_seconds", "total_seconds", "runs",
          "runs_per_second", "hang_seconds", "ended_runs", "ended_seconds")


@dataclass(frozen=True)
class DiffSummary:
    word: str           # PASS, FAIL or BLIND
    exit_status: int
    counts: dict        # judged, blind, total (and the same of the sites through the change)
    verdict: dict       # Change's value -> number of sites
    timing: dict        # TIMING
    sites: tuple        # per site, in order: what makes it that site, and its classes
    hung: tuple         # the seconds of each site's run (either tree's) that hung
    shard: tuple | None


def diff(d: dict) -> DiffSummary:
    """A `diff --json`, a shard's or a `merge --json` of diff shards."""
    checked(d, "diff")
    sites = tuple((tuple(s["order"]) + (0,) * (3 - len(s["order"])), s["route"], s["family"],
                   s["place"], s["nth"], s.get("value", ""), s["change"],
                   s["from"] and s["from"]["class"], s["to"] and s["to"]["class"])
                  for s in d["sites"])  # order: (group, pair, value); a value since schema 3
    hung = tuple(run["seconds"] for s in d["sites"] for run in (s["from"], s["to"])
                 if run and run["class"] == "HANG")
    return DiffSummary(d["word"], d["exit_status"], d["counts"], d["verdict"],
                       {k: d["timing"][k] for k in TIMING}, sites, hung,
                       tuple(d["shard"]) if d["shard"] else None)


@dataclass(frozen=True)
class CoverageSummary:
    """A `coverage --json`: the error branches a fault took of those compiled, and time."""
    taken: int
    total: int
    percent: float
    percent_reachable: float
    runs: int
    seconds: float      # the sweep's and the report's, in all


def coverage(d: dict) -> CoverageSummary:
    checked(d, "coverage")
    s = d["summary"]
    return CoverageSummary(s["taken"], s["total"], s["percent"], s["percent_reachable"],
                           d["runs"], d["seconds"]["total"])


@dataclass(frozen=True)
class MutateSummary:
    """A `mutate --json`: each mutant's fate and seconds, the runs a diff took from one
    before it, the score and the whole run's seconds."""
    fates: tuple        # per mutant, in order: (fate, seconds)
    reused_runs: int
    score: float
    seconds: float

    @property
    def diffed(self) -> list:
        """The seconds of each mutant that was built and diffed (killed or survived)."""
        return [s for f, s in self.fates if f in ("killed", "survived")]


def mutate(d: dict) -> MutateSummary:
    checked(d, "mutate")
    return MutateSummary(tuple((m["fate"], m["seconds"]) for m in d["mutants"]),
                         d["reused_runs"], d["summary"]["score"], d["seconds"])
