"""PR #24760's core claim on every pinned FFmpeg release (harness/obtain/releases.py;
opt-in: `pytest -m other_release`, one release with `-k 7.1.5`, or `make releases`).
For each it builds its own trees, twice: from the release's tarball with the series
tried patch by patch (`--release`), and from two refs of a clone of that tree
(`--git-dir`). On both, before (the patches that apply, commit 7 among them) must lose a
failed thread start at EOF and after (+ commit 9) surface it, on every backend the
trees are built with; what the release lacks is reported from the probe.

What each release must show is below, as measured when it was pinned; a release pinned
without a row here fails test_every_pinned_release_has_its_row."""

import re
import subprocess
from dataclasses import dataclass

import pytest

from harness.cases import pr24760 as expected
from harness.cases.pr24760 import LAYOUT
from harness.compile import ffi_load
from harness.errors import ScenarioError
from harness.judge import series
from harness.obtain import probe, releases
from harness.obtain.trees import Plan
from harness.run import faults, matrix, runner
from harness.run.outcome import Outcome, sink_sequence

# every test builds trees, opt-in, but the one that checks the table below
OPT_IN = pytest.mark.other_release


@dataclass(frozen=True)
class Pinned:
    backends: str        # the set its trees are built with
    applies: tuple       # the series' patches before takes (after adds 9)
    left_out: tuple      # those git am -3 leaves out
    home: str            # the struct whose activate() the recorder copies
    types: tuple         # its DNNBackendType
    refused: dict = None  # (backend, filter) -> the start of the reason it is not expressible
    gate_blind: str = ""  # why the regression gate cannot judge its flush route (measured)


PINNED = {
    # TensorFlow only: 5.1.9's configure requires OpenVINO's C API of before 2024
    # (`require libopenvino c_api/ie_c_api.h`), which OpenVINO 2026.4.1 no longer ships;
    # its DNNModule has no .type (the stand-in tells the backend by its flush) and its
    # filters declare their own dnn_backend option
    "5.1.9": Pinned("tf", (7,), (1, 2, 3, 4, 5, 6, 8), "AVFilter",
                    ("DNN_NATIVE", "DNN_TF", "DNN_OV")),
    # LibTorch is left out: 7.1.5's dnn_backend_torch.cpp:438 calls
    # at::detail::getXPUHooks().initXPU(), which LibTorch 2.13's XPUHooksInterface no
    # longer has (`make` stops there: "has no member named 'initXPU'")
    # its DNN filters run with async 0 (the option's default of 1 is never applied), and
    # its OpenVINO backend does not classify with async 0
    "7.1.5": Pinned("openvino,tf", (1, 5, 7), (2, 3, 4, 6, 8), "AVFilter",
                    ("DNN_TF", "DNN_OV", "DNN_TH"),
                    {("openvino", "dnn_classify"): "7.1.5's DNN filters run with async 0 "
                     "(ff_dnn_init_child_class() in libavfilter/dnn/dnn_interface.c does not "
                     "apply the async option's default of 1) and its OpenVINO backend does not "
                     "run DFT_ANALYTICS_CLASSIFY with async 0 (dnn_backend_openvino.c)"}),
    "8.1.2": Pinned("all", (1, 5, 7), (2, 3, 4, 6, 8), "FFFilter",
                    ("DNN_TF", "DNN_OV", "DNN_TH")),
    "9.0.2": Pinned("all", (1, 2, 3, 4, 5, 6, 7, 8), (), "FFFilter",
                    ("DNN_TF", "DNN_OV", "DNN_TH", "DNN_ONNX")),
}
PAIRS = [("onnx", "dnn_processing"), ("tf", "dnn_processing"),
         ("openvino", "dnn_processing"), ("torch", "dnn_processing"), ("tf", "dnn_detect"),
         ("openvino", "dnn_detect"), ("openvino", "dnn_classify")]
CLONE_FAULTS = ("pthread_create=EAGAIN", "pthread_create=EINVAL")
DNN_TYPE = {"onnx": "DNN_ONNX", "openvino": "DNN_OV", "tf": "DNN_TF", "torch": "DNN_TH"}


