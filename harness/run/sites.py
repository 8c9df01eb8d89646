"""Where each call of a sweep's family came from: the stacks the fault window keeps
(fi_window.h), named with addr2line from the build's own debug information."""

import os
import shutil
import subprocess
from collections import defaultdict

from harness.compile import families
from harness.run.faults import Fault
from harness.run.spec import FOREVER

DEPTH = 8         # FI_DEPTH: frames the window keeps per call
KEPT = 1024       # FI_SITES: calls whose stacks it keeps after each arm
SHOWN = 3         # frames of FFmpeg's code a site is named by
NOT_FFMPEG = ("fi_", "__wrap_", "ffdnn_", "??")  # the injectors' and the harness's frames
ALLOCATOR = "(mem.c:"  # av_malloc() and friends: every malloc site passes through them
_NAMED = {}  # (object, offset) -> "function (file:line)" or None: this process's lookups


def stacks(ffi, lib, f: Fault, calls: range) -> dict:
    """call index -> its return addresses, innermost first (calls the window kept)."""
    frames = ffi.new("void *[]", DEPTH)
    out = {}
    for i in calls:
        n = families.counted(f).site(lib, f, i, frames, DEPTH)
        if n > 0:
            out[i] = [int(ffi.cast("uintptr_t", frames[j])) for j in range(n)]
    return out


def _objects(ffi, lib, addresses) -> dict:
    """address -> (object file, offset of the call instruction in it)."""
    base = ffi.new("void **")
    out = {}
    for a in set(addresses):
        name = lib.ffdnn_addr_object(ffi.cast("void *", a), base)
        if name != ffi.NULL:
            out[a] = (ffi.string(name).decode(), a - int(ffi.cast("uintptr_t", base[0])) - 1)
    return out


def _addr2line(obj: str, offsets: list) -> dict:
    """offset -> "function (file:line)", one addr2line run per object; frames without
    debug information (a backend's own library) are left out."""
    if not shutil.which("addr2line") or not os.path.isfile(obj):
        return {}
    r = subprocess.run(["addr2line", "-f", "-C", "-s", "-e", obj, *(hex(o) for o in offsets)],
                       capture_output=True, text=True)
    lines = r.stdout.splitlines()
    if r.returncode != 0 or len(lines) != 2 * len(offsets):
        return {}
    return {o: f"{lines[2 * i].split('(')[0]} ({lines[2 * i + 1].split(' ')[0]})"
            for i, o in enumerate(offsets) if not lines[2 * i + 1].startswith("??")}


def name(ffi, lib, found: dict) -> dict:
    """call index -> "f (file.c:12) < g (file.c:34) < ...": the first frames that are
    FFmpeg's (or a backend's) own, past the injector, libc, the harness and av_malloc()."""
    where = _objects(ffi, lib, [a for st in found.values() for a in st])
    by_obj = defaultdict(set)
    for obj, off in where.values():
        if "/libfi_" not in obj and "/libc.so" not in obj:
            by_obj[obj].add(off)
    for obj, offs in by_obj.items():  # the checkpoint named most of them already
        new = sorted(o for o in offs if (obj, o) not in _NAMED)
        if new:
            text = _addr2line(obj, new)
            _NAMED.update({(obj, o): text.get(o) for o in new})
    named = _NAMED
    out = {}
    for i, st in found.items():
        chain = [named.get(where.get(a)) for a in st]
        chain = [c for c in chain if c and not c.startswith(NOT_FFMPEG) and ALLOCATOR not in c]
        out[i] = " < ".join(chain[:SHOWN]) or "?"
    return out


def sites(ffi, lib, f: Fault, eligible: int) -> list:
    """The census (a window that never fails) names every call it saw; a failing run,
    the call it failed: [{"call": n (1-based), "where": text, "function": which of the
    family's functions it was a call of}]."""
    calls = range(min(eligible, KEPT)) if f.skip == FOREVER else range(f.skip, f.skip + 1)
    named = name(ffi, lib, stacks(ffi, lib, f, calls))
    family = families.counted(f)
    return [{"call": i + 1, "where": named[i], "function": family.site_function(lib, f, i)}
            for i in sorted(named)]
