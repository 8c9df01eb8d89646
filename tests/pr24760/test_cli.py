"""Bad input gets one clear error line and a non-zero exit."""

import os
import subprocess
import sys

import pytest

from harness import caseload

from harness.cases.pr24760 import LAYOUT
from harness.paths import PROJECT


def harness(*args, env=None):
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=PROJECT,
                          capture_output=True, text=True, env=env)


def one_error_line(r, text):
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ") and text in lines[0], lines[0]


@pytest.mark.unit
def test_unknown_errno():
    one_error_line(harness("run", "--build", "base", "--fault", "pthread_create=EFOO"),
                   "unknown errno name 'EFOO'")


@pytest.mark.unit
def test_bad_fault():
    one_error_line(harness("run", "--build", "base", "--fault", "read=EIO"), "bad fault spec 'read=EIO' at column 1")


@pytest.mark.unit
@pytest.mark.parametrize("family, says", [
    ("wrap", "a wrap sweep names its function: --fault wrap:<function> (known: "
             "ff_proc_from_dnn_to_frame"),
    ("libav:ff_filter_frame", "bad sweep family 'libav:ff_filter_frame': libav has one "
                              "window for all its functions: --fault libav"),
    ("read", "bad sweep family 'read' (known: ")])
def test_bad_sweep_family(family, says):
    r = harness("sweep", "--fault", family)
    one_error_line(r, says)
    if family == "read":  # every family of injectors/*.fi, in order, each named once
        from harness.compile.families import FAMILIES
        known = r.stderr.split("(known: ", 1)[1]
        names = [n.split(":")[0] for n in known.rstrip(")\n").split(", ")]
        assert names == sorted(FAMILIES) and "wrap:<function>" in known, known


@pytest.mark.unit
def test_unknown_case():
    r = harness("run", "--case", "pr1", "--build", "before")
    one_error_line(r, f"unknown case 'pr1' (known: {', '.join(caseload.names())})")
    assert r.returncode == 2 and r.stdout == ""


@pytest.mark.unit
def test_unknown_backend():
    one_error_line(harness("build", "--backend", "caffe"), "unknown backend 'caffe'")


@pytest.mark.unit
def test_missing_build_path(tmp_path):
    one_error_line(harness("run", "--build", str(tmp_path / "nope")), "not a built tree")


