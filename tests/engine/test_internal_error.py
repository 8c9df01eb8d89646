"""An exception the harness does not expect (a bug) ends a command with one line naming it
and where, and exit status 70 (ExitStatus.INTERNAL_ERROR, harness/errors.py: not 1, a
regression, nor 2, bad input); its traceback only under `--debug`."""

import subprocess
import sys

import pytest

from harness.errors import ExitStatus
from harness.paths import PROJECT

pytestmark = pytest.mark.unit

# merge, with the check of its shards left out: the harness's own code meets a shard with
# no key, and nothing catches the KeyError (the command line as a user runs it)
BUG = """
import sys
import harness.commands.merge as merge

def run(args):
    from harness.judge import merge as judge
    return judge.merged([("shard.json", {})])

merge.run = run
from harness.cli import main
sys.exit(main(sys.argv[1:]))
"""


def harness_with_a_bug(*args):
    return subprocess.run([sys.executable, "-c", BUG, *args], cwd=PROJECT,
                          capture_output=True, text=True)


def test_one_line_and_its_own_status():
    r = harness_with_a_bug("merge", "shard.json")
    assert r.returncode == ExitStatus.INTERNAL_ERROR == 70 and r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith("error: internal error: KeyError: 'shard' in judge/merge.py:")
    assert "(check)" in line and "--debug" in line and "Traceback" not in r.stderr


def test_the_traceback_under_debug():
    r = harness_with_a_bug("--debug", "merge", "shard.json")
    assert r.returncode == 70
    assert r.stderr.startswith("Traceback (most recent call last):")
    assert r.stderr.splitlines()[-1].startswith("error: internal error: KeyError: 'shard'")


def test_bad_input_stays_2_and_a_signal_its_own():
    r = subprocess.run([sys.executable, "-m", "harness", "merge", "/nonexistent.json"],
                       cwd=PROJECT, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("error: /nonexistent.json: ")
    assert ExitStatus.INTERNAL_ERROR not in (0, 1, 2, 3, 4) and ExitStatus.INTERNAL_ERROR < 128
