"""Where things live: the project, the cache outside it, atomic cache entries (a
directory, `atomic_dir`, or a single file, `atomic_file`) and an entry as `harness cache`
lists it (`Entry`; each stage that makes a kind of entry says what names its own), the
report files a command writes."""

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness import reaper
from harness.errors import HarnessError

# the directory that holds the `harness` package: the checkout, or site-packages when the
# project is installed (a worker's PYTHONPATH, a reproduce line's `cd`)
PROJECT = Path(__file__).resolve().parent.parent
# the project's data directories, by name: where each is in a checkout (and in a copy of
# one, as mutmut's mutants/); an installed wheel carries each inside the package, as
# harness/_data/NAME (pyproject.toml's [tool.setuptools.package-dir] maps them there)
DATA_DIRS = {"injectors": "injectors", "builds": "builds", "schema": "docs/schema",
             "models": "models"}
INSTALLED_DATA = Path(__file__).resolve().parent / "_data"


def data_dir(name: str) -> Path:
    """Where the project's data directory `name` (one of DATA_DIRS) is: the copy an
    installed wheel carries, else the checkout's."""
    if name not in DATA_DIRS:
        raise KeyError(f"{name}: not a data directory of the project ({', '.join(DATA_DIRS)})")
    installed = INSTALLED_DATA / name
    return installed if installed.is_dir() else PROJECT / DATA_DIRS[name]


PATCHES = data_dir("builds") / "patches"


def cache_root() -> Path:
    """FFDNN_CACHE, else $XDG_CACHE_HOME/ffmpeg-dnn-fault-harness (~/.cache by default)."""
    if os.environ.get("FFDNN_CACHE"):
        return Path(os.environ["FFDNN_CACHE"]).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(xdg).expanduser().resolve() / "ffmpeg-dnn-fault-harness"


def digest(*parts) -> str:
    """sha256 of a JSON-serialisable description: the content-addressed key."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def write_file(option: str, path: str, text: str) -> None:
    """A report file (checked writable before the command ran, harness/inputs.py)."""
    try:
        Path(path).write_text(text)
    except OSError as e:
        raise HarnessError(f"{option} {path}: cannot be written ({e.strerror})") from None


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@contextlib.contextmanager
def atomic_dir(final: Path, replace: bool = False):
    """Yield a temporary directory beside `final`; rename it into place on success
    (over an older `final` when `replace`, else a `final` another process finished
    first is kept). The one way the project writes a directory that must be whole.

    On any failure (an exception, Ctrl-C) the temporary directory is removed, so
    the cache never holds an entry that looks complete but is not.
    """
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=tmp_prefix(final), dir=final.parent))
    reaper.add_dir(tmp)  # removed by the command's guard even if it is killed
    try:
        yield tmp
        if replace:
            shutil.rmtree(final, ignore_errors=True)
        os.rename(tmp, final)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if e.errno in (errno.ENOTEMPTY, errno.EEXIST) and final.is_dir():
            return  # another process finished the same entry first
        _disk_full(e, final)
        raise
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        reaper.drop_dir(tmp)


@dataclass
class Entry:
    """A cache entry as `harness cache` lists it: the stage that makes its kind says what
    names it (empty: nothing does, and `cache gc` removes it) or why nothing does."""

    path: Path
    kind: str          # tree, module, injectors, download, temporary
    named: str = ""    # what names it; empty: nothing does (gc removes it)
    why: str = ""      # why nothing names it


TMP = re.compile(r"^\.tmp-.*\.pid(?P<pid>\d+)-[^-]*$")


def tmp_prefix(final: Path) -> str:
    """`.tmp-<entry>.pid<pid>-`: whose temporary it is, so `harness cache gc` can tell
    one a killed process left (its pid gone) from one being written now."""
    return f".tmp-{final.name}.pid{os.getpid()}-"


def tmp_owner_alive(path: Path) -> bool:
    """Whether the process that made this `.tmp-*` still runs (one without a pid in its
    name, from before, counts as alive only for an hour after its last change)."""
    m = TMP.match(path.name)
    if not m:
        import time
        try:
            return time.time() - path.lstat().st_mtime < 3600
        except OSError:
            return False
    try:
        os.kill(int(m["pid"]), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def temporaries(root: Path) -> list:
    """The cache's `.tmp-*` left by a process that is gone (atomic_dir, atomic_file): named
    by nothing."""
    return [Entry(t, "temporary", why="left by a process that is gone")
            for t in sorted(_tmp_paths(root)) if not tmp_owner_alive(t)]


def _tmp_paths(root: Path):
    """Every `.tmp-*` under `root`; a directory another process removes while the walk is
    in it is passed over (os.walk's errors are ignored), not an internal error."""
    for d, dirs, files in os.walk(root):
        yield from (Path(d) / n for n in dirs + files if n.startswith(".tmp-"))
        dirs[:] = [n for n in dirs if not n.startswith(".tmp-")]  # its inside goes with it


@contextlib.contextmanager
def atomic_file(final: Path):
    """Yield a temporary file's path beside `final`; on success it replaces `final`
    whole (a reader sees the old file or the new one, never a part). On any failure
    the temporary file is removed. The one way the project writes a cached file."""
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=tmp_prefix(final), dir=final.parent)
    os.close(fd)
    tmp = Path(name)
    reaper.add_dir(tmp)
    try:
        yield tmp
        os.chmod(tmp, 0o644)  # as a plain write would leave it, not mkstemp's 0600
        os.replace(tmp, final)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        _disk_full(e, final)
        raise
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        reaper.drop_dir(tmp)


def _disk_full(e: OSError, final: Path) -> None:
    if e.errno == errno.ENOSPC:
        raise HarnessError(f"disk full while writing {final}: {e.strerror}") from e