@pytest.mark.unit
def test_wrong_checksum(tmp_path):
    fake = tmp_path / "ffmpeg-9.0.2.tar.xz"
    fake.write_bytes(b"not FFmpeg")
    env = {**os.environ, "FFDNN_CACHE": str(tmp_path / "cache")}
    r = harness("build", "--tree", "base", "--source", str(fake), env=env)
    one_error_line(r, "is not the pinned")
    left = [p.name for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert left == [], "nothing is cached from a tarball that fails its check"


@pytest.mark.base
@pytest.mark.onnx
def test_bad_model_path(tree, tmp_path):
    tree("base")
    one_error_line(harness("run", "--build", "base", "--model", str(tmp_path / "no.onnx")),
                   ": no such file")


# ---- the trees `make` built, stdout for the report only (issue 13) -------------------

@pytest.mark.unit
def test_backend_set_precedence(monkeypatch):
    from harness.obtain import builtsets
    monkeypatch.setattr(builtsets, "choose", lambda need, names, layout: "onnx,openvino,tf,torch")
    monkeypatch.setenv("FFDNN_BACKENDS", "tf")
    assert builtsets.backend_set("onnx", {"onnx"}, ("before",), LAYOUT) == "onnx"
    assert builtsets.backend_set(None, {"onnx"}, ("before",), LAYOUT) == "tf"
    monkeypatch.delenv("FFDNN_BACKENDS")
    assert builtsets.backend_set(None, {"onnx"}, ("before",), LAYOUT) == "onnx,openvino,tf,torch"
    monkeypatch.setattr(builtsets, "choose", lambda need, names, layout: None)
    assert builtsets.backend_set(None, {"onnx"}, ("before",), LAYOUT) == "default"
    assert builtsets.backend_set(None, {"openvino", "tf"}, ("before",), LAYOUT) == "openvino,tf"


@pytest.mark.unit
def test_backend_option_defaults_to_nothing():
    """No default in the parser: the command decides from what is built (the Makefile's
    BACKENDS is all, the parser's was default, so a bare command built a second set)."""
    from harness import cli
    for command in ("run", "table", "sweep", "claims", "unchanged", "build"):
        assert cli.parser().parse_args([command]).backend is None


@pytest.mark.trees
def test_bare_run_after_make_builds_nothing_and_prints_only_the_report(tmp_path):
    """The README's line typed with no environment after `make`: it uses the trees
    `make` built (whatever their backend set), builds nothing, and stdout is the
    report alone, the same text --markdown writes."""
    from harness.obtain import builtsets
    found = builtsets.choose({"onnx"}, ("before", "after"), LAYOUT)
    if not found:
        pytest.skip("no built before/after trees with ONNX Runtime (run: make)")
    env = {k: v for k, v in os.environ.items() if k != "FFDNN_BACKENDS"}
    md = tmp_path / "table.md"
    r = harness("run", "--build", "before", "--expect", "after", "--fault", "pthread_create=EAGAIN",
                "--markdown", str(md), "--results", "", env=env)
    assert r.returncode == 1, r.stderr  # before judged against after: the reverted fix
    assert "build:" not in r.stderr and "] source:" not in r.stderr and \
        "] compile:" not in r.stderr, r.stderr
    assert r.stdout == md.read_text(), "stdout is the report, nothing else"
    assert r.stdout.lstrip().startswith(("#", "|", "**")), r.stdout[:200]
    assert "FAIL" in r.stdout


@pytest.mark.trees
def test_build_leaves_each_tree_with_its_module(tree, scratch_cache):
    """`harness build` compiles each tree's cffi module (in a process of its own, while
    the next tree builds), so the first run after it compiles nothing."""
    from harness.compile import ffi_build
    from tests.conftest import BACKENDS
    r = harness("build", "--backend", BACKENDS, "--tree", "base",
                env={**os.environ, "FFDNN_CACHE": str(scratch_cache)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert "[base] module: compiling _ffdnn (preload)" in r.stderr
    ext = ffi_build.ext_path(tree("base"), "preload").name
    assert (scratch_cache / "ext" / ext / "stamp.json").is_file()


@pytest.mark.unit
def test_a_module_that_fails_in_its_own_process_is_one_error(tmp_path):
    from harness.compile import ffi_build
    from harness.errors import StampError
    from harness.obtain.tree import Tree
    gone = Tree("gone", tmp_path / "gone", {"key": "0" * 64})
    with pytest.raises(StampError, match=r"cache entry .*/gone: stamp.json does not parse") as e:
        ffi_build.finish(ffi_build.start(gone))
    assert "\n" not in str(e.value)


@pytest.mark.unit
def test_one_spelling_of_the_ref_options():
    """Every command that takes --git-dir names its refs --from-ref/--to-ref (the older
    --before-ref/--after-ref are aliases of the same options)."""
    from harness import cli
    sub = next(a for a in cli.parser()._actions if a.dest == "command")
    with_clone = [n for n, p in sub.choices.items()
                  if any("--git-dir" in a.option_strings for a in p._actions)]
    assert {"build", "run", "table", "diff"} <= set(with_clone)
    for name in with_clone:
        opts = {a.option_strings[0]: a for a in sub.choices[name]._actions if a.option_strings}
        for first, alias in (("--from-ref", "--before-ref"), ("--to-ref", "--after-ref")):
            assert first in opts and alias in opts[first].option_strings, name
        ns = cli.parser().parse_args([name, "--git-dir", ".", "--before-ref", "A",
                                      "--after-ref", "B"])
        assert (ns.from_ref, ns.to_ref) == ("A", "B"), name
