"""Bad input gets one clear error line and a non-zero exit."""

import os
import subprocess
import sys

import pytest

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
    ("wrap", "a wrap sweep names its function: --fault wrap:<ff_symbol> (known: "
             "ff_proc_from_dnn_to_frame"),
    ("read", "bad sweep family 'read' (known: pthread_create, malloc, wrap:<ff_symbol>)")])
def test_bad_sweep_family(family, says):
    one_error_line(harness("sweep", "--fault", family), says)


@pytest.mark.unit
def test_unknown_case():
    r = harness("run", "--case", "pr1", "--build", "before")
    one_error_line(r, "unknown case 'pr1' (known: pr24760)")
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
                   "model file not found")
