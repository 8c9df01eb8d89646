"""A diff split across a CI matrix (issue 25): `diff --shard K/N` runs shard K's sites,
`python -m harness merge` puts the shards together. Every site goes to exactly one shard,
the same way on any machine; the merge refuses shards that are not one diff's; and
merge(shards) is the diff run whole, site by site, with its verdict and exit status."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness.errors import ExitStatus, HarnessError
from harness.judge import schemas, shard
from harness.judge.envelope import envelope
from harness.paths import PROJECT


def harness(*args):
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=PROJECT,
                          capture_output=True, text=True)


@pytest.mark.unit
@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "a/b", "1", "1/4/2", "-1/4", "1/1000"])
def test_bad_shard(text):
    with pytest.raises(HarnessError, match="bad --shard"):
        shard.parse(text)


# sites as a diff names them: (its group and place, its position there)
SITES = [(f"onnx / dnn_processing / frames / libav\0{place}", nth)
         for place, calls in (("av_frame_alloc < a", 33), ("av_frame_ref < b", 7),
                              ("av_malloc < c", 1), ("av_malloc < d", 1), ("av_malloc < e", 2))
         for nth in range(calls)]


@pytest.mark.unit
def test_every_site_in_exactly_one_shard():
    for n in (1, 2, 3, 4, 7):
        parts = [shard.mine(SITES, (k, n)) for k in range(1, n + 1)]
        assert sorted(i for p in parts for i in p) == list(range(len(SITES)))
        assert parts == [shard.mine(SITES, (k, n)) for k in range(1, n + 1)], \
            "the same inputs, the same partition"


@pytest.mark.unit
def test_a_places_calls_are_dealt_in_turn():
    """The 33 calls at one place: 8 or 9 to each of 4 shards, one after another."""
    owners = [shard.owner(*site, 4) for site in SITES[:33]]
    assert sorted(owners.count(k) for k in range(4)) == [8, 8, 8, 9]
    assert all((b - a) % 4 == 1 for a, b in zip(owners, owners[1:]))


@pytest.mark.unit
def test_a_site_keeps_its_shard_whatever_else_the_census_counted():
    """Each shard runs its own census, and a backend with threads of its own counts more
    calls in one run than in another: a site's shard is its own, not its index among
    whatever its census found."""
    fewer = [site for site in SITES if not (site[0].endswith("< a") and site[1] >= 30)
             and not site[0].endswith("< d")]
    for n in (2, 3, 4):
        whole = {SITES[i]: k for k in range(1, n + 1) for i in shard.mine(SITES, (k, n))}
        assert {fewer[i]: k for k in range(1, n + 1) for i in shard.mine(fewer, (k, n))} \
            == {site: whole[site] for site in fewer}


def _shard_json(k, n, **change):
    """A shard of a diff with no group, as diffreport writes one (its schema's)."""
    from harness.judge.diff import Diff, Side
    from harness.judge.diffreport import to_json
    from harness.obtain.tree import Tree
    sides = [Side(name, Tree(name, Path("/t"), {"key": name, "source": {"kind": "release"},
                                                "series": []})) for name in ("a", "b")]
    seconds = dict.fromkeys(("census", "sites", "confirm", "total"), 0.0)
    d = to_json(Diff(sides, [], [], seconds, 0, shard=(k, n)))
    d["inputs"].update(change)
    return d


@pytest.mark.unit
@pytest.mark.parametrize("shards, says", [
    ([(1, 2), (1, 2)], "shard 1/2 given twice"),
    ([(1, 3), (2, 3)], "shard 3/3 missing"),
    ([(1, 2), (2, 2, {"to": "c"})], "shards of different diffs (their trees differ)"),
    ([(1, 2), (2, 2, {"groups": [["x", "y", [1, 1], [False, False]]]})],
     "shards of different diffs (their inputs differ)"),
    ([(1, 2), (2, 3)], "is shard 2/3"),
], ids=["twice", "missing", "other-trees", "other-inputs", "other-n"])
def test_merge_refuses(tmp_path, shards, says):
    paths = []
    for i, (k, n, *change) in enumerate(shards):
        p = tmp_path / f"s{i}.json"
        p.write_text(json.dumps(_shard_json(k, n, **(change[0] if change else {}))))
        paths.append(str(p))
    r = harness("merge", *paths)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and says in r.stderr, r.stderr


def _counted_shard(k, n, count, nths):
    """Shard K/N of a diff of one group whose censuses counted `count` calls on each side,
    with the sites at its one place whose nth is in `nths` (each SURFACED on both)."""
    from types import SimpleNamespace
    from harness.judge.diff import Change, Diff, Group, Pair, Side
    from harness.judge.diffreport import to_json
    from harness.judge.sweep import Class, Site
    from harness.obtain.tree import Tree
    from harness.run.outcome import Outcome
    from harness.run.record import RunRecord
    sides = [Side(name, Tree(name, Path("/t"), {"key": name, "source": {"kind": "release"},
                                                "series": []})) for name in ("a", "b")]
    group = Group("openvino", "dnn_processing", "libav=ENOMEM", "libav", [count, count],
                  ["", ""])
    result = SimpleNamespace(outcome=Outcome.PASS, reason="", seconds=0.1, record=RunRecord())
    pairs = [Pair(group, "av_frame_alloc < f", nth,
                  [Site(name, nth, Class.SURFACED, result, "run", "f") for name in "ab"],
                  Change.SAME, [[Class.SURFACED]] * 2, "", (0, nth, 0)) for nth in nths]
    seconds = dict.fromkeys(("census", "sites", "confirm", "total"), 1.0)
    return to_json(Diff(sides, [group], pairs, seconds, len(pairs) * 2, shard=(k, n)))


@pytest.mark.unit
def test_merge_takes_shards_whose_censuses_counted_differently(tmp_path):
    """OpenVINO's census counts 33 frame calls in one run and 38 in another: shards of one
    diff, merged with each shard's own sites and the most calls counted; the difference is
    said on stderr and in the report."""
    paths = []
    for k, count, nths in ((1, 38, [0, 2, 36]), (2, 33, [1, 3, 31])):
        paths.append(tmp_path / f"s{k}.json")
        paths[-1].write_text(json.dumps(_counted_shard(k, 2, count, nths)))
    merged, report = tmp_path / "merged.json", tmp_path / "merged.md"
    r = harness("merge", *map(str, paths), "--json", str(merged), "--markdown", str(report))
    assert r.returncode == 0, r.stderr
    said = "openvino / dnn_processing / frames / libav (from): its census counted 33, 38 calls"
    assert f"merge: {said}" in r.stderr and said in report.read_text()
    m = json.loads(merged.read_text())
    assert [s["nth"] for s in m["sites"]] == [0, 1, 2, 3, 31, 36]
    assert m["groups"][0]["sites"] == {"from": 38, "to": 38}
    assert schemas.problem(m) is None


@pytest.mark.unit
def test_merge_refuses_a_group_cut_short(tmp_path):
    """A shard's groups name each census's count, which the merge reads apart from the rest
    of its inputs: a row cut short is a shard that breaks its schema, one error line."""
    paths = []
    for k, count in ((1, 38), (2, 33)):
        d = _counted_shard(k, 2, count, [k])
        if k == 1:
            d["inputs"]["groups"][0] = d["inputs"]["groups"][0][:3]
        paths.append(tmp_path / f"s{k}.json")
        paths[-1].write_text(json.dumps(d))
    r = harness("merge", *map(str, paths))
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines() == [r.stderr.strip()]
    assert "not a well-formed shard of a diff" in r.stderr and "inputs.groups[0]" in r.stderr


@pytest.mark.unit
def test_merge_refuses_what_is_not_a_shard(tmp_path):
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps({**_shard_json(1, 1), "shard": None}))
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    for p, says in ((whole, "not a shard"), (bad, "not JSON"), (tmp_path / "no.json",
                                                                  "no such file")):
        r = harness("merge", str(p))
        assert r.returncode == 2 and says in r.stderr, r.stderr


