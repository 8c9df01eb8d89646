"""Cases are data the engine loads by name: the PR's (pr24760) and the follow-up fixes'
(followups), whose claim is a diff judged by `python -m harness diff --case followups`."""

import re
import subprocess
import sys

import pytest

from harness.cases import followups, pr24760
from harness import caseload, cli
from harness.case import Case
from harness.errors import HarnessError
from harness.judge import diff
from harness.obtain.layout import Layout, TreeSpec
from harness.obtain.trees import Plan
from harness.paths import PROJECT
from tests.conftest import need_tree


@pytest.mark.unit
def test_cases_by_name():
    names = caseload.names()  # every module of harness/cases/ with a CASE, sorted
    assert {"followups", "pr24760"} <= set(names) and names == sorted(names)
    assert caseload.load("pr24760") is pr24760.CASE
    assert caseload.load("pr24760").tables is pr24760.TABLES
    with pytest.raises(HarnessError, match="case 'followups' has no TABLES"):
        caseload.load("followups").part("tables")


@pytest.mark.unit
def test_followups_case_names_its_patches():
    series = (followups.SERIES / "series").read_text().split()
    assert len(series) == 22 and all((followups.SERIES / n).is_file() for n in series)
    assert all(k.count(" / ") == 3 for k in followups.DIFF)


class _Site:
    def __init__(self, cls):
        self.cls = diff.Class(cls)


@pytest.mark.unit
def test_against_a_case():
    g = diff.Group("tf", "dnn_processing", "pthread_create=1*return(EAGAIN)", "pthread_create")
    pairs = [diff.Pair(g, "p", i, [_Site("HANG"), _Site("SURFACED")], diff.Change.FIX)
             for i in range(4)]
    d = diff.Diff([], [g], pairs, {}, 0)
    key = "tf / dnn_processing / frames / pthread_create"
    assert diff.against(d, {key: {("HANG", "SURFACED"): 4}}) == []
    assert diff.against(d, {key: {("HANG", "SURFACED"): 3}}) == [
        f"{key}: got 4 HANG -> SURFACED, the case says 3 HANG -> SURFACED"]
    assert diff.against(d, {"onnx / dnn_processing / frames / malloc": {}}) == [
        "onnx / dnn_processing / frames / malloc: not run"]


