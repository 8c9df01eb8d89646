"""The fault families, one entry each: its spec site, the selectors it takes, the value
it fails with, how a worker arms, disarms and counts it through the build's module, and
the term a bare `sweep --fault NAME` fails each call with.

Interposed families (pthread_create, malloc) are an LD_PRELOAD injector generated from
their stanza, ../injectors/<name>.fi (interposers.py), into libfi_<name>.so
(injector_build), whose control calls `fi_<name>_*` the module finds by name at run time
(_cffi_src/inject.c): adding one is its stanza plus one entry here. The link-time family `wrap:<ff_symbol>` wraps
FFmpeg's own DNN helpers (wrap_ff.c) and is counted per symbol.
"""

import errno
import re
from dataclasses import dataclass

from harness.errors import HarnessError, ScenarioError
from harness.paths import data_dir

FIELDS = ("calls", "eligible", "failures")


@dataclass(frozen=True)
class Family:
    name: str               # the spec's site (wrap: the prefix of wrap:<ff_symbol>)
    sweep_term: str         # what a bare `sweep --fault NAME` fails each call with
    selectors: tuple = ()   # spec selectors besides after=
    errno_value: bool = True  # fails with a positive errno (else an AVERROR value)
    link_time: bool = False   # the wrap:<ff_symbol> family

    def counters(self, ffi, lib, f) -> dict:
        """calls, eligible, failures since load; {} without the injector."""
        c = [ffi.new("unsigned long *") for _ in FIELDS]
        ret = (lib.fi_wrap_counters(f.symbol.encode(), *c) if self.link_time
               else lib.ffdnn_inject_counters(self.name.encode(), *c))
        return {} if ret < 0 else dict(zip(FIELDS, (x[0] for x in c)))

    def site(self, lib, f, n: int, frames, depth: int) -> int:
        """Copy the stack of eligible call n since the arm into frames[depth]: how many
        return addresses (0 when none was kept)."""
        if self.link_time:
            return lib.fi_wrap_site(f.symbol.encode(), n, frames, depth)
        return lib.ffdnn_inject_site(self.name.encode(), n, frames, depth)

    def arm(self, lib, f) -> None:
        """Fail the fault's calls; an interposed family by default only from the module's
        own code (the static libavfilter linked into it), never a backend's own threads."""
        if self.link_time:
            ret = (lib.fi_wrap_arm_delay(f.symbol.encode(), f.delay, f.skip, f.count)
                   if f.delay else lib.fi_wrap_arm(f.symbol.encode(), f.errno, f.skip, f.count))
            if ret < 0:
                raise ScenarioError(f"arm the link-time injector: {f.symbol} is not "
                                    "wrapped in this module")
            return
        if f.delay:
            ret = lib.ffdnn_inject_arm_delay(self.name.encode(), f.delay, f.skip, f.count,
                                             f.caller.encode())
        else:
            ret = lib.ffdnn_inject_arm(self.name.encode(), f.errno, f.skip, f.count,
                                       f.caller.encode())
        if ret < 0:
            raise ScenarioError(f"arm the {self.name} injector: {_why(ret, f)}")

    def disarm(self, lib, f) -> None:
        if self.link_time:
            lib.fi_wrap_disarm()
        else:
            lib.ffdnn_inject_disarm(self.name.encode())


FAMILIES = {f.name: f for f in (
    Family("pthread_create", "1*return(EAGAIN)", selectors=("caller", "start")),
    Family("malloc", "1*return(ENOMEM)", selectors=("caller",)),
    Family("wrap", "1*return(AVERROR(ENOMEM))", errno_value=False, link_time=True),
)}
INTERPOSED = tuple(n for n, f in FAMILIES.items() if not f.link_time)


def counted(fault) -> Family:
    """The family a fault is armed and counted in; none and the stand-in flush are
    counted in pthread_create (the thread the stand-in flush starts)."""
    return FAMILIES.get(fault.kind, FAMILIES["pthread_create"])


def arms(fault) -> bool:
    """Does the fault arm an injector (not none, not the stand-in flush)?"""
    return fault.kind in FAMILIES


def _why(ret: int, f) -> str:
    return {-errno.ENOSYS: "the injector is not loaded (AVERROR(ENOSYS))",
            -errno.ENOENT: f"no loaded object's file name contains caller={f.caller} "
                           "(AVERROR(ENOENT))",
            -errno.EINVAL: "the injector refused the window (AVERROR(EINVAL))"}.get(ret, str(ret))


_FF_WRAP_NAME = re.compile(r'^\s*\[FI_WRAP_\w+\]\s*=\s*"(\w+)",', re.M)


def ff_wrap_symbols() -> tuple[str, ...]:
    """The FFmpeg-internal functions the link-time family wraps, read from the name table
    of its injector (injectors/wrap_ff.c)."""
    return tuple(_FF_WRAP_NAME.findall((data_dir("injectors") / "wrap_ff.c").read_text()))


def sweep_fault(family: str) -> str:
    """A sweep's --fault: a family name gets its default failing term, a spec is kept."""
    if "=" in family:
        return family
    if family == "wrap":
        raise HarnessError("a wrap sweep names its function: --fault wrap:<ff_symbol> "
                           f"(known: {', '.join(ff_wrap_symbols())})")
    name = family.split(":")[0]
    if name not in FAMILIES:
        known = [n + (":<ff_symbol>" if f.link_time else "") for n, f in FAMILIES.items()]
        raise HarnessError(f"bad sweep family '{family}' (known: {', '.join(known)})")
    return f"{family}={FAMILIES[name].sweep_term}"
