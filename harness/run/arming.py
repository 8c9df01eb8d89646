"""Arm, disarm and count the injector family a scenario's fault names, and read the
stacks it kept, through the build's module: pthread_create and malloc (the
interposers, or the --wrap object), and wrap:<ff_symbol> (the link-time family every
module links in)."""

import errno

from harness.errors import ScenarioError
from harness.run.faults import Fault

FIELDS = ("calls", "eligible", "failures")


def _family(lib, f: Fault) -> int:
    """The family a (non-wrap) fault is armed and counted in (pthread_create by default)."""
    return lib.FFDNN_FAMILY_MALLOC if f.kind == "malloc" else lib.FFDNN_FAMILY_PTHREAD_CREATE


def counters(ffi, lib, f: Fault) -> dict:
    """calls, eligible, failures of the fault's family since load; {} without an injector."""
    c = [ffi.new("unsigned long *") for _ in FIELDS]
    if f.kind == "wrap":
        ret = lib.fi_wrap_counters(f.symbol.encode(), *c)
    else:
        ret = lib.ffdnn_inject_counters(_family(lib, f), *c)
    return {} if ret < 0 else dict(zip(FIELDS, (x[0] for x in c)))


def site(lib, f: Fault, n: int, frames, depth: int) -> int:
    """Copy the stack of the family's eligible call n since its arm into frames[depth]:
    how many return addresses (0 when none was kept)."""
    if f.kind == "wrap":
        return lib.fi_wrap_site(f.symbol.encode(), n, frames, depth)
    return lib.ffdnn_inject_site(_family(lib, f), n, frames, depth)


def arm(lib, f: Fault) -> None:
    """Fail the fault's calls; pthread_create and malloc by default only from the module's
    own code (the static libavfilter linked into it), never a backend's own threads."""
    if f.kind == "wrap":
        if lib.fi_wrap_arm(f.symbol.encode(), f.errno, f.skip, f.count) < 0:
            raise ScenarioError(f"arm the link-time injector: {f.symbol} is not wrapped "
                                "in this module")
    elif f.kind in ("pthread_create", "malloc"):
        ret = lib.ffdnn_inject_arm(_family(lib, f), f.errno, f.skip, f.count, f.caller.encode())
        if ret < 0:
            raise ScenarioError(f"arm the {f.kind} injector: {_why(ret, f)}")


def disarm(lib, f: Fault) -> None:
    if f.kind == "wrap":
        lib.fi_wrap_disarm()
    else:
        lib.ffdnn_inject_disarm(_family(lib, f))


def _why(ret: int, f: Fault) -> str:
    return {-errno.ENOSYS: "the injector is not loaded (AVERROR(ENOSYS))",
            -errno.ENOENT: f"no loaded object's file name contains caller={f.caller} "
                           "(AVERROR(ENOENT))",
            -errno.EINVAL: "the injector refused the window (AVERROR(EINVAL))"}.get(ret, str(ret))