def _backends(version) -> set:
    return set(Plan(PINNED[version].backends, LAYOUT, release=version).backend_names)


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    """(version, kind) -> before and after of the release (`release`), or of a user's
    clone of it whose last two commits are before and after (`clone`); built now if the
    cache has none."""
    built = {}

    def get(version, kind):
        if (version, kind) not in built:
            if kind == "release":
                plan = Plan(PINNED[version].backends, LAYOUT, release=version)
            else:
                repo = tmp_path_factory.mktemp("user") / f"ffmpeg-{version}"
                subprocess.run(["git", "clone", "-q", "--shared",
                                str(get(version, "release")["after"].src), str(repo)],
                               check=True)
                plan = Plan(PINNED[version].backends, repo=repo,
                            refs={"before": "HEAD~1", "after": "HEAD"})
            built[version, kind] = {n: plan.get(n) for n in ("before", "after")}
        return built[version, kind]
    return get


@pytest.mark.unit
def test_every_pinned_release_has_its_row():
    assert set(PINNED) == set(releases.versions())


@OPT_IN
@pytest.mark.parametrize("version", list(PINNED))
def test_the_patches_that_apply(trees, version):
    """Each patch is tried with git am -3 and 9 goes on top; those left out say what
    did not match. On the release the series was adapted to, all nine apply."""
    pin, ts = PINNED[version], trees(version, "release")
    before, after = ts["before"].stamp, ts["after"].stamp
    assert series.numbers(before["series"]) == list(pin.applies)
    assert series.numbers(after["series"]) == list(pin.applies) + [9]
    assert series.numbers(n for n, _ in after.get("skipped", [])) == list(pin.left_out)
    assert all(why for _, why in after.get("skipped", []))
    notes = series.notes(list(ts.values()), expected.TABLE_NEEDS)
    if pin.left_out:
        assert notes[-1].startswith("the case's tables can be shown on these trees")
    else:
        assert notes == []  # the series' own release: nothing to say


@OPT_IN
@pytest.mark.parametrize("version, kind", [(v, k) for v in PINNED for k in ("release", "clone")])
def test_what_the_probe_finds(trees, version, kind):
    pin, t = PINNED[version], trees(version, kind)["after"]
    facts = probe.facts(t.src)
    assert facts.version == version
    assert facts.backend_types == pin.types
    assert facts.activate_home[0] == pin.home
    assert facts.flags["FFDNN_HAS_GRAPH_SETUP"] == 1
    assert facts.enabled == _backends(version)
    assert t.backends == facts.enabled
    ffi, lib = ffi_load.load(t)
    assert (lib.HAS_FFFILTER, lib.HAS_AVFILTER_ACTIVATE) == \
        ((1, 0) if pin.home == "FFFilter" else (0, 1))
    assert lib.HAS_DNN_ONNX == ("DNN_ONNX" in pin.types)
    assert hasattr(lib, "DNN_ONNX") == ("DNN_ONNX" in pin.types)
    assert lib.HAS_DNN_TH == ("DNN_TH" in pin.types)
    assert getattr(lib, "DNN_TH", 4) == 4
    assert lib.HAS_DNNMODULE_TYPE == facts.flags["FFDNN_HAS_DNNMODULE_TYPE"]
    tf = facts.backends["tf"]
    assert (tf.type, bool(tf.flush)) == ("DNN_TF", not lib.HAS_DNNMODULE_TYPE)


@OPT_IN
@pytest.mark.parametrize("version, kind", [(v, k) for v, p in PINNED.items()
                                           if "DNN_ONNX" not in p.types
                                           for k in ("release", "clone")])
def test_onnx_rows_are_not_expressible(trees, version, kind):
    with pytest.raises(ScenarioError, match=rf"not expressible on FFmpeg {version}: "
                                            rf"{version}'s libavfilter/dnn has no ONNX backend"):
        matrix.scenarios(list(trees(version, kind).values()), "onnx", "dnn_processing",
                         ["pthread_create=EAGAIN"])


def _pairs(version):
    """The PR's pairs on the backends the release has and its trees are built with, but
    those it refuses."""
    pin = PINNED[version]
    return [(b, f) for b, f in PAIRS if DNN_TYPE[b] in pin.types
            and (pin.backends == "all" or b in pin.backends.split(","))
            and (b, f) not in (pin.refused or {})]


@OPT_IN
@pytest.mark.parametrize("version, pair", [(v, p) for v, pin in PINNED.items()
                                           for p in (pin.refused or {})])
