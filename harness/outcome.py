"""The outcome of one scenario, and how a result is judged against its expectation."""

import enum

from . import errnos


class Outcome(str, enum.Enum):
    PASS = "PASS"          # measured what the expected table says
    FAIL = "FAIL"          # measured something else
    MEASURED = "MEASURED"  # ran, but the table has no claim for this build and fault
    ERROR = "ERROR"        # could not run: bad model, graph that does not configure, ...
    CRASH = "CRASH"        # the worker died on a signal
    HANG = "HANG"          # killed after its timeout
    SKIP = "SKIP"          # not run: a component is missing


OK = (Outcome.PASS, Outcome.MEASURED, Outcome.SKIP)


def judge(result: dict, expectation) -> tuple[Outcome, list]:
    """Compare a worker's result with an Expectation: (outcome, list of differences)."""
    if expectation is None:
        return Outcome.MEASURED, []
    diffs = []
    got = result.get("activate_at_eof")
    if got != expectation.activate:
        diffs.append(f"activate() at EOF: got {_d(got)}, expected {_d(expectation.activate)}")
    if tuple(result.get("sink", ())) != expectation.sink:
        diffs.append(f"sink: got {_seq(result.get('sink', ()))}, "
                     f"expected {_seq(expectation.sink)}")
    log = result.get("log", "")
    if expectation.log_has and expectation.log_has not in log:
        diffs.append(f"log lacks {expectation.log_has.strip()!r}")
    if expectation.log_lacks and expectation.log_lacks in log:
        diffs.append(f"log has {expectation.log_lacks.strip()!r}")
    failures = result.get("counters", {}).get("failures")
    if failures != expectation.failures:
        diffs.append(f"pthread_create() failures injected: got {failures}, "
                     f"expected {expectation.failures}")
    return (Outcome.FAIL if diffs else Outcome.PASS), diffs


def _d(code) -> str:
    return "nothing" if code is None else errnos.describe(code)


def _seq(codes) -> str:
    return ", then ".join(errnos.describe(c) for c in codes) or "nothing"
