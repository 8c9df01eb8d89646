"""`python -m harness coverage` and `python -m harness mutate` (issue 38) on a tiny scope of
real runs: one family on ONNX Runtime's dnn_processing. The coverage variant of after
counts what the faults ran (a post-processing failure takes the task's failure branch in
ff_dnn_get_result_common() and the filter's, and no allocation check), and a branch the
data file says no fault reaches but a fault took fails the command; one mutant of
after's error handling (the lltask allocation's NULL check removed) is built, diffed and
killed, and once the data file calls it equivalent it is neither built nor scored."""

import json
import subprocess
import sys

import pytest

from harness.judge import schemas
from harness.paths import PROJECT, cache_root

ONNX = "libavfilter/dnn/dnn_backend_onnx.c"
POST_PROC = ("--backend-name", "onnx", "--filter", "dnn_processing", "--route", "frames",
             "--fault", "wrap:ff_proc_from_dnn_to_frame")


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", *map(str, args)], cwd=PROJECT,
                          capture_output=True, text=True)


def ok(r, status=0):
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.returncode == status, r.stdout[-2000:] + r.stderr[-2000:]


@pytest.fixture(scope="module")
def covered(tree, tmp_path_factory):
    tree("after")
    d = tmp_path_factory.mktemp("coverage")
    r = harness("coverage", "--tree", "after", *POST_PROC, "--json", d / "c.json",
                "--html", d / "c.html", "--results", "")
    return r, json.loads((d / "c.json").read_text()) if r.returncode == 0 else None, d


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_coverage_counts_the_branches_the_faults_took(covered):
    r, d, files = covered
    ok(r)
    assert schemas.problem(d) is None  # docs/schema/coverage.json
    state = {(b["path"], b["function"], b["condition"]): b["status"] for b in d["branches"]}
    assert state[("libavfilter/dnn/dnn_backend_common.c", "ff_dnn_get_result_common",
                  "task_status < 0")] == "taken"
    assert state[("libavfilter/vf_dnn_processing.c", "activate",
                  "async_state == DAST_FAIL")] == "taken"
    assert state[(ONNX, "extract_lltask_from_task", "!lltask")] == "not taken"
    assert d["summary"]["taken"] == sum(s == "taken" for s in state.values()) >= 2
    assert d["classes"] == {"SURFACED": 4} and d["trees"][0]["name"] == "after-coverage"
    assert "## Error-branch coverage of the DNN code: after-coverage" in r.stdout
    assert f"`{ONNX}`" in r.stdout and "<table>" in (files / "c.html").read_text()


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_a_branch_said_unreachable_that_a_fault_took_fails(covered):
    _, d, files = covered
    (key,) = [b["key"] for b in d["branches"] if b["function"] == "ff_dnn_get_result_common"
              and b["status"] == "taken"]
    data = files / "unreachable.txt"
    data.write_text(f"{key} :: said unreachable here on purpose\n")
    r = harness("coverage", "--tree", "after", *POST_PROC, "--unreachable", data,
                "--results", "")
    ok(r, 1)
    assert "the data file says no fault reaches it, but a fault took it" in r.stdout


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_mutate_kills_a_removed_null_check_and_skips_an_equivalent_one(tree, tmp_path):
    tree("after")
    one = ("mutate", "--from", "after", "--file", ONNX, "--function", "extract_lltask_from_task",
           "--operator", "check-removed", "--limit", "1", "--backend-name", "onnx",
           "--filter", "dnn_processing", "--route", "frames", "--fault", "malloc",
           "--results", "")
    r = harness(*one, "--json", tmp_path / "m.json")
    ok(r)
    d = json.loads((tmp_path / "m.json").read_text())
    assert schemas.problem(d) is None  # docs/schema/mutate.json
    (m,) = d["mutants"]
    assert (m["function"], m["operator"], m["before"], m["fate"]) == \
        ("extract_lltask_from_task", "check-removed", "!lltask", "killed"), m
    assert m["regressions"] and all("malloc" in x and "CRASH" in x for x in m["regressions"])
    assert d["summary"]["score"] == 100.0 and "**1 of 1 mutants killed" in r.stdout
    assert not list((cache_root() / "trees").glob("after+mutant-*")), "the mutant's tree stays"
    data = tmp_path / "equivalent.txt"
    data.write_text(f"{m['key']} :: said equivalent here on purpose\n")
    r = harness(*one, "--equivalent", data, "--json", tmp_path / "e.json")
    ok(r)
    (e,) = json.loads((tmp_path / "e.json").read_text())["mutants"]
    assert (e["fate"], e["why"], e["seconds"]) == ("equivalent", "said equivalent here on purpose", 0)
    assert "**0 of 0 mutants killed" in r.stdout


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_mutate_skips_a_mutant_whose_line_no_fault_ran(covered, tmp_path):
    """With the coverage report of the same sources (--lines), a mutant on a line no fault
    of the sweep ran is blind without a build: the lltask allocation's error return, which
    a post-processing failure never reaches; its check, evaluated every frame, is not."""
    _, d, files = covered
    (check,) = [b for b in d["branches"] if b["path"] == ONNX
                and b["function"] == "extract_lltask_from_task"
                and b["condition"] == "!lltask"]
    assert check["line"] in d["lines"][ONNX]["run"]
    r = harness("mutate", "--from", "after", "--file", ONNX, "--function",
                "extract_lltask_from_task", "--operator", "return-zero", "--limit", "1",
                "--lines", files / "c.json", "--json", tmp_path / "m.json", "--results", "")
    ok(r)
    (m,) = json.loads((tmp_path / "m.json").read_text())["mutants"]
    assert m["line"] in d["lines"][ONNX]["not_run"] and check["line"] < m["line"]
    assert (m["fate"], m["seconds"]) == ("blind", 0), m
    assert "no fault of the tree's sweep ran its line" in m["why"]


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_mutate_skips_a_check_whose_branch_no_fault_took(covered, tmp_path):
    """A check made false changes only the runs that took its branch: the lltask
    allocation's NULL check, evaluated every frame but taken by no post-processing
    failure, is blind without a build when the coverage report says its branch's first
    line never ran."""
    _, d, files = covered
    (check,) = [b for b in d["branches"] if b["path"] == ONNX
                and b["function"] == "extract_lltask_from_task"
                and b["condition"] == "!lltask"]
    assert check["line"] in d["lines"][ONNX]["run"] and check["status"] == "not taken"
    r = harness("mutate", "--from", "after", "--file", ONNX, "--function",
                "extract_lltask_from_task", "--operator", "check-removed", "--limit", "1",
                "--lines", files / "c.json", "--json", tmp_path / "m.json", "--results", "")
    ok(r)
    (m,) = json.loads((tmp_path / "m.json").read_text())["mutants"]
    assert (m["line"], m["before"]) == (check["line"], "!lltask")
    assert (m["fate"], m["seconds"]) == ("blind", 0), m
    assert "no fault of the tree's sweep took its branch" in m["why"]


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_mutate_runs_the_mutated_trees_side_once(tree, tmp_path):
    """Every mutant is diffed against the same tree: its census and its site runs are made
    by the first mutant's diff and taken by the next, not run again (the reruns that
    confirm a class are new runs)."""
    tree("after")
    r = harness("mutate", "--from", "after", "--file", "libavfilter/dnn/dnn_backend_common.c",
                "--function", "ff_dnn_start_inference_async", "--operator", "check-removed",
                "--limit", "3", "--backend-name", "onnx", "--filter", "dnn_processing",
                "--route", "flush", "--fault", "pthread_create", "--results", "",
                "--json", tmp_path / "m.json")
    ok(r)
    d = json.loads((tmp_path / "m.json").read_text())
    diffed = [m for m in d["mutants"] if m["fate"] in ("killed", "survived")]
    assert len(diffed) == 2, d["mutants"]
    assert d["reused_runs"] >= 2, d["reused_runs"]  # the census and a site at least
    assert f"{d['reused_runs']} runs of after taken from a diff before" in r.stdout


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_mutate_fails_every_value_as_the_gate_does(tree, tmp_path):
    """#24760's own bug as a mutant: AVERROR() dropped from the failed thread start's
    return. Its EAGAIN is mapped apart (AVERROR_EXTERNAL), so the first value of
    pthread_create()'s profile cannot see it; by default mutate fails every value at the
    sites through the mutant, as the gate's diff does, and EINVAL and EPERM kill it
    (SURFACED -> LOST). With --values one it survives."""
    tree("after")
    one = ("mutate", "--from", "after", "--file", "libavfilter/dnn/dnn_backend_common.c",
           "--function", "ff_dnn_start_inference_async", "--operator", "averror-dropped",
           "--backend-name", "onnx", "--filter", "dnn_processing", "--route", "flush",
           "--fault", "pthread_create", "--results", "")
    fates = {}
    for values in ((), ("--values", "one")):
        r = harness(*one, *values, "--json", tmp_path / "m.json")
        ok(r)
        (m,) = [m for m in json.loads((tmp_path / "m.json").read_text())["mutants"]
                if m["before"] == "AVERROR(ret)"]
        fates[values] = m
    assert fates[()]["fate"] == "killed", fates[()]
    assert sorted("EINVAL" in x or "EPERM" in x for x in fates[()]["regressions"]) == [True, True]
    assert all("SURFACED -> LOST" in x for x in fates[()]["regressions"])
    assert fates[("--values", "one")]["fate"] == "survived", fates[("--values", "one")]


