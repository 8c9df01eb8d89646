"""Wheels fetched for their C parts, not for the running interpreter (harness/obtain/wheels.py):
real pip against the configured index, with a small package whose releases stop at a
Python version (MarkupSafe 2.1.3: wheels up to cp312), as tensorflow-cpu 2.18.0 does."""

import os
import platform

import pytest

from harness.obtain import wheels
from harness.errors import BackendError

pytestmark = pytest.mark.unit


def test_platforms_are_this_machines():
    tags = wheels.platforms()
    libc = os.confstr("CS_GNU_LIBC_VERSION")
    minor = libc.split(".")[1]
    assert tags[0] == f"manylinux_2_{minor}_{platform.machine()}"
    assert f"manylinux_2_17_{platform.machine()}" in tags


def test_the_running_interpreter_first():
    own = wheels.python_tags()[0]
    assert own == f"{os.sys.version_info.major}.{os.sys.version_info.minor}"
    assert set(wheels.PYTHON_TAGS) <= set(wheels.python_tags())


@pytest.fixture
def on_313(monkeypatch):
    """As if pip ran under Python 3.13 (issue 13: trixie's interpreter)."""
    monkeypatch.setattr(wheels, "python_tags", lambda: ["3.13", "3.12", "3.11", "3.10"])


def test_pin_with_no_wheel_for_the_interpreter_takes_another_tag(on_313, tmp_path):
    got = wheels.download("markupsafe", "2.1.3", tmp_path)
    assert got.name.startswith("MarkupSafe-2.1.3-cp312-"), got.name


def test_pin_missing_takes_the_newest_of_its_line(on_313, tmp_path):
    got = wheels.download("markupsafe", "2.1.99", tmp_path)
    assert got.name.startswith("MarkupSafe-2.1.5-"), got.name


def test_nothing_fits_is_one_line(on_313, tmp_path):
    with pytest.raises(BackendError, match=r"pip could not fetch ffdnn-no-such-package==1\.0\.0 "
                                           r"\(nor 1\.0\.\*\) for Python 3\.13, 3\.12") as e:
        wheels.download("ffdnn-no-such-package", "1.0.0", tmp_path)
    assert "\n" not in str(e.value)


def test_line_of():
    assert wheels.line_of("2.18.0") == "2.18.*"
    assert wheels.line_of("2026.4.1") == "2026.4.*"
    assert wheels.line_of("7") == "7"
