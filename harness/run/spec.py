"""A fault spec as values (after FreeBSD fail(9) and fail-rs): its site, its terms and its
selectors (Spec, Term), and the one arm call the injectors take for it (Plan); its text,
SITE=TERMS[,SELECTOR...], is read by harness/run/specparse.py and written by format().

Each term applies to the next `count` eligible calls (forever without a count); once the
terms run out every call goes through. `pthread_create=2*off->1*return(EAGAIN)` fails the
third call only; `malloc=3*off->return(ENOMEM)` every call from the fourth on. A
`delay(ms)` term (FreeBSD fail(9)'s) lets its calls through after sleeping `ms`
milliseconds each: `pthread_create=1*delay(1500)` starts the first thread 1.5 s late.
`after=arm` (count from the worker's arm) is the default and is left out of the canonical
text; the canonical text has no spaces.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from harness.errors import ScenarioError

FOREVER = 2**32 - 1   # plan() count for a return term without a count: UINT_MAX


class SpecError(ScenarioError):
    """A fault spec that does not parse, or that an injector cannot arm."""


@dataclass(frozen=True)
class Term:
    count: int | None          # None: forever
    action: str                # "off" | "return" | "delay"
    value: int | None = None   # what "return" fails with (errno, or AVERROR code);
                               # "delay": the milliseconds
    value_text: str | None = None

    def __str__(self) -> str:
        what = "off" if self.action == "off" else f"{self.action}({self.value_text})"
        return what if self.count is None else f"{self.count}*{what}"


class Plan(NamedTuple):
    """One arm call: let `skip` eligible calls through, fail the next `count` (FOREVER:
    all of them) with `errno` (an AVERROR code for flush and wrap:; for a family of the
    library's own codes, 0 and `value` its name), or with `delay` (milliseconds) delay
    them instead. count 0: do not arm."""
    skip: int
    count: int
    errno: int
    delay: int = 0
    value: str = ""


@dataclass(frozen=True)
class Spec:
    site: str                                            # "none", "malloc", "wrap:ff_x", ...
    terms: tuple[Term, ...] = ()
    selectors: dict = field(default_factory=dict, hash=False)

    @property
    def kind(self) -> str:
        return self.site.split(":")[0]

    @property
    def caller(self) -> str | None:
        return self.selectors.get("caller")

    @property
    def after(self) -> str:
        return self.selectors.get("after", "arm")

    def __str__(self) -> str:
        return format(self)

    def plan(self) -> Plan:
        """The (skip, count, errno) of the single arm call that the injectors take."""
        def cannot(what):
            return SpecError(f"fault spec '{self}' cannot be armed: the {self.site} "
                             f"injector {what} yet")
        if "start" in self.selectors:
            raise cannot("does not select calls by start routine (start=)")
        if self.after != "arm":
            raise cannot("counts calls only from its arm, not from load (after=load)")
        merged: list[Term] = []
        for t in self.terms:
            last = merged[-1] if merged else None
            if last and (last.action, last.value, last.value is None and last.value_text) \
                    == (t.action, t.value, t.value is None and t.value_text):
                n = None if last.count is None or t.count is None else last.count + t.count
                merged[-1] = Term(n, t.action, t.value, t.value_text)
            else:
                merged.append(t)
        while merged and merged[-1].action == "off":   # the terms end in "off" anyway
            merged.pop()
        if not merged:
            return Plan(0, 0, 0)
        if len(merged) > 2 or merged[0].action != "off" and len(merged) == 2:
            raise cannot("arms one failing run (N*off->M*return(E) or N*off->M*delay(ms)) "
                         "and cannot express a second run or a change of value")
        skip = merged[0].count if len(merged) == 2 else 0
        ret = merged[-1]
        count = FOREVER if ret.count is None else ret.count
        if skip >= 2**32:
            raise cannot(f"counts calls in 32 bits and cannot skip {skip} calls")
        if count >= FOREVER and ret.count is not None:
            raise cannot(f"counts calls in 32 bits and cannot fail exactly {count} calls")
        if ret.action == "delay":
            return Plan(skip, count, 0, ret.value)
        if ret.value is None:  # a code family's value: its name
            return Plan(skip, count, 0, 0, ret.value_text)
        return Plan(skip, count, ret.value)


NONE = Spec("none")


def format(spec: Spec) -> str:  # noqa: A001 - the module's API: spec.format(x)
    """The canonical text: specparse.parse(format(s)) == s."""
    if spec.site == "none":
        return "none"
    sel = "".join(f",{k}={v}" for k, v in spec.selectors.items())
    return f"{spec.site}={'->'.join(map(str, spec.terms))}{sel}"
