"""Where things live: the project, the cache outside it, atomic cache entries (a
directory, `atomic_dir`, or a single file, `atomic_file`)."""

import contextlib
import errno
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from harness.errors import HarnessError

PROJECT = Path(__file__).resolve().parent.parent
PATCHES = PROJECT / "builds" / "patches"
MODELS = PROJECT / "models"


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
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-", dir=final.parent))
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


@contextlib.contextmanager
def atomic_file(final: Path):
    """Yield a temporary file's path beside `final`; on success it replaces `final`
    whole (a reader sees the old file or the new one, never a part). On any failure
    the temporary file is removed. The one way the project writes a cached file."""
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".tmp-{final.name}-", dir=final.parent)
    os.close(fd)
    tmp = Path(name)
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


def _disk_full(e: OSError, final: Path) -> None:
    if e.errno == errno.ENOSPC:
        raise HarnessError(f"disk full while writing {final}: {e.strerror}") from e
