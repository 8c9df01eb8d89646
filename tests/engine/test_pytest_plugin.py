"""The pytest plugin (harness/pytest_plugin.py) as a user has it: the test file
docs/pytest.md shows, taken from that page, run by pytest in a directory of its own outside
the project (no conftest, no ini: only the installed package's `pytest11` entry point).
It passes on after, fails for the patch's own reason on a patch that drops a check, and
fails for the fixture's when a fixture is broken."""

import importlib.metadata
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from harness.paths import PROJECT

DOC = PROJECT / "docs" / "pytest.md"


def user_file() -> str:
    """The page's complete test file (its one python block)."""
    (block,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    return block


def run_user_tests(tmp_path, *args, conftest: str | None = None) -> tuple:
    """pytest on the page's file in tmp_path: (the run, {test id: (outcome, message)})."""
    (tmp_path / "test_dnn_faults.py").write_text(user_file())
    if conftest is not None:
        (tmp_path / "conftest.py").write_text(conftest)
    junit = tmp_path / "junit.xml"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--junitxml", str(junit), "test_dnn_faults.py", *args],
                       cwd=tmp_path, capture_output=True, text=True)
    cases = {}
    for tc in ET.parse(junit).getroot().iter("testcase"):
        bad = tc.find("failure") if tc.find("failure") is not None else tc.find("error")
        skipped = tc.find("skipped")
        cases[tc.get("name")] = (
            "failed" if bad is not None else "skipped" if skipped is not None else "passed",
            (bad if bad is not None else skipped).get("message", "")
            if bad is not None or skipped is not None else "")
    return r, cases


@pytest.mark.unit
def test_the_entry_point_names_the_plugin():
    (ep,) = [e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "ffdnn"]
    assert ep.value == "harness.pytest_plugin"
    assert "def test_" in user_file() and "ffdnn_patched" in user_file()


@pytest.mark.unit
def test_the_options_are_there(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pytest", "--help"], cwd=tmp_path,
                       capture_output=True, text=True)
    for option in ("--ffdnn-backend", "--ffdnn-patch", "--ffdnn-on", "--ffdnn-case",
                   "--ffdnn-build"):
        assert option in r.stdout


@pytest.fixture
def after(tree):
    return tree("after")


@pytest.mark.after
@pytest.mark.onnx
def test_the_users_file_passes_on_after(after, tmp_path):
    r, cases = run_user_tests(tmp_path)
    assert r.returncode == 0, r.stdout[-3000:]
    assert len(cases) == 6 and {o for o, _ in cases.values()} == {"passed"}, cases


@pytest.mark.after
@pytest.mark.onnx
def test_the_users_file_fails_on_a_dropped_check(after, tmp_path):
    """The patch tests/engine/test_diff.py makes (its tree is the one `diff --patch`
    built): the post-processing failures no longer surface, the pthread_create ones do."""
    from tests.engine.test_diff import DROP_CHECK
    patch = tmp_path / "drop-check.patch"
    patch.write_text(DROP_CHECK)
    r, cases = run_user_tests(tmp_path, "--ffdnn-patch", str(patch))
    assert r.returncode == 1, r.stdout[-3000:]
    failed = {k: m for k, (o, m) in cases.items() if o == "failed"}
    assert sorted(failed) == [k for k in sorted(cases) if "-wrap:" in k], cases
    assert all("after+drop-check: wrap:ff_proc_from_dnn_to_frame=" in m
               and "ALTERED, not SURFACED" in m for m in failed.values()), failed
    assert len(cases) == 6


# a broken fixture: the injectors' preload replaced by nothing, so no pthread_create()
# fails; the wrapped helpers are linked into the tree's module and still fail
NO_PRELOAD = '''
import pytest

@pytest.fixture(scope="session")
def ffdnn_preload():
    return ""
'''


@pytest.mark.after
@pytest.mark.onnx
def test_the_users_file_fails_when_a_fixture_is_broken(after, tmp_path):
    r, cases = run_user_tests(tmp_path, "-k", "flush or EAGAIN", conftest=NO_PRELOAD)
    assert r.returncode == 1, r.stdout[-3000:]
    assert sorted(cases) == ["test_the_failure_surfaces[onnx-flush-pthread_create-2]",
                             "test_the_pr_table_holds[EAGAIN]"], cases
    surfaces, table = (cases[k] for k in sorted(cases))
    assert surfaces[0] == "failed" and "the fault was not injected: ERROR arm the " \
        "pthread_create injector: the injector is not loaded" in surfaces[1], surfaces
    assert table[0] == "failed" and "the injector is not loaded" in table[1], table
