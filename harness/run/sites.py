"""Where each call of a sweep's family came from: the stacks the fault window keeps
(fi_window.h), named with addr2line from the build's own debug information."""

import functools
import os
import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

from harness.compile import families
from harness.run import symbolizer
from harness.run.faults import Fault
from harness.run.record import CallSite
from harness.run.spec import FOREVER

DEPTH = 8         # FI_DEPTH: frames the window keeps per call
KEPT = 1024       # FI_SITES: calls whose stacks it keeps after each arm
SHOWN = 3         # frames of FFmpeg's code a site is named by
NOT_FFMPEG = ("fi_", "__wrap_", "ffdnn_", "??")  # the injectors' and the harness's frames
ALLOCATOR = "(mem.c:"  # av_malloc() and friends: every malloc site passes through them
_NAMED = {}  # (object, offset) -> ["function (file:line)", ...] or None: this process's lookups


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


def module_object(ffi, lib) -> tuple | None:
    """(object file, offset) of a function of the build's module: the object whose debug
    information names FFmpeg's frames."""
    address = int(ffi.cast("uintptr_t", ffi.cast("void *", lib.ffdnn_build_stamp)))
    return _objects(ffi, lib, [address + 1]).get(address + 1)


def _symbolize(obj: str, offsets: list) -> dict | None:
    """offset -> ["function (file:line)", ...]: the functions the debug information puts at
    the offset, the innermost first (a function the compiler inlined, then the one it was
    inlined into), one run per object; frames without debug information (a backend's own
    library) are left out. llvm-symbolizer names each inlined function by its DWARF
    entry, so a site keeps its frames whatever a change does to the compiler's inlining
    (GNU addr2line -i names the first of them after the symbol it lies in: without
    llvm-symbolizer, the outermost function only, as addr2line -f has it). None: no
    symbolizer answered."""
    if not os.path.isfile(obj):
        return {}
    kept = symbolizer.kept()
    answer = kept.ask(obj, offsets) if kept is not None else None
    if answer is not None:  # the fork server's symbolizer, asked
        return {o: frames for o, lines in zip(offsets, answer)
                if (frames := _pairs("\n".join(lines)))}
    if shutil.which("llvm-symbolizer"):
        r = subprocess.run(["llvm-symbolizer", "--inlining", "--demangle", "--basenames",
                            "--obj", obj, *(hex(o) for o in offsets)],
                           capture_output=True, text=True)  # an empty line after each
        groups = r.stdout.split("\n\n") if r.returncode == 0 else []
        if len(groups) >= len(offsets):
            return {o: frames for o, g in zip(offsets, groups) if (frames := _pairs(g))}
    if not shutil.which("addr2line"):
        return None
    r = subprocess.run(["addr2line", "-f", "-C", "-s", "-e", obj, *(hex(o) for o in offsets)],
                       capture_output=True, text=True)
    lines = r.stdout.splitlines()
    if r.returncode != 0 or len(lines) != 2 * len(offsets):
        return None
    return {o: frames for i, o in enumerate(offsets)
            if (frames := _pairs("\n".join(lines[2 * i:2 * i + 2])))}


def _pairs(text: str) -> list:
    """A symbolizer's `function` / `file:line[:column]` line pairs as
    ["function (file:line)", ...], those with no file left out."""
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return [f"{lines[i].split('(')[0]} ({':'.join(lines[i + 1].split(' ')[0].split(':')[:2])})"
            for i in range(0, len(lines) - 1, 2) if not lines[i + 1].startswith("??")]


def _named(by_obj: dict) -> dict:
    """(object, offset) -> its frames (or None), for every offset of `by_obj` (object ->
    offsets): this process's lookups (the checkpoint named most), then what the fork
    server's other children named, then a symbolizer for the rest, its names shared."""
    shared = symbolizer.names()
    if shared is not None and any((o, f) not in _NAMED for o, fs in by_obj.items() for f in fs):
        _NAMED.update(shared.read())
    for obj, offs in by_obj.items():
        new = sorted(o for o in offs if (obj, o) not in _NAMED)
        if new:
            text = _symbolize(obj, new)
            found = {(obj, o): (text or {}).get(o) for o in new}
            _NAMED.update(found)
            if shared is not None and text is not None:  # not a symbolizer that failed
                shared.write(found)
    return _NAMED


def name(ffi, lib, found: dict) -> dict:
    """call index -> "f (file.c:12) < g (file.c:34) < ...": the first frames that are
    FFmpeg's (or a backend's) own, past the injector, libc, the harness and av_malloc()."""
    where = _objects(ffi, lib, [a for st in found.values() for a in st])
    by_obj = defaultdict(set)
    for obj, off in where.values():
        if "/libfi_" not in obj and "/libc.so" not in obj:
            by_obj[obj].add(off)
    named = _named(by_obj)
    out = {}
    for i, st in found.items():
        chain = [c for a in st for c in named.get(where.get(a)) or ()]
        chain = [c for c in chain if not c.startswith(NOT_FFMPEG) and ALLOCATOR not in c]
        out[i] = " < ".join(chain[:SHOWN]) or "?"
    return out


def sites(ffi, lib, f: Fault, eligible: int) -> list:
    """The census (a window that never fails) names every call it saw; a failing run,
    the call it failed: [CallSite] (its index from 1, its stack, which of the family's
    functions it was a call of)."""
    calls = range(min(eligible, KEPT)) if f.skip == FOREVER else range(f.skip, f.skip + 1)
    named = name(ffi, lib, stacks(ffi, lib, f, calls))
    family = families.counted(f)
    return [CallSite(i + 1, named[i], family.site_function(lib, f, i)) for i in sorted(named)]


@functools.lru_cache(maxsize=None)
def dnn_files(src: str) -> frozenset:
    """The file names of FFmpeg's DNN code in a tree's source: libavfilter/dnn/ and
    libavfilter's own dnn files (the filters, dnn_filter_common, dnn_interface.h)."""
    root = Path(src) / "libavfilter"
    return frozenset(p.name for p in [*root.glob("dnn/*"), *root.glob("*dnn*")]
                     if p.suffix in (".c", ".cpp", ".h"))


def in_dnn_code(where: str, src) -> bool:
    """Does a site's stack ("f (file.c:12) < g (file.c:34)") pass through the DNN code?"""
    return any(f in dnn_files(str(src)) for f in re.findall(r"\(([^():]+):\d+\)", where))