def _case_diff(*narrow):
    """`diff --case followups` on the groups the options keep: its stdout, having exited 0
    (the verdict PASS and every group as the case says) with no regression; flaky sites
    only where the case's DIFF says the from-class varies run by run (its ANY)."""
    r = subprocess.run([sys.executable, "-m", "harness", "diff", "--case", "followups",
                        "--confirm", "1", "--backend", "all", *narrow], cwd=PROJECT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "Case followups: as it says." in r.stdout, r.stdout
    assert "0 regressions" in r.stdout, r.stdout
    low, high = fixes_claimed(narrow)
    flaky = re.search(r"(\d+) flaky", r.stdout)
    assert (int(flaky.group(1)) if flaky else 0) <= high - low, r.stdout
    return r.stdout


@pytest.mark.after
@pytest.mark.tensorflow
@pytest.mark.onnx
@pytest.mark.torch
def test_followups_fix_what_the_case_says(trees):
    """The follow-up case's verdict as a test, on the groups of 0001-0005's claims and the
    backend families' (the whole case, every malloc site of four backends, takes long):
    after -> after + the patches fixes ONNX Runtime's allocation hangs and altered frames,
    the TensorFlow and LibTorch thread-start hangs, the pre-processing sites and what the
    backend families found, and regresses nothing; the malloc sites are steady (the
    injector poisons). Each run's fixes are counted from the case's DIFF."""
    tree = need_tree(trees, "after")
    if not {"tf", "onnx", "torch"} <= tree.backends:
        pytest.skip("trees built without tf, onnx and torch (run: make test BACKENDS=all)")
    narrow = (("--backend-name", "onnx"),
              ("--backend-name", "tf,torch", "--fault",
               "pthread_create,wrap:ff_proc_from_frame_to_dnn,tensorflow,libtorch"))
    for options in narrow:
        low, high = fixes_claimed(options)
        got = int(re.search(r"(\d+) fix(es)?\b", _case_diff(*options)).group(1))
        assert low <= got <= high, (options, got, low, high)


def fixes_claimed(options) -> tuple:
    """The fixes the case's DIFF claims of the groups `options` keep: (at least, at most),
    its ANY sites being fixes or not run by run."""
    from harness.commands.diff import narrowed
    from harness.judge.diff import ANY, Change, Class, change
    keep = dict(zip(options[::2], options[1::2]))
    args = type("Args", (), {"backend_name": keep.get("--backend-name"),
                             "filter": keep.get("--filter"), "route": keep.get("--route"),
                             "fault": [keep["--fault"]] if "--fault" in keep else None})
    groups = narrowed(args, followups.DIFF).values()
    low = sum(n for g in groups for (a, b), n in g.items()
              if a != ANY and change(Class(a), Class(b)) is Change.FIX)
    return low, low + sum(n for g in groups for (a, _), n in g.items() if a == ANY)


@pytest.mark.after
@pytest.mark.openvino
def test_followups_fix_what_hung_or_crashed_in_both_trees(trees):
    """0006-0013 on OpenVINO's dnn_detect: its allocations that crashed in init_model_ov()
    (0010), hung in the lltask extraction (0006) or on the request's way back (0009, 0011)
    with 0001-0005 too end with the error or all frames; none is blind any more."""
    tree = need_tree(trees, "after")
    if "openvino" not in tree.backends:
        pytest.skip("trees built without openvino (run: make test BACKENDS=all)")
    options = ("--backend-name", "openvino", "--filter", "dnn_detect", "--fault", "malloc",
               "--route", "frames")
    out = _case_diff(*options)
    total = sum(followups.DIFF["openvino / dnn_detect / frames / malloc"].values())
    assert f"judged {total} / blind 0 / total {total} sites" in out, out
    assert f"{fixes_claimed(options)[0]} fixes" in out, out


@pytest.mark.after
@pytest.mark.onnx
@pytest.mark.openvino
@pytest.mark.tensorflow
@pytest.mark.torch
def test_followups_fix_what_the_setup_route_found(trees):
    """0018-0021 on the setup route: every allocation of dnn_processing's set-up on the four
    backends (get_output's unset frames, the output names, LibTorch's queues, the first
    inference's lost failure) ends with the error; none is blind."""
    tree = need_tree(trees, "after")
    if not {"onnx", "openvino", "tf", "torch"} <= tree.backends:
        pytest.skip("trees built without every backend (run: make test BACKENDS=all)")
    options = ("--route", "setup", "--filter", "dnn_processing", "--fault", "malloc")
    out = _case_diff(*options)
    total = sum(sum(v.values()) for k, v in followups.DIFF.items()
                if k.endswith(" / dnn_processing / setup / malloc"))
    assert f"judged {total} / blind 0 / total {total} sites" in out, out


@pytest.mark.unit
def test_the_case_declares_its_trees():
    """base, before and after are the PR case's layout, not the engine's: before applies
    patches 1-8 on base, after patch 9 on before; base and before are built again under
    the sanitizers; followups builds on the same trees."""
    layout = pr24760.LAYOUT
    assert layout.names == ("base", "before", "after")
    assert [layout.parent(n) for n in layout.names] == [None, "base", "before"]
    assert [p.name[:4] for p in layout.patches("before")] == [f"{i:04}" for i in range(1, 9)]
    assert [p.name[:4] for p in layout.patches("after")] == ["0009"]
    assert layout.patches("base") == []
    assert layout.sanitizer_trees == ("base", "before")
    assert followups.LAYOUT is layout


@pytest.mark.unit
def test_a_layout_is_whole():
    """A tree after its parent, patches from a series, sanitizer trees closed under their
    parents; refs of a clone are a chain with no patch."""
    with pytest.raises(HarnessError, match="comes before its parent"):
        Layout((TreeSpec("after", parent="before"), TreeSpec("before")))
    with pytest.raises(HarnessError, match="applies patches of no series"):
        Layout((TreeSpec("base"), TreeSpec("before", "base", (1,))))
    with pytest.raises(HarnessError, match="sanitizer tree 'before'"):
        Layout((TreeSpec("base"), TreeSpec("before", "base")), sanitizer_trees=("before",))
    chain = Layout.chain(["a", "b", "c"])
    assert [chain.parent(n) for n in chain.names] == [None, "a", "b"]
    assert chain.patches("c") == []
    with pytest.raises(HarnessError, match="no layout"):
        Plan("default")
    with pytest.raises(HarnessError, match="builds no tree under a sanitizer"):
        Plan("default", chain, sanitizer="asan")
    with pytest.raises(HarnessError, match=r"no release: the layout names none"):
        Plan("default", chain)
    # the release a layout names is its trees' unless another is given
    named = Layout((TreeSpec("a"),), release="8.1.2")
    assert Plan("default", named).release.version == "8.1.2"
    assert Plan("default", named, release="7.1.5").release.version == "7.1.5"


@pytest.mark.unit
def test_a_case_without_trees_is_one_error_line(monkeypatch, capsys):
    """A command that builds asks the case for its layout; a case without one is bad
    input: one `error:` line, exit 2."""
    import types
    case = types.ModuleType("harness.cases.nolayout")
    case.CASE = Case("nolayout", ("a", "b"), faults=("none",))
    monkeypatch.setitem(sys.modules, "harness.cases.nolayout", case)
    monkeypatch.setattr(caseload, "names", lambda: ["followups", "nolayout", "pr24760"])
    assert cli.main(["build", "--case", "nolayout", "--backend", "default"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["error: case 'nolayout' has no LAYOUT for this command (it has: FAULTS, PAIR)"]


@pytest.mark.unit
def test_a_case_may_claim_each_calls_class_alone():
    """`sweep` reads a case's sweep_sites (each call's class) without its sweep (one class
    for every site): a case that claims only the former is not refused for lacking the
    latter; a case that says nothing of sweeps is (one error line, exit 2)."""
    from harness.case import Case, CaseLacks
    from harness.commands.sweep import expected
    key = ("onnx", "dnn_processing", "malloc")
    sites = Case("x", ("a", "b"), sweep_sites={key: ["SURFACED", "HANG"]})
    assert expected(sites, "onnx", "dnn_processing", "malloc", "frames") == ["SURFACED", "HANG"]
    assert expected(sites, "onnx", "dnn_processing", "malloc", "flush") is ...
    one = Case("x", ("a", "b"), sweep={key: ("SURFACED", "why")})
    assert expected(one, "onnx", "dnn_processing", "malloc", "frames") == "SURFACED"
    with pytest.raises(CaseLacks, match="has no SWEEP"):
        expected(Case("x", ("a", "b")), "onnx", "dnn_processing", "malloc", "frames")