# A small family both ways: the flush route's one thread start and ONNX Runtime's
# post-processing (#24702's commit 3: ALTERED in base, SURFACED in before).
SMALL = ("--backend-name", "onnx", "--filter", "dnn_processing", "--route", "frames,flush",
         "--fault", "pthread_create,wrap:ff_proc_from_dnn_to_frame", "--confirm", "1")


def _sites(d):
    return [(s["order"], s["backend"], s["filter"], s["route"], s["family"], s["place"],
             s["nth"], s["change"], s["blind"], s["touched"], s["from"] and s["from"]["class"],
             s["to"] and s["to"]["class"]) for s in d["sites"]]


@pytest.mark.onnx
@pytest.mark.base
@pytest.mark.before
@pytest.mark.parametrize("a, b", [("base", "before"), ("before", "base")],
                         ids=["base-before", "before-base"])
def test_merged_shards_are_the_whole_diff(tree, tmp_path, a, b):
    tree(a), tree(b)
    whole = tmp_path / "whole.json"
    r = harness("diff", "--from", a, "--to", b, *SMALL, "--json", str(whole))
    assert r.returncode in (0, 1), r.stderr[-2000:]
    status = r.returncode
    parts = []
    for k in (1, 2, 3):
        p = tmp_path / f"shard{k}.json"
        s = harness("diff", "--from", a, "--to", b, *SMALL, "--shard", f"{k}/3", "--json", str(p))
        assert s.returncode == 0, s.stderr[-2000:]
        parts.append(str(p))
    merged, xml = tmp_path / "merged.json", tmp_path / "merged.xml"
    m = harness("merge", *reversed(parts), "--json", str(merged), "--junit", str(xml))
    assert m.returncode == status, m.stdout + m.stderr[-2000:]
    w, g = json.loads(whole.read_text()), json.loads(merged.read_text())
    assert [schemas.problem(json.loads(Path(p).read_text())) for p in (*parts, whole, merged)] \
        == [None] * 5
    suite = ET.parse(xml).getroot()
    assert int(suite.get("tests")) == len(w["sites"]) + len(g["census_errors"])
    assert int(suite.get("failures")) == w["verdict"]["regression"]
    assert _sites(g) == _sites(w)
    for key in ("exit_status", "word", "verdict", "counts", "blind", "touched", "groups"):
        assert g[key] == w[key], key
    sizes = [len(json.loads(Path(p).read_text())["sites"]) for p in parts]
    assert sum(sizes) == len(w["sites"]) and min(sizes) > 0
    verdict = next(l for l in r.stdout.splitlines() if l.startswith("**"))
    assert verdict in m.stdout
    broken = json.loads(Path(parts[0]).read_text())
    del broken["sites"][0]["from" if broken["sites"][0]["from"] else "to"]["class"]
    Path(parts[0]).write_text(json.dumps(broken))
    b = harness("merge", *parts)
    assert b.returncode == 2 and b.stderr.splitlines() == [b.stderr.strip()], b.stderr
    assert "not a well-formed shard of a diff" in b.stderr and "'class'" in b.stderr


