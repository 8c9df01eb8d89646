"""The docs and the comments name what is there: every path of this repository that the
README, docs/, the other READMEs, and the code's comments and docstrings name exists, and
the front page stays a front page."""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
TOPS = ("harness", "tests", "injectors", "builds", "models", "bench", "ci", "docs")
PATH = re.compile(r"(?<![\w/.~$-])((?:%s)/[\w./+-]*[\w/])" % "|".join(TOPS))
# made by the build, not tracked: named by the docs as where things go; where an installed
# wheel carries the data directories (harness/paths.py); and FFmpeg's own tests/api (its
# API tests, which the house style follows)
GENERATED = ("injectors/build", "harness/_data", "tests/api")
DOCS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")),
        *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "harness" / "cases").rglob("*.md")),
        "ci/README.md", "injectors/README.md", "builds/patches/README.md",
        "builds/patches/followups/README.md", "models/README.md"]
CODE = sorted(str(p.relative_to(ROOT)) for top in ("harness", "tests",
                                                   "bench", "injectors", "models")
              for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".c", ".h", ".cpp")
              and "__pycache__" not in p.parts and p.name != "test_docs.py")


def named(text: str) -> set:
    return {m.group(1).rstrip("/.") for m in PATH.finditer(text)}


@pytest.mark.parametrize("doc", DOCS + CODE)
def test_every_path_named_exists(doc):
    here = (ROOT / doc).parent  # a README may name paths from its own folder
    missing = sorted(p for p in named((ROOT / doc).read_text(errors="replace"))
                     if not (ROOT / p).exists() and not (here / p).exists()
                     and not p.startswith(GENERATED))
    assert not missing, f"{doc} names paths that are not in the repository: {missing}"


def test_the_front_page_is_a_front_page():
    """At most 200 lines: what it is, the two commands, the table, the map, where a change
    goes; the rest in docs/, every page of which it links."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    assert "make        #" in text and "make test   #" in text, "the two commands"
    for page in (ROOT / "docs").glob("*.md"):
        assert f"docs/{page.name}" in text, f"the README does not link docs/{page.name}"


def test_the_check_can_fail(tmp_path):
    assert named("see `harness/judge/nosuch.py` and harness/run/worker.py.") == \
        {"harness/judge/nosuch.py", "harness/run/worker.py"}
    assert not (ROOT / "harness/judge/nosuch.py").exists()


def test_version_is_the_packages():
    """One version, written once (harness/__init__.py): pyproject.toml reads it, the
    installed package's metadata and `--version` (python -m harness, and the ffdnn-harness
    command) say it."""
    import importlib.metadata
    import subprocess
    import sys

    from harness import __version__
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and 'version = { attr = "harness.__version__" }' in text
    assert not re.search(r'^version = "', text, re.M), "no second version"
    assert importlib.metadata.version("ffmpeg-dnn-fault-harness") == __version__
    r = subprocess.run([sys.executable, "-m", "harness", "--version"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == f"ffmpeg-dnn-fault-harness {__version__}"
