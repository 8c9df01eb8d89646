"""Every option a command takes, checked before any work: one function a kind (numbers
with their ranges, names, paths, refs, models), each raising the one line a user reads
(HarnessError, exit status 2). The numbers are argparse types, so the parser refuses
them; the rest each command's check(args) calls (harness/commands/: the pieces several
share in options.py), which the command line calls before the command.

Nothing here builds, fetches, copies or writes: a check that needs a tree (a patch
that must apply, harness/obtain/patched.py) looks only at a tree already built.
"""

import argparse
import math
import os
import subprocess
import tempfile
from pathlib import Path

from harness.errors import HarnessError

MAX_SECONDS = 24 * 3600.0
MAX_FRAMES = 100
MAX_CONFIRM = 100


def max_jobs() -> int:
    """More workers than this only queue for the CPUs (and each holds a backend's memory)."""
    return max(8, 4 * (os.cpu_count() or 1))


def default_jobs() -> int:
    """Runs at a time unless told: one more than the CPUs this process may use. A run
    spends part of its time waiting (for a frame it pulls, for a flush it watches), which
    another run's work fills: the 897 sites of after's malloc sweep on 2 CPUs took 45.7 s
    with 2 jobs, 37.5 s with 3, 37.5 s with 4, the same class at every site."""
    return len(os.sched_getaffinity(0)) + 1


def _integer(text: str, lo: int, hi: int | None, what: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: '{text}'") from None
    if n < lo or (hi is not None and n > hi):
        top = f" and at most {hi}" if hi is not None else ""
        raise argparse.ArgumentTypeError(f"{what} must be at least {lo}{top} (got {n})")
    return n


def jobs(text: str) -> int:
    return _integer(text, 1, max_jobs(), "jobs")


def frames(text: str) -> int:
    return _integer(text, 1, MAX_FRAMES, "frames")


def confirm(text: str) -> int:
    return _integer(text, 0, MAX_CONFIRM, "confirmation runs")


def limit(text: str) -> int:
    return _integer(text, 1, None, "the sites failed")


def sample(text: str) -> int:
    return _integer(text, 1, None, "a sample")


def seed(text: str) -> int:
    return _integer(text, 0, None, "a seed")


def commit(text: str) -> int:
    return _integer(text, 1, None, "a commit number")


def seconds(text: str) -> float:
    """A timeout: a finite number of seconds above 0 (a run of 0 s, or of inf, judges
    nothing: every run would be a HANG, or none ever would)."""
    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: '{text}'") from None
    if not math.isfinite(s) or s <= 0 or s > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"seconds must be above 0 and at most "
                                         f"{MAX_SECONDS:g} (got {text})")
    return s


def names(option: str, text: str | None, known, what: str = "name") -> list:
    """A comma list of names, each one of `known`; empty items and an empty list are bad."""
    if text is None:
        return []
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or not all(items):
        raise HarnessError(f"{option} '{text}': an empty name (known: {', '.join(known)})")
    bad = [t for t in items if t not in known]
    if bad:
        raise HarnessError(f"{option}: unknown {what} '{bad[0]}' (known: {', '.join(known)})")
    return items


def not_empty(option: str, text: str | None) -> None:
    if text is not None and not text.strip():
        raise HarnessError(f"{option}: an empty value (leave the option out for the default)")


def git_dir(path: str) -> Path:
    """A clone the user names: a directory with a .git, or a bare repository."""
    p = Path(path).expanduser()
    if not p.exists():
        raise HarnessError(f"--git-dir {path}: no such directory")
    if not p.is_dir():
        raise HarnessError(f"--git-dir {path}: not a directory")
    if not (p / ".git").exists() and not (p / "HEAD").is_file():
        raise HarnessError(f"--git-dir {path}: not a git clone")
    return p.resolve()


def ref(repo: Path, option: str, name: str) -> None:
    """A ref of the clone that names a commit."""
    if not name.strip():
        raise HarnessError(f"{option}: an empty ref")
    r = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q",
                        f"{name}^{{commit}}"], capture_output=True, text=True)
    if r.returncode != 0:
        raise HarnessError(f"{option} '{name}': no such commit in {repo}")


def output_file(option: str, path: str | None) -> None:
    """A report file: an existing regular file we may write, or a new name in a directory
    we can create files in (tried with a probe file, removed at once: /proc is a directory
    root may write to on paper, not in fact)."""
    if path is None:
        return
    if not path.strip():
        raise HarnessError(f"{option}: an empty file name")
    p = Path(path).expanduser()
    if p.is_dir():
        raise HarnessError(f"{option} {path}: is a directory")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise HarnessError(f"{option} {path}: no such directory {parent}")
    if p.exists():
        try:
            with open(p, "ab"):
                pass
        except OSError as e:
            raise HarnessError(f"{option} {path}: cannot be written ({e.strerror})") from None
        return
    try:
        fd, probe = tempfile.mkstemp(prefix=".ffdnn-probe-", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise HarnessError(f"{option} {path}: cannot write in {parent} ({e.strerror})") from None


def results_dir(path: str | None) -> None:
    """--results: '' keeps nothing; else a directory (or a name for one)."""
    if path and Path(path).expanduser().exists() and not Path(path).expanduser().is_dir():
        raise HarnessError(f"--results {path}: not a directory")


def input_file(option: str, path: str) -> Path:
    p = Path(path).expanduser()
    if not p.exists():
        raise HarnessError(f"{option} {path}: no such file")
    if not p.is_file():
        raise HarnessError(f"{option} {path}: not a file")
    if p.stat().st_size == 0:
        raise HarnessError(f"{option} {path}: an empty file")
    return p.resolve()
