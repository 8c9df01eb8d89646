"""What a run's FFmpeg code left behind: the blocks the module's code (FFmpeg's static
libraries, linked into it) allocated from the fault's arm on and had not freed once the
graph was freed, as the malloc injector kept them (injectors/fi_leaks.h), each place
named from its stack as a site is (harness/run/sites.py). A backend's runtime, the C
library and Python allocate from their own objects: none of theirs is kept."""

import contextlib
import os
from collections import defaultdict

from harness.run import sites
from harness.run.faults import CALLER
from harness.run.record import Leak, Leaks

# FFDNN_LEAKS=0: no run tracks its blocks (to measure what tracking costs)
TRACK = os.environ.get("FFDNN_LEAKS", "1") != "0"
DEPTH = 12   # FI_LEAK_DEPTH: frames the injector keeps per block
NAMED = 64   # blocks whose places are named; the rest are counted only


def track(lib) -> bool:
    """Keep the blocks FFmpeg's code allocates from now on (every block kept before
    forgotten): whether they are kept (no malloc injector loaded, or FFDNN_LEAKS=0: not)."""
    return TRACK and lib.ffdnn_leaks_track(CALLER.encode()) == 0


@contextlib.contextmanager
def skipped(lib):
    """The blocks this thread allocates meanwhile are not kept: the harness's own C in
    the module (its copy of the filter for the activate() recorder, of the DNN module
    for the stand-in flush: kept for the rest of the process, and not FFmpeg's)."""
    lib.ffdnn_leaks_skip(1)
    try:
        yield
    finally:
        lib.ffdnn_leaks_skip(0)


def count(ffi, lib) -> Leaks | None:
    """The blocks kept and not freed, tracking stopped; None when none were tracked."""
    blocks, size = ffi.new("unsigned long *"), ffi.new("unsigned long *")
    untracked = lib.ffdnn_leaks(blocks, size)
    lib.ffdnn_leaks_track(ffi.NULL)
    if not TRACK or untracked < 0:
        return None
    frames, one = ffi.new("void *[]", DEPTH), ffi.new("unsigned long *")
    found, sizes = {}, {}
    for n in range(min(blocks[0], NAMED)):
        depth = lib.ffdnn_leak(n, frames, DEPTH, one)
        if depth < 0:
            break
        found[n] = [int(ffi.cast("uintptr_t", frames[j])) for j in range(depth)]
        sizes[n] = one[0]
    by_place = defaultdict(lambda: [0, 0])
    for n, where in sites.name(ffi, lib, found).items():
        by_place[where][0] += 1
        by_place[where][1] += sizes[n]
    return Leaks(blocks[0], size[0], untracked,
                 [Leak(w, b, s) for w, (b, s) in sorted(by_place.items())])
