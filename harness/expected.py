"""The PR's claims as one data table: what each build must do under each fault.

Every row quotes the sentence of PR #24760 (../shared/seed/pr-24760.txt) it comes
from. Values are computed from the platform's errno, so any errno name follows the
fix's rule: before, activate() returns e; after, AVERROR(e), with EAGAIN mapped to
AVERROR_EXTERNAL.
"""

import errno
from dataclasses import dataclass

from . import errnos
from .faults import Fault

LOG_BEFORE = "Unable to start async inference.\n"
LOG_AFTER = "Unable to start async inference: "


@dataclass(frozen=True)
class Claim:
    id: str
    build: str
    fault_kind: str
    cites: str
    activate: object   # fault -> expected activate() return at EOF
    sink: object       # fault -> expected sink sequence
    log: object        # fault -> (must contain, must not contain)
    failures: int      # pthread_create() failures injected


def _after_code(f: Fault) -> int:
    return errnos.AVERROR_EXTERNAL if f.errno == errno.EAGAIN else errnos.averror(f.errno)


EOF_ONLY = (errnos.AVERROR_EOF,)

CLAIMS = (
    Claim("before-thread-start-lost", "before", "pthread_create",
          "before the fix `activate()` returned 11, 22 and 1 and the sink returned only "
          "`AVERROR_EOF`; Before the fix, the log says only \"Unable to start async inference.\"",
          activate=lambda f: f.errno,
          sink=lambda f: EOF_ONLY,
          log=lambda f: (LOG_BEFORE, LOG_AFTER),
          failures=1),
    Claim("after-thread-start-surfaces", "after", "pthread_create",
          "after it, `activate()` and then the sink returned `AVERROR_EXTERNAL` (-542398533), "
          "-22 and -1, followed by `AVERROR_EOF`; After it, the log names the cause, e.g. "
          "\"Unable to start async inference: Resource temporarily unavailable\"",
          activate=_after_code,
          sink=lambda f: (_after_code(f), errnos.AVERROR_EOF),
          log=lambda f: (f"{LOG_AFTER}{errnos.strerror(f.errno)}", LOG_BEFORE),
          failures=1),
    *(Claim(f"{b}-eagain-flush-lost", b, "flush",
            "the raw `AVERROR(EAGAIN)` flush returned -11 and was lost behind EOF in both builds",
            activate=lambda f: errnos.averror(f.errno),
            sink=lambda f: EOF_ONLY,
            log=lambda f: ("", "Unable to start async inference"),
            failures=0) for b in ("before", "after")),
    *(Claim(f"{b}-clean-flush", b, "none",
            "control, not a PR sentence: with no fault the stand-in flush starts its thread "
            "and the run ends in a plain EOF",
            activate=lambda f: 0,
            sink=lambda f: EOF_ONLY,
            log=lambda f: ("", "Unable to start async inference"),
            failures=0) for b in ("before", "after")),
)


@dataclass(frozen=True)
class Expectation:
    claim: str
    cites: str
    activate: int
    sink: tuple
    log_has: str
    log_lacks: str
    failures: int


def lookup(build: str, fault: Fault):
    """The Expectation for this build and fault, or None where the PR claims nothing."""
    if fault.kind == "flush" and fault.errno != errno.EAGAIN:
        return None  # the PR's flush row is AVERROR(EAGAIN) only
    for c in CLAIMS:
        if c.build == build and c.fault_kind == fault.kind:
            has, lacks = c.log(fault)
            return Expectation(c.id, c.cites, c.activate(fault), tuple(c.sink(fault)),
                               has, lacks, c.failures)
    return None
