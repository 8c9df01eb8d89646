"""bench/bench.py's steps read what the commands write through one reader a kind
(harness/judge/readers.py for the JSON; make's and pytest's text): each step's reading code
run on outputs recorded from the real commands (tests/data/bench/, re-recorded by its
record.py), and on what the writers make of those now (the merge rebuilds a sweep and a
diff from them and writes them again), so a change of shape fails here, not in `make
bench` (as `p8_sweeps` did once: it read a sweep's JSON of before the envelope)."""

import copy
import importlib.util
import json
import statistics
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.commands import sweep as sweep_command
from harness.errors import HarnessError
from harness.judge import diffreport, merge, readers
from harness.paths import PROJECT
from harness.run.outcome import Outcome
from harness.run.record import RunRecord
from tests import recorded

pytestmark = pytest.mark.unit

DATA = PROJECT / "tests" / "data" / "bench"


def _bench():
    spec = importlib.util.spec_from_file_location("bench", PROJECT / "bench" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _bench()


def data(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def lines(*names) -> list:
    return [line for n in names for line in (DATA / n).read_text().splitlines()]


def runs_of(d: dict) -> list:
    """Every run of a sweep's JSON, (group, build, run), read here on its own."""
    return [(k, b, r) for k, g in d["sweeps"].items() for b, v in g["builds"].items()
            for r in v["runs"]]


@pytest.mark.parametrize("name", ["sweep", "sweep-hang"])
def test_p8b_reads_the_sweep(name):
    """P8b's detail: each build's sites and its runs' classes, and the runs that hung."""
    d = data(name)
    detail = bench.sweep_detail(d)
    several = len(d["sweeps"]) > 1
    for key, g in d["sweeps"].items():
        for build, v in g["builds"].items():
            assert f"{key + ' ' if several else ''}{build} {v['sites']} sites: " in detail
    for key, build, r in runs_of(d):
        assert f" {r['class']}" in detail
    hangs = [r["seconds"] for _, _, r in runs_of(d) if r["class"] == "HANG"]
    assert detail.endswith(f"; {len(hangs)} HANG runs, {sum(hangs):.1f} s of run time "
                           f"({statistics.median(hangs) if hangs else 0:.2f} s median)")
    assert ("HANG runs, 0.0 s" in detail) is (name == "sweep"), "sweep-hang's runs hang"


def test_p8b_says_each_count():
    assert bench.sweep_detail(data("sweep")).startswith(
        "before 124 sites: 2 SURFACED; after 124 sites: 2 SURFACED; 0 HANG runs")
    assert bench.sweep_detail(data("sweep-hang")).startswith(
        "onnx after 0 sites: none run; tf after 4 sites: 2 HANG; 2 HANG runs")


@pytest.mark.parametrize("name", ["sweep", "sweep-hang"])
def test_p8b_reads_what_a_sweep_writes_now(tmp_path, name):
    """The recorded sweep rebuilt as the merge rebuilds a shard, then written by the code
    `sweep --json` and `merge` write with (harness/commands/sweep.py publish): the same
    detail."""
    d = data(name)
    groups, found = merge.merged_sweeps([("recorded", {**d, "shard": [1, 1]})])
    out = tmp_path / "sweep.json"
    sweep_command.publish(str(out), d["trees"], d["exit_status"], d["case"], None,
                          d["inputs"], d["skipped"], d["problems"], found, groups)
    assert bench.sweep_detail(readers.load(out, "sweep")) == bench.sweep_detail(d)


def test_p8a_reads_the_sweeps_sites():
    """P8a counts a census and each site run per build, and reruns after's first site."""
    found = recorded.found("sweep-malloc-onnx")   # after, its first 3 sites
    runs, site = bench.sweep_runs(found)
    assert runs == 3 + 1
    assert (site.build, site.fault.skip) == ("after", 0)


def p9(merged=None):
    return {f["id"]: f for f in bench.p9_figures(
        100.0, 1.5, data("diff"), [(40.0, 1.0, data("diff-shard1")),
                                   (50.0, 1.25, data("diff-shard2"))],
        0, merged or data("diff-merged"))}


def test_p9_reads_the_diffs():
    """P9's figures: the shards' walls against the whole's, the merge against the whole
    site by site, and the whole diff's counts, verdict and timing in its detail."""
    whole, figs = data("diff"), p9()
    assert (figs["P9b"]["measured"], figs["P9c"]["measured"], figs["P9d"]["measured"]) == \
        (0.5, 1.25, 0)
    assert "1/2 40 s (load 1.0), 2/2 50 s (load 1.2)" in figs["P9b"]["detail"]
    c, t = whole["counts"], whole["timing"]
    hung = [r["seconds"] for s in whole["sites"] for r in (s["from"], s["to"])
            if r and r["class"] == "HANG"]
    detail = figs["P9a"]["detail"]
    assert detail.startswith(f"{t['runs']} runs, {t['runs_per_second']:.2f} runs/s")
    assert f"{len(hung)} site runs hung ({statistics.median(hung):.2f} s median)" in detail
    assert f"{whole['word']} (exit {whole['exit_status']}): judged {c['judged']} / blind " \
           f"{c['blind']} / total {c['total']}" in detail
    assert detail.endswith(", ".join(f"{n} {k}" for k, n in whole["verdict"].items() if n))
    assert f"merge exit 0 ({whole['word']})" in figs["P9d"]["detail"]


def test_p9_says_a_merge_that_wrote_nothing():
    """A merge that failed (no JSON): P9d fails with every site counted and its error, not
    a traceback that loses the other figures."""
    figs = {f["id"]: f for f in bench.p9_figures(
        100.0, 1.5, data("diff"), [(40.0, 1.0, data("diff-shard1"))], 2, None,
        "error: the shards are of different diffs")}
    assert figs["P9d"]["pass"] is False
    assert figs["P9d"]["measured"] == len(data("diff")["sites"])
    assert figs["P9d"]["detail"] == ("merge exit 2, no JSON written: error: the shards are "
                                     "of different diffs")
    assert figs["P9a"]["measured"] == 100.0


def test_p9_counts_a_regression_in_one_only():
    """P9d: the sites the merge judges a regression and the whole diff does not, or the
    other way; each site by what it is, not where it stands in the list (the censuses of
    the shards and of the whole diff may count differently)."""
    merged = data("diff-merged")
    merged["sites"][3]["change"] = "regression"
    assert p9(merged)["P9d"]["measured"] == 1
    merged["sites"].insert(0, merged["sites"].pop())  # another order: the same sites
    assert p9(merged)["P9d"]["measured"] == 1
    merged["sites"][1]["change"] = "flaky"
    assert p9(merged)["P9d"]["measured"] == 1
    assert "1 judged differently, 1 flaky in either" in p9(merged)["P9d"]["detail"]
    whole = data("diff")
    whole["sites"][3]["change"] = "regression"
    gone = merged["sites"].pop(4)  # the whole diff's 4th, regression: in the merge no more
    assert (gone["place"], gone["nth"]) == (whole["sites"][3]["place"], whole["sites"][3]["nth"])
    figs = {f["id"]: f for f in bench.p9_figures(100.0, 1.5, whole, [(40.0, 1.0, data(
        "diff-shard1"))], 0, merged)}
    assert figs["P9d"]["measured"] == 1 and "1 in the whole only" in figs["P9d"]["detail"]


def test_p9_reads_what_a_merge_writes_now():
    """The recorded shards merged by the code `merge` runs, written by the diff's writer
    (harness/judge/diffreport.py to_json): P9 reads it as the recorded merge."""
    d = merge.merged(merge.load([str(DATA / "diff-shard1.json"), str(DATA / "diff-shard2.json")]))
    now = json.loads(json.dumps(diffreport.to_json(d)))
    assert p9(now)["P9d"]["measured"] == 0
    assert p9(now)["P9a"]["detail"] == p9()["P9a"]["detail"]


@pytest.mark.parametrize("name, command", [("sweep", "diff"), ("diff", "sweep"),
                                           ("run", "sweep")])
def test_a_reader_refuses_another_kind(name, command):
    with pytest.raises(HarnessError, match=f"not the JSON of `{command}` of schema"):
        getattr(readers, command)(data(name))


def test_a_reader_refuses_an_old_shape(tmp_path):
    """The sweep's JSON p8_sweeps once read (fault -> build -> runs, no envelope), and a
    diff of schema 2 (tests/data/verdicts/): refused by name, not a traceback."""
    old = {"malloc": {"before": {"sites": 2, "runs": [{"class": "HANG", "seconds": 1.0}]}}}
    with pytest.raises(HarnessError, match="not the JSON of `sweep`"):
        readers.sweep(old)
    with pytest.raises(HarnessError, match=r"of schema 3 \(command, schema: .*, 2\)\)"):
        readers.diff(recorded.load("diff-before-after"))
    (tmp_path / "x.json").write_text("{")
    for path in (tmp_path / "x.json", tmp_path / "none.json"):
        with pytest.raises(HarnessError, match="no JSON of `diff`"):
            readers.load(path, "diff")


def test_p3_reads_the_floor_and_the_run():
    """P3: the floor's sink codes are the harness's run's (`run --json`), and every run
    PASS through the fork server; another way of running, or a FAIL, is refused."""
    (r,) = data("run")["results"]
    assert bench.floor_sink("\n".join(lines("floor-py.txt"))) == r["result"]["sink"] != []
    results = [SimpleNamespace(scenario=SimpleNamespace(id=r["id"]), outcome=Outcome(r["outcome"]),
                               reason=r["reason"], record=RunRecord.from_dict(r["result"]))]
    bench.passed(results, "fork server")
    with pytest.raises(AssertionError, match="not fresh"):
        bench.passed(results, "fresh (FFDNN_FORKSERVER=0)")
    failed = [SimpleNamespace(**{**vars(results[0]), "outcome": Outcome.FAIL})]
    with pytest.raises(AssertionError, match=r.get("id")):
        bench.passed(failed, "fork server")


def test_p1_p6_p7_find_their_marks():
    """The lines P1, P7 (`make`) and P6 (`make test`) time: make's recipe lines (make -n)
    and the commands' own output, each mark found; P2c and P6 read pytest's summary."""
    def found(text, marks):
        return {name for line in text for name in bench.marked(line, marks)}
    assert found(lines("make-n-all.txt"), bench.MAKE_MARKS) == {"built"}
    assert found(lines("run-stdout.txt"), bench.MAKE_MARKS) == {"table"}
    assert found(lines("make-n-test.txt"), bench.TEST_MARKS) == {"suite"}
    assert found(lines("pytest-q.txt"), bench.TEST_MARKS) == {"summary"}
    summary = bench.pytest_summary("\n".join(lines("pytest-q.txt")))
    assert summary == lines("pytest-q.txt")[-1] and " passed in " in summary


def test_p10_reads_the_coverage_and_the_mutants():
    """P10: the coverage report's branches taken and runs, and `mutate`'s mutants: the
    wall per mutant is the mean of those built and diffed (killed or survived), not of the
    equivalent one that cost nothing; the runs a diff took from one before are said."""
    cov, mut = data("coverage"), data("mutate")
    a, b = bench.p10_figures(10.0, 15.0, 40.0, cov, 120.0, mut)
    assert (a["id"], a["measured"], a["pass"]) == ("P10a", 1.5, True)
    s = cov["summary"]
    assert f"({cov['runs']} runs; {s['taken']} of {s['total']} branches taken)" in a["detail"]
    diffed = [m["seconds"] for m in mut["mutants"] if m["fate"] in ("killed", "survived")]
    assert diffed and len(diffed) < len(mut["mutants"])
    assert b["measured"] == round(statistics.mean(diffed), 3)
    assert f"{mut['reused_runs']} runs of the tree taken from a diff before" in b["detail"]
    assert bench.p10_figures(10.0, 25.0, 40.0, cov, 1.0, mut)[0]["pass"] is False


def test_p10_reads_what_mutate_writes_now():
    """The recorded mutants scored again and written by mutate's writer
    (harness/judge/mutatereport.py to_json): P10 reads them as recorded."""
    from harness.judge import mutatereport
    from harness.judge.mutants import Mutant
    from harness.judge.mutate import Fate, Score
    mut = data("mutate")
    fates = [Fate(Mutant(m["path"], m["function"], m["line"], m["operator"], 0, 0,
                         m["before"], m["after"]), m["fate"], m["why"],
                  seconds=m["seconds"], regressions=m["regressions"]) for m in mut["mutants"]]
    s = Score(SimpleNamespace(name="after"), fates, mut["seconds"], mut["data_file"],
              mut["reused_runs"])
    again = {**{k: mut[k] for k in ("schema", "tool", "version", "command", "trees",
                                     "exit_status")}, **mutatereport.to_json(s)}
    assert readers.mutate(again) == readers.mutate(mut)
