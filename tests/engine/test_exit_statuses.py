"""Every process of the harness ends with an ExitStatus (harness/errors.py), and
docs/command-line.md's table of exit statuses is the enum's: each status, its name, in
the enum's order, then the signals'."""

import re

import pytest

from harness.errors import SIGNALLED, ExitStatus, HarnessError
from harness.paths import PROJECT

pytestmark = pytest.mark.unit

IMPORT_CHECK = "sys.exit(0 if got == sys.argv[2]"  # ffi_build.IMPORT, run as python -c

ROW = re.compile(r"^\s*\| (\d+) `(\w+)` \|", re.M)


def table() -> str:
    text = (PROJECT / "docs" / "command-line.md").read_text()
    start = text.index("| status | when |")
    return text[start:text.index("\n- ", start)]


def test_the_docs_table_is_the_enum():
    assert [(int(n), name) for n, name in ROW.findall(table())] == \
        [(s.value, s.name) for s in ExitStatus]


def test_the_docs_table_ends_with_the_signals():
    last = table().strip().splitlines()[-1].strip()
    assert last.startswith(f"| {SIGNALLED} + N (`SIGNALLED` + N) |") and "130 Ctrl-C" in last


def test_bad_input_is_what_an_error_of_the_harness_exits_with():
    assert HarnessError("x").exit_status is ExitStatus.BAD_INPUT
    assert ExitStatus.INTERNAL_ERROR < SIGNALLED
    assert len(set(ExitStatus)) == len(ExitStatus.__members__), "no status has two names"


def processes() -> list:
    """The modules whose functions end a process: the commands, the command line, the
    worker and fork server, each tool with a main."""
    return sorted(p for p in (PROJECT / "harness").rglob("*.py")
                  if "commands" in p.parts or p.name in ("cli.py", "worker.py", "forkserver.py")
                  or "__main__" in p.read_text())


def test_no_literal_status():
    """A process of the harness returns or exits with an ExitStatus, never a bare number
    (the stamp check that ffi_build runs with `python -c` aside: it imports nothing of
    ours)."""
    literal = re.compile(r"^\s*(return|(sys\.|os\._)exit\()\s*\d+\b|"
                         r"^\s*status\s*=\s*\d+\b", re.M)
    assert len(processes()) > 15
    assert [f"{p.relative_to(PROJECT)}: {m.group(0).strip()}" for p in processes()
            for m in literal.finditer(p.read_text().replace(IMPORT_CHECK, ""))] == []