@pytest.mark.onnx
@pytest.mark.dnn_processing
def test_mutate_stops_at_the_part_that_kills(tree, preload, monkeypatch):
    """A mutant's diff runs its groups a part at a time and stops once one kills it: the
    lltask allocation's NULL check removed, diffed one group a part, is killed by the
    malloc family's group (the allocation failed, a CRASH) and the pthread_create group
    after it is not run."""
    from dataclasses import replace

    from harness import caseload
    from harness.compile.families import sweep_fault
    from harness.experiments import diff, mutate
    from harness.judge import mutants
    after = tree("after")
    text = (after.src / ONNX).read_text()
    (m,) = [m for m in mutants.mutants(text, ONNX, ("check-removed",))
            if m.function == "extract_lltask_from_task" and m.before == "!lltask"]
    groups = diff.plan_groups([("onnx", "dnn_processing")],
                              [sweep_fault("malloc"), sweep_fault("pthread_create")])
    assert [g.family for g in groups] == ["malloc", "pthread_create"]
    case = caseload.load()
    monkeypatch.setattr(mutate, "PART", 1)
    f = mutate.one(m, text, after, case.layout, groups, preload, 2, case.expect, "one", 1,
                   False)
    assert f.fate == "killed" and all("CRASH" in r for r in f.regressions), f
    assert f.groups == [groups[0].key], f.groups
    monkeypatch.setattr(mutate, "PART", 8)
    f = mutate.one(m, text, after, case.layout, [replace(g) for g in reversed(groups)],
                   preload, 2, case.expect, "one", 1, False)
    assert f.fate == "killed" and len(f.groups) == 2  # one part: both run