# A sweep of the same small family, whole and as two shards.
SWEEP = ("sweep", "--build", "before,after", "--backend-name", "onnx", "--filter",
         "dnn_processing", "--route", "frames,flush", "--fault", "wrap:ff_proc_from_dnn_to_frame")


def _sweep_sites(d):
    return {key: {b: (v["sites"], v["census"], [(r["call"], r["class"], r["where"])
                                                for r in v["runs"]])
                  for b, v in g["builds"].items()} for key, g in d["sweeps"].items()}


@pytest.mark.onnx
@pytest.mark.before
@pytest.mark.after
def test_merged_sweep_shards_are_the_whole_sweep(tree, tmp_path):
    """`sweep --shard K/N`: every site in exactly one shard; merge gives the whole sweep's
    tables, sites, problems and exit status."""
    tree("before"), tree("after")
    whole = tmp_path / "whole.json"
    r = harness(*SWEEP, "--json", str(whole))
    assert r.returncode == 0, r.stderr[-2000:]
    parts = []
    for k in (1, 2):
        p = tmp_path / f"shard{k}.json"
        s = harness(*SWEEP, "--shard", f"{k}/2", "--json", str(p))
        assert s.returncode == 0, s.stderr[-2000:]
        parts.append(p)
    merged = tmp_path / "merged.json"
    m = harness("merge", *map(str, parts), "--json", str(merged))
    assert m.returncode == 0, m.stderr[-2000:]
    assert m.stdout.strip() == r.stdout.strip(), "the same tables"
    w, g = json.loads(whole.read_text()), json.loads(merged.read_text())
    assert [schemas.problem(json.loads(p.read_text())) for p in (*parts, whole, merged)] \
        == [None] * 4
    assert _sweep_sites(g) == _sweep_sites(w)
    assert (g["problems"], g["exit_status"], g["command"]) == (w["problems"], 0, "sweep")
    runs = [sum(len(v["runs"]) for x in json.loads(p.read_text())["sweeps"].values()
                for v in x["builds"].values()) for p in parts]
    every = sum(len(v["runs"]) for x in w["sweeps"].values() for v in x["builds"].values())
    assert sum(runs) == every == 8 and min(runs) > 0, runs  # 4 sites a tree, frames route


