"""One exception type per kind of failure, each carrying one line for the user."""


class HarnessError(Exception):
    """A failure the user can act on; str() is the one line to print."""

    exit_status = 2


class SourceError(HarnessError):
    """The FFmpeg source could not be found, fetched or verified."""


class BackendError(HarnessError):
    """A DNN backend's library or headers are missing or unknown."""


class BuildError(HarnessError):
    """A tree could not be patched, configured or compiled."""


class CompileError(BuildError):
    """A tree's own code does not compile (make failed): `tree` names it, `first` is the
    compiler's first error line."""

    def __init__(self, message: str, tree: str = "", first: str = ""):
        super().__init__(message)
        self.tree, self.first = tree, first


class StampError(HarnessError):
    """A cached build does not match what the harness expects."""


class CacheError(StampError):
    """A cache entry that fails its check (a stamp that does not parse, a file emptied or
    changed, a module that does not load): names the entry and how to build it again,
    never a scenario's FAIL or ERROR."""

    def __init__(self, entry, what: str, rebuild: str = "python -m harness build"):
        super().__init__(f"cache entry {entry}: {what} (remove it and build it again: "
                         f"rm -rf {entry}; {rebuild})")


class ScenarioError(HarnessError):
    """A scenario or fault specification is invalid."""


def first_error(text: str, none: str = "no output") -> str:
    """The line of a tool's output that says what went wrong: the first that names an
    error (`error:`, `fatal:`, `ERROR:`, apt's `E:`, dpkg-deb's `dpkg-deb: error:`), else
    the last line, else `none`: for git, configure, pip, the injectors' compiler,
    apt-get and dpkg-deb alike."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if l.startswith(("error:", "fatal:", "ERROR:", "E:")) or "error:" in l:
            return l
    return lines[-1] if lines else none