def test_what_the_release_refuses(trees, version, pair):
    """A pair the release's own sources cannot express is refused with the reason."""
    why = PINNED[version].refused[pair]
    with pytest.raises(ScenarioError, match=re.escape(f"not expressible on FFmpeg {version}: "
                                                      f"{why}")):
        matrix.scenarios(list(trees(version, "release").values()), *pair,
                         ["pthread_create=EAGAIN"])


def _params():
    for version in PINNED:
        for backend, filt in _pairs(version):
            for build in ("before", "after"):
                for fault in expected.FAULTS:
                    yield pytest.param(version, "release", backend, filt, build, fault,
                                       id=f"{version}-release-{build}-{backend}-{filt}-{fault}")
        for backend, filt in [p for p in _pairs(version) if p[1] == "dnn_processing"]:
            for build in ("before", "after"):
                for fault in CLONE_FAULTS:
                    yield pytest.param(version, "clone", backend, filt, build, fault,
                                       id=f"{version}-clone-{build}-{backend}-{filt}-{fault}")


@OPT_IN
@pytest.mark.parametrize("version, kind, backend, filt, build, fault", list(_params()))
def test_core_claim(trees, version, kind, backend, filt, build, fault):
    """before: activate() returns the positive errno and the sink only AVERROR_EOF;
    after: AVERROR(e) (AVERROR_EXTERNAL for EAGAIN), then AVERROR_EOF."""
    tree = trees(version, kind)[build]
    (sc,) = matrix.scenarios([tree], backend, filt, [fault])
    r = runner.run_one(sc, matrix.preload_library(), expect=expected.EXPECT)
    assert r.outcome is Outcome.PASS, f"{r.outcome.value}: {r.diffs or r.reason}"
    exp = expected.lookup(build, faults.parse(fault), backend, filt)
    assert r.record.activate_at_eof == exp.activate
    assert tuple(sink_sequence(r.record)) == exp.sink  # AVERROR(EAGAIN) is "not yet"
    assert len(r.record.frames) == 2


@OPT_IN
@pytest.mark.parametrize("version", list(PINNED))
def test_the_releases_side_by_side(trees, version):
    """`probe --releases`: the release's column, read from its built trees."""
    from harness.judge import releasetable
    pin = PINNED[version]
    trees(version, "release")
    col = releasetable.column(releases.get(version), expected.CASE)
    assert col["activate() (the recorder copies)"].startswith(f"`{pin.home}`")
    assert col["series (git am -3)"].startswith(
        f"before = {', '.join(map(str, pin.applies))}; after = "
        f"{', '.join(map(str, pin.applies + (9,)))}")
    assert col["the case's tables"] == "can be shown"
    assert col["Table 1: tf / dnn_processing"] == "expressible"
    for (backend, filt), why in (pin.refused or {}).items():
        assert col[f"Table 2: {backend} / {filt}"] == f"not expressible: {why}"
    table = releasetable.markdown(expected.CASE, [version])
    assert table.splitlines()[0] == f"| | FFmpeg {version} |"


@pytest.mark.unit
def test_a_probe_only_release_is_refused_with_its_reason():
    """4.3.7 (bullseye) is pinned for probe --releases alone: --release refuses it."""
    assert [r.version for r in releases.probed()][:2] == ["4.3.7", "5.1.9"]
    assert "4.3.7" not in releases.versions()
    with pytest.raises(releases.SourceError, match="FFmpeg 4.3.7 is pinned for "
                                                   "`probe --releases` only"):
        releases.get("4.3.7")


@OPT_IN
def test_a_probe_only_release_says_why_nothing_is_expressible():
    """`probe --releases`' 4.3.7 column, read from the files of its pinned tarball: every
    row of the case's tables not expressible, each with what the tree lacks."""
    from harness.judge import releasetable
    col = releasetable.column(releases.PROBE_ONLY["4.3.7"], expected.CASE)
    rows = {k: v for k, v in col.items() if k.startswith("Table")}
    assert rows and all(v.startswith("not expressible: 4.3.7") for v in rows.values())
    assert "has no activate() to record" in col["Table 1: tf / dnn_processing"]
    assert "no ff_dnn_start_inference_async" in col["Table 1: tf / dnn_processing"]
    assert col["series (git am -3)"] == "not tried: no row of the case's tables is expressible"
    assert col["DNN backends in the tree"].startswith("TensorFlow (no .type")
