"""ONNX Runtime's C header chain (harness/obtain/ort_header.py): each step in order, and one
error line naming every step when all fail."""

import pytest

from harness.obtain import ort_header
from harness.errors import BackendError, HarnessError

pytestmark = pytest.mark.unit


def header_dir(d, nested=False):
    inc = d / "onnxruntime" if nested else d
    inc.mkdir(parents=True, exist_ok=True)
    (inc / ort_header.HEADER).write_text("/* c api */\n")
    (inc / "onnxruntime_float16.h").write_text("")
    return d


def never(dest, work):
    raise AssertionError("a later step ran after one that succeeded")


def failing(why):
    def step(dest, work):
        raise HarnessError(why)
    return step


@pytest.mark.parametrize("nested", [False, True], ids=["dir", "dir-onnxruntime"])
def test_user_dir_first(tmp_path, monkeypatch, nested):
    src = header_dir(tmp_path / "mine", nested)
    monkeypatch.setenv(ort_header.VARIABLE, str(src))
    got = ort_header.install(tmp_path / "inc", tmp_path, (
        (ort_header.VARIABLE, ort_header._user), ("next", never)))
    assert (tmp_path / "inc" / ort_header.HEADER).is_file()
    assert (tmp_path / "inc/onnxruntime_float16.h").is_file()
    assert "onnxruntime header" in got


def test_installed_package_second(tmp_path, monkeypatch):
    monkeypatch.delenv(ort_header.VARIABLE, raising=False)
    system = header_dir(tmp_path / "usr-include-onnxruntime")
    got = ort_header.install(tmp_path / "inc", tmp_path, (
        (ort_header.VARIABLE, ort_header._user),
        ("installed", lambda d, w: ort_header._system(d, w, system)),
        ("Debian", never)))
    assert "(installed)" in got[ort_header.PACKAGE]


def test_all_failing_names_each_step_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv(ort_header.VARIABLE, str(tmp_path / "empty"))
    with pytest.raises(BackendError) as e:
        ort_header.install(tmp_path / "inc", tmp_path, (
            (ort_header.VARIABLE, ort_header._user),
            ("installed libonnxruntime-dev",
             lambda d, w: ort_header._system(d, w, tmp_path / "none")),
            ("Debian's libonnxruntime-dev",
             failing("this machine's apt is not Debian's (ubuntu): set FFDNN_DEBIAN_MIRROR "
                     "to a Debian mirror's URL"))))
    msg = str(e.value)
    assert "\n" not in msg
    parts = ["FFDNN_ORT_INCLUDE=", "installed libonnxruntime-dev: libonnxruntime-dev not "
             "installed", "Debian's libonnxruntime-dev: this machine's apt is not Debian's",
             "FFDNN_DEBIAN_MIRROR"]
    where = [msg.index(p) for p in parts]
    assert where == sorted(where), msg


def test_the_default_chain_is_the_documented_one():
    assert [name for name, _ in ort_header.STEPS] == [
        "FFDNN_ORT_INCLUDE", "installed libonnxruntime-dev", "Debian's libonnxruntime-dev"]
