"""The engine knows no case: its modules name no PR and import no case (a case is loaded
by name, harness/caseload.py), the engine's tests import none, and each case's tests
(tests/<case>/) are the ones that import it. A case knows no judge: it is data made of the
engine's case types (harness/case.py), which the judge reads."""

import re
from pathlib import Path

import pytest

from harness import caseload
from harness.paths import PROJECT

pytestmark = pytest.mark.unit

CASES = PROJECT / "harness" / "cases"
TESTS = PROJECT / "tests"
IMPORTS_THE_JUDGE = re.compile(r"^\s*(from\s+harness\.judge\b|from\s+harness\s+import\s+judge\b|"
                               r"import\s+harness\.judge\b)", re.M)
IMPORTS_A_CASE = re.compile(r"^\s*(from\s+harness\.cases\b|from\s+harness\s+import\s+cases\b|"
                            r"import\s+harness\.cases\b)", re.M)


def engine_files(suffixes=(".py",)) -> list:
    return [p for p in (PROJECT / "harness").rglob("*")
            if p.suffix in suffixes and CASES not in p.parents]


def test_the_engine_names_no_pr():
    """What a PR claims is its case's (harness/cases/): no file of the engine names the
    PR or the series it sits on."""
    named = [str(p.relative_to(PROJECT)) for p in engine_files((".py", ".c", ".h"))
             if re.search(r"2476|2470", p.read_text())]
    assert named == []


def test_the_engine_imports_no_case():
    assert [str(p.relative_to(PROJECT)) for p in engine_files()
            if IMPORTS_A_CASE.search(p.read_text())] == []


def test_engine_tests_import_no_case():
    files = sorted((TESTS / "engine").glob("*.py")) + sorted(TESTS.glob("*.py"))
    assert len(files) > 20
    assert [str(p.relative_to(PROJECT)) for p in files
            if IMPORTS_A_CASE.search(p.read_text())] == []


def test_case_tests_are_their_cases():
    """Every folder of tests but the engine's is named after a case, and each of its test
    files imports a case (its own; the gate's tests also the follow-ups')."""
    folders = {p.parent.name for p in TESTS.glob("*/test_*.py")} - {"engine"}
    assert folders and folders <= set(caseload.names())
    for name in folders:
        lacking = [p.name for p in (TESTS / name).glob("test_*.py")
                   if not IMPORTS_A_CASE.search(p.read_text())]
        assert lacking == [], f"tests/{name}/: these import no case: move them to tests/engine/"


def test_no_case_imports_the_judge():
    """What a case needs of the engine to write its data is the engine's case types and the
    stages below the judge; the judge reads the case, never the other way round."""
    files = sorted(CASES.rglob("*.py"))
    assert len(files) > 3
    assert [str(p.relative_to(PROJECT)) for p in files
            if IMPORTS_THE_JUDGE.search(p.read_text())] == []
    assert not IMPORTS_THE_JUDGE.search((PROJECT / "harness" / "case.py").read_text())


def test_each_case_is_one_typed_case():
    """A case module exports one CASE (harness/case.py's Case), which is what the engine
    loads; the engine reads its fields, never a case module's names."""
    from harness.case import Case
    for name in caseload.names():
        case = caseload.load(name)
        assert isinstance(case, Case) and case.name == name
    by_name = re.compile(r"getattr\([^)\n]*case[^)\n]*\"[A-Z][A-Z_]+\"|case\.module\b|"
                         r"\bcase(_of\(args\))?\.[A-Z][A-Z_]{2,}\b")
    assert [f"{p.relative_to(PROJECT)}: {m.group(0)}" for p in engine_files()
            for m in by_name.finditer(p.read_text())] == []


def test_the_top_level_is_the_design_cards():
    """The tree reads pyproject.toml, harness, injectors, builds, models, tests, Makefile:
    the model generators (with their provenance) are models/, a data directory the
    registry, harness/obtain/models/, imports them from."""
    top = {p.name for p in PROJECT.iterdir()}
    assert {"pyproject.toml", "harness", "injectors", "builds", "models", "tests",
            "Makefile"} <= top
    assert sorted(p.name for p in (PROJECT / "harness" / "obtain" / "models").glob("*.*")) \
        == ["__init__.py"]
    assert (PROJECT / "models" / "README.md").is_file()