def _sweep_shard(k, n, runs, **change):
    run = {"outcome": "MEASURED", "reason": "", "seconds": 0.2, "where": "f (x.c)",
           "reproduce": "python -m harness run", "id": "after-x", "diffs": [],
           "expect": "after", "fault": "x", "result": {}}
    d = {**envelope("sweep", [{"name": "after", "key": "k", "path": "/t"}], 0),
         "case": "pr24760", "shard": [k, n], "skipped": [], "problems": [],
         "inputs": {"fault": "wrap:ff_proc_from_frame_to_dnn", "routes": ["frames"],
                    "pairs": [["onnx", "dnn_processing"]], "limit": None},
         "sweeps": {"onnx": {"backend": "onnx", "filter": "dnn_processing", "route": "frames",
                             "family": "wrap:ff_proc_from_frame_to_dnn", "fault": "x",
                             "title": "onnx",
                             "builds": {"after": {"sites": 2, "census": {
                                 "outcome": "PASS", "reason": "", "injector": True},
                                 "runs": [{**run, "call": c, "class": cls}
                                          for c, cls in runs]}}}}}
    d.update(change)
    return d


@pytest.mark.unit
def test_merge_judges_a_sweep_again(tmp_path):
    """The merge holds the sites to the case itself (pr24760 says every
    ff_proc_from_frame_to_dnn site on ONNX Runtime is ALTERED), whatever the shards said;
    shards of a sweep and of a diff do not mix."""
    paths = []
    for k, runs in ((1, [(1, "ALTERED")]), (2, [(2, "SURFACED")])):
        p = tmp_path / f"s{k}.json"
        p.write_text(json.dumps(_sweep_shard(k, 2, runs)))
        paths.append(str(p))
    r = harness("merge", *paths)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip() == ("- onnx / dnn_processing / frames: after call 2: SURFACED, "
                                "expected ALTERED")
    diff_shard = tmp_path / "d.json"
    diff_shard.write_text(json.dumps(_shard_json(2, 2)))
    r = harness("merge", paths[0], str(diff_shard))
    assert r.returncode == 2 and "is a shard of a diff" in r.stderr, r.stderr
    other = tmp_path / "o.json"
    other.write_text(json.dumps(_sweep_shard(2, 2, [(2, "ALTERED")], case="followups")))
    r = harness("merge", paths[0], str(other))
    assert r.returncode == 2 and "their inputs differ" in r.stderr, r.stderr


@pytest.mark.unit
def test_merge_keeps_a_changed_output(tmp_path):
    """Each shard runs the censuses and compares the output with no fault: a change one
    shard saw fails the merge as it fails the whole diff; a shard that saw the output
    unsteady leaves it not judged."""
    from harness.judge import merge
    outs = [{"changed": "", "unsteady": False}, {"changed": "frame 1 of 3: md5 a -> b",
                                                 "unsteady": False}]
    shards = []
    for k, out in enumerate(outs, 1):
        d = _counted_shard(k, 2, 3, [k - 1])
        d["groups"][0]["output"] = out
        shards.append((f"s{k}.json", d))
    m = merge.merged(shards)
    assert m.output_changes == ["openvino / dnn_processing / frames: frame 1 of 3: md5 a -> b"]
    assert m.exit_status == ExitStatus.FAIL
    shards[0][1]["groups"][0]["output"] = {"changed": "", "unsteady": True}
    m = merge.merged(shards)
    assert (m.output_changes, m.groups[0].unsteady) == ([], True)
    assert m.exit_status == ExitStatus.OK
