"""What a scenario injects, from a fault spec (harness/run/spec.py, its text read by
specparse.py): the sites a worker can arm are the families of injectors/*.fi (any window
`[N*]off->M*return(V)` or `[N*]off->M*delay(ms)`, optional `caller=`: pthread_create and
malloc with a positive errno, `wrap:<ff_symbol>` returning an AVERROR code in place of
one of FFmpeg's DNN helpers, a backend's API with its own codes), the stand-in flush
(`flush=AVERROR(E)`) and `none`."""

from dataclasses import dataclass, field, replace

from harness import errnos
from harness.compile.families import FAMILIES
from harness.run import spec, specparse
from harness.errors import ScenarioError

CALLER = "_ffdnn."  # the cffi module's file: the libavfilter code linked into it


@dataclass(frozen=True)
class Fault:
    kind: str
    errno: int = 0       # pthread_create, malloc: the errno they fail with; flush: AVERROR(errno)
    skip: int = 0        # pthread_create, malloc: eligible calls let through first
    count: int = 1       # ... then failed
    caller: str = CALLER
    symbol: str = ""     # a per-function family's function (wrap:<symbol>); errno is
                         # then the value it returns
    delay: int = 0       # milliseconds each call of the window sleeps, then goes through
                         # (errno 0): a delay(ms) window, not a failing one
    value: str = ""      # a family of the library's own codes: the value's name (errno 0)
    given: str = field(default="", compare=False)  # the spec as written (its spacing dropped)

    @property
    def site(self) -> str:
        """The spec's site: pthread_create, malloc, flush, none or family:<symbol>."""
        return f"{self.kind}:{self.symbol}" if self.symbol else self.kind

    @property
    def value_text(self) -> str:
        """The value as the spec writes it: EAGAIN, AVERROR(ENOMEM), ORT_FAIL."""
        if self.value:
            return self.value
        if self.kind in FAMILIES and FAMILIES[self.kind].kind == "errno":
            return errnos.name(self.errno)
        return value_text(self.errno)

    @property
    def simple(self) -> bool:
        """The PR's form: the first pthread_create() from FFmpeg's own code fails."""
        return (self.kind == "pthread_create" and self.skip == 0 and self.count == 1
                and self.caller == CALLER and not self.delay)

    @property
    def spec(self) -> str:
        if self.kind == "flush":
            return f"flush=AVERROR({errnos.name(self.errno)})"
        if self.kind == "none":
            return "none"
        if self.simple:
            return f"pthread_create={errnos.name(self.errno)}"
        caller = "" if self.caller in (CALLER, "") else f",caller={self.caller}"
        return f"{self.site}={self._window(self.value_text)}{caller}"

    def _window(self, value: str) -> str:
        text = f"{self.skip}*off->" if self.skip else ""
        count = "" if self.count == spec.FOREVER else f"{self.count}*"
        action = f"delay({self.delay})" if self.delay else f"return({value})"
        return f"{text}{count}{action}"

    @property
    def slug(self) -> str:
        """Lowercase and stable, for scenario ids: pthread_create-eagain."""
        if self.kind == "none":
            return "none"
        if self.kind == "flush" or self.simple:
            return f"{self.kind}-{errnos.name(self.errno).lower()}"
        if self.delay:
            what = f"{self.kind}-{self.symbol}" if self.symbol else self.kind
            return (f"{what}-delay{self.delay}" + (f"-skip{self.skip}" if self.skip else "")
                    + ("" if self.count in (1, spec.FOREVER) else f"-count{self.count}")
                    + ("-forever" if self.count == spec.FOREVER else ""))
        tail = f"-skip{self.skip}" + (f"-count{self.count}" if self.count != spec.FOREVER else "")
        if self.symbol or self.value or (self.kind in FAMILIES
                                         and FAMILIES[self.kind].kind == "averror"):
            value = self.value_text.lower().replace("averror(", "").rstrip(")").replace("::", "-")
            what = f"{self.kind}-{self.symbol}" if self.symbol else self.kind
            tail = (f"-skip{self.skip}" if self.skip else "") + (
                "-forever" if self.count == spec.FOREVER else
                f"-count{self.count}" if self.count != 1 else "")
            return f"{what}-{value}{tail}"
        return f"{self.kind}-{errnos.name(self.errno).lower()}{tail}"


def value_text(code: int) -> str:
    """A wrap: value as the spec writes it: AVERROR(ENOMEM), AVERROR_EOF or a number."""
    if code in errnos.TAGGED:
        return errnos.TAGGED[code]
    if code < 0 and -code in errnos.errno.errorcode:
        return f"AVERROR({errnos.name(-code)})"
    return str(code)


def parse(text: str) -> Fault:
    """The Fault a spec names, which keeps the spec as written (`given`): a case can hold
    its rows to numbers it states for that text, not to numbers computed here."""
    return replace(_parse(text), given="".join(text.split()))


def _parse(text: str) -> Fault:
    s = specparse.parse(text)
    if s.kind == "none":
        return Fault("none")
    plan = s.plan()
    if s.kind == "flush":
        if plan.skip or plan.count != spec.FOREVER or plan.errno >= 0 or plan.errno in errnos.TAGGED:
            raise ScenarioError(f"bad fault '{text}': the stand-in flush can only always "
                                "return one AVERROR(ENAME)")
        return Fault("flush", -plan.errno)
    family = FAMILIES[s.kind]
    symbol = s.site.split(":", 1)[1] if family.per_function else ""
    if family.per_function and symbol not in family.functions:
        raise ScenarioError(f"bad fault '{text}': {symbol} is not in the {s.kind} "
                            f"family (known: {', '.join(family.functions)})")
    if plan.errno == 0 and not plan.delay and not plan.value:
        raise ScenarioError(f"bad fault '{text}': a failed call cannot fail with 0")
    return Fault(s.kind, plan.errno, plan.skip, plan.count, s.caller or CALLER, symbol,
                 plan.delay, plan.value)

