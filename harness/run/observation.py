"""What one run of a case's commit claim showed (harness/experiments/claimrun.py), as the
judge of claims reads it (harness/judge/claims.py): the frames out, the errors, the log,
and whether it hung or crashed; what only one of the two runners records is None where
the other ran it."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Observation:
    frames: list            # each frame's md5, in order
    errors: list            # the negative codes returned (not EAGAIN, not EOF)
    log: str
    hang: bool
    crash: str = ""         # the signal's name, "" when it did not crash
    boxes: list = None      # the worker's: (boxes, classified) per frame
    activate: int = None    # the worker's on the flush route: what activate() returned at EOF
    at_eof: bool = True     # the worker's: it reached EOF (a hang there, not before)
    exit: int = None        # the ffmpeg program's exit status (a signal negative)
    error: str = ""         # the run could not be made: why
