"""What a scenario injects: `pthread_create=EAGAIN`, `flush=AVERROR(EAGAIN)` or `none`."""

import re
from dataclasses import dataclass

from . import errnos
from .errors import ScenarioError

KINDS = ("none", "pthread_create", "flush")


@dataclass(frozen=True)
class Fault:
    kind: str
    errno: int = 0  # pthread_create: the positive errno it returns; flush: AVERROR(errno)

    @property
    def spec(self) -> str:
        if self.kind == "pthread_create":
            return f"pthread_create={errnos.name(self.errno)}"
        if self.kind == "flush":
            return f"flush=AVERROR({errnos.name(self.errno)})"
        return "none"

    @property
    def slug(self) -> str:
        """Lowercase and stable, for scenario ids: pthread_create-eagain."""
        if self.kind == "none":
            return "none"
        return f"{self.kind}-{errnos.name(self.errno).lower()}"


def parse(spec: str) -> Fault:
    spec = spec.strip()
    if spec == "none":
        return Fault("none")
    m = re.fullmatch(r"pthread_create=(\w+)", spec)
    if m:
        return Fault("pthread_create", errnos.parse(m.group(1)))
    m = re.fullmatch(r"flush=AVERROR\((\w+)\)", spec)
    if m:
        return Fault("flush", errnos.parse(m.group(1)))
    raise ScenarioError(f"bad fault '{spec}' (expected pthread_create=ENAME, "
                        "flush=AVERROR(ENAME) or none)")


# The four rows of the PR's tables, in its order.
PR_FAULTS = ("pthread_create=EAGAIN", "pthread_create=EINVAL", "pthread_create=EPERM",
             "flush=AVERROR(EAGAIN)")
