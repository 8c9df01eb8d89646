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


class StampError(HarnessError):
    """A cached build does not match what the harness expects."""


class ScenarioError(HarnessError):
    """A scenario or fault specification is invalid."""
