"""One exception type per kind of failure, each carrying one line for the user, and the
exit statuses they and every verdict end a process with."""

import enum


class ExitStatus(enum.IntEnum):
    """What every command exits with (harness/cli.py maps an exception to its status), and
    every process of the harness's own: a worker, the fork server's child, a tool's main.
    docs/command-line.md's table lists them (tests/engine/test_exit_statuses.py)."""

    OK = 0              # as expected: every run PASS, a diff's PASS, a measurement made
    FAIL = 1            # not as expected: a run that differs or could not be judged, a
                        # regression, a site or census that could not run
    BAD_INPUT = 2       # bad input, or a cache entry that fails its check: one `error:` line
    BLIND = 3           # a diff with no regression, but no site the change's code runs in
                        # could show one: each hung or crashed in both trees, or none ran
    NOT_MEASURED = 4    # claims: every row measured as expected, some not measurable here
    INTERNAL_ERROR = 70  # an exception the code does not expect (a bug): sysexits.h's
                         # EX_SOFTWARE; never FAIL nor BAD_INPUT


SIGNALLED = 128  # + N: ended by signal N, as a shell says (130 Ctrl-C, 143 SIGTERM)


class HarnessError(Exception):
    """A failure the user can act on; str() is the one line to print."""

    exit_status = ExitStatus.BAD_INPUT


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
