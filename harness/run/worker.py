"""One scenario in this process: python -m harness.run.worker --out RESULT.json < SCENARIO.json

Loads the build's module, builds the graph, drains the first frames through real
inference, installs the recorder and the flush stand-in, arms the injector, sends
EOF and records activate() and the sink until AVERROR_EOF. The result is a RunRecord
(harness/run/record.py), written as its JSON.
"""

import argparse
import faulthandler
import hashlib
import importlib
import json
import os
import sys
from pathlib import Path

from harness.compile import families
from harness.run import eofwatch, leaks, routes, sites, symbolizer
from harness import errnos
from harness.compile import ffi_load
from harness.errors import ExitStatus, HarnessError
from harness.run.filtergraph import Graph, GraphError
from harness.run.frames import async_threads, drain, settle, stalled, synchronous
from harness.run.record import Activation, Counters, RunRecord, Setup
from harness.run.scenario import HEIGHT, WIDTH, Scenario
from harness.run.spec import FOREVER
from harness.obtain import probe
from harness.obtain.tree import Tree, check_stamp, read_stamp

# the sweep on a synchronous backend: seconds with no other thread at work before a
# frame is given up (0: wait the full 2 s for every frame, as before)
IDLE = float(os.environ.get("FFDNN_SWEEP_IDLE", "0.25"))
# the sweep on a backend whose tasks run on threads FFmpeg starts: a frame is given up once
# none of them runs (0: wait the full 2 s for every frame, as before)
THREADS = os.environ.get("FFDNN_SWEEP_THREADS", "1") != "0"
# on any backend, a sweep's frame is given up, and a flush polling at EOF is stuck, once
# every other thread is asleep for good and stays so (frames.stalled(); 0: not, as before)
STILL = os.environ.get("FFDNN_SWEEP_STILL", "1") != "0"


def load_tree(name: str, path: str) -> Tree:
    return Tree(name, Path(path), read_stamp(Path(path)))


_LOADED = {}


def module(build: str, path: str, variant: str):
    """The build's (ffi, lib), imported once per process; the stamp is checked on every
    call, as a fresh worker's import would (a fork server calls this before forking)."""
    tree = load_tree(build, path)
    if (tree.path, variant) not in _LOADED:
        _LOADED[(tree.path, variant)] = ffi_load.load(tree, variant)
    else:
        check_stamp(tree)
    return _LOADED[(tree.path, variant)]


def prepare(path: str) -> None:
    """Read, before a fork server forks, what each of its children would read again of
    the tree at `path`: its source's facts (whether its backends run their tasks on the
    caller's thread, frames.synchronous()), 60 ms of a run of 100 ms when each child read
    them itself."""
    probe.facts(Path(path) / "src")


def records(ffi, lib, start: int) -> list:
    """[Activation]: the activate() records from `start` on."""
    ret, flushed = ffi.new("int *"), ffi.new("int *")
    out = []
    for i in range(start, lib.ffdnn_record_count()):
        lib.ffdnn_record_get(i, ret, flushed)
        out.append(Activation(ret[0], bool(flushed[0])))
    return out


def run(sc: Scenario, checkpoint=lambda record: None, stuck=lambda reason: None) -> RunRecord:
    """The scenario along its route (harness/run/routes.py): the PR's stand-in flush at EOF,
    the backend's own start of the last frame, or a sweep's, armed from the first frame."""
    ffi, lib = module(sc.build, sc.tree, sc.injector)
    lib.ffdnn_log_capture(lib.AV_LOG_INFO)
    coverage = counting(lib, sc)
    record = RunRecord(id=sc.id, build=sc.build, fault=sc.fault.spec, route=sc.route)
    route = routes.of(sc.route)
    family = families.counted(sc.fault)
    if route.setup_only:  # armed while the graph is made: its failure is the run's end
        before, start = arm(ffi, lib, sc, family, coverage)
        # a graph that could not be made is freed, and its backend waits for its requests
        stop = eofwatch.watch(lib, sc, stuck, STILL, setup=True)
        g = setup(ffi, lib, sc, family, coverage, record)
        stop()
        if g is None:
            snapshot(ffi, lib, sc, record, start, before)  # its log too
            record.leaks = leaks.count(ffi, lib)  # the graph that could not be made is freed
            return record
    else:
        g = Graph(ffi, lib, sc.description, WIDTH, HEIGHT)
    ctx = g.filter(sc.ffmpeg_filter)
    if route.standin:
        mode = {"flush": lib.FFDNN_FLUSH_RETURN}.get(sc.fault.kind, lib.FFDNN_FLUSH_ASYNC)
    else:
        mode = lib.FFDNN_FLUSH_COUNT  # the backend's own flush, counted
    with leaks.skipped(lib):  # the harness's copies, kept: not FFmpeg's blocks
        g.check(lib.ffdnn_record_activate(ctx), "install the activate() recorder")
        g.check(lib.ffdnn_standin_flush(ctx, mode, errnos.averror(sc.fault.errno)),
                "install the stand-in flush")
    inputs = [g.frame(i) for i in range(sc.frames)]  # made before any fault is armed
    record.inputs = [hashlib.md5(g.pixels(i)).hexdigest() for i in range(sc.frames)]
    if route.armed_from_start:  # every call from the first frame on is a site of the sweep
        before, start = arm(ffi, lib, sc, family, coverage)
    drained = sc.frames - 1 if route.last_frame_armed else sc.frames
    # a frame is given up once nothing else is at work on it: in a sweep on a synchronous
    # backend; in a run the caller says may hang before its end (extra "frame_idle")
    idle = IDLE if route.swept and synchronous(sc) else float(sc.extra.get("frame_idle", 0.0))
    # in a sweep on a backend whose tasks run on threads FFmpeg starts, those threads are
    # counted (tracked from the first frame on: the injector's caller, FFmpeg's module)
    running = None
    still = stalled if route.swept and STILL else None  # any backend: nothing left at work
    if route.swept and THREADS and async_threads(sc) and lib.ffdnn_threads_track(b"_ffdnn.") == 0:
        running = lib.ffdnn_threads_running
    record.drained, record.frames = [], []
    # a tree whose graph does not activate the filter when its task ends (AVFilterContext.ready
    # public: 5.1's) has it activated while a frame is awaited, as its next frame would
    poke = (lambda: lib.ffdnn_activate_again(ctx)) if lib.HAS_CONTEXT_READY else None
    lost = 0  # frames settle() gave up (failed, or waited for long enough): not waited for again
    for i in range(drained):  # one at a time: Torch has a single request
        ret = g.push(inputs[i])
        if ret < 0 and route.swept:  # the fault reached the caller of av_buffersrc_add_frame()
            record.drained.append(ret)
            lost += 1
            continue
        g.check(ret, f"push frame {i}")
        want = i + 1 - len(record.frames) - lost  # this frame, and any still late
        codes, frames = settle(g, want, route.frame_seconds, idle, running, poke, still)
        record.drained += codes
        record.frames += frames
        lost = max(0, lost + want - len(frames))  # a frame given up that came after all is not lost
    if not route.swept:
        before, start = arm(ffi, lib, sc, family, coverage)
    if route.last_frame_armed:
        g.check(g.push(inputs[drained]), f"push frame {drained}")
        record.frame_sink, frames = drain(g)
        record.frames += frames
    snapshot(ffi, lib, sc, record, start, before)
    if coverage:
        lib.ffdnn_coverage_dump()  # what ran, should the run hang or crash at EOF
    checkpoint(record)  # what a run that then hangs or crashes did so far
    symbolizer.leave()  # a wait on the fork server's symbolizer would look idle from here on
    eofwatch.watch(lib, sc, stuck, STILL)
    record.eof_push = g.push_eof()
    record.sink, frames = drain(g, until_eof=True)
    record.frames += frames
    family.disarm(lib, sc.fault)
    if coverage:
        lib.ffdnn_coverage_dump()
    snapshot(ffi, lib, sc, record, start, before)
    lib.ffdnn_standin_join()
    g.close()
    record.leaks = leaks.count(ffi, lib)  # what FFmpeg's code left behind
    if coverage:  # the teardown: a failed inference's thread is joined when the graph goes
        lib.ffdnn_coverage_dump()
    record.log = ffi.string(lib.ffdnn_log_text()).decode(errors="replace")
    return record  # errors_logged as snapshot() read them: to the sink's EOF, not the teardown


def arm(ffi, lib, sc: Scenario, family, coverage: bool) -> tuple:
    """Arm the scenario's fault (when it has one to arm), the lines run and the blocks
    FFmpeg's code allocates counted from here: the family's counters and the activate()
    records before it, for snapshot()."""
    before, start = family.counters(ffi, lib, sc.fault), lib.ffdnn_record_count()
    leaks.track(lib)
    if families.arms(sc.fault):
        if coverage:
            lib.ffdnn_coverage_reset()  # count from the arm on
        family.arm(lib, sc.fault)
    return before, start


def setup(ffi, lib, sc: Scenario, family, coverage: bool, record: RunRecord):
    """The graph made with the fault armed (arm(): the setup route), then disarmed: the
    Graph, or None when making it failed, what failed in `record.setup` (its call and
    code)."""
    try:
        g = Graph(ffi, lib, sc.description, WIDTH, HEIGHT)
        record.setup = Setup(0)
    except GraphError as e:
        g, record.setup = None, Setup(e.code, str(e))
    finally:
        family.disarm(lib, sc.fault)
    if coverage and g is None:
        lib.ffdnn_coverage_dump()
    return g


def counting(lib, sc: Scenario) -> bool:
    """Whether this run counts the lines the instrumented objects of its tree run (a
    change's tree, asked by its scenario: harness/judge/coverage.py): the counters go to
    the directory the scenario names, under the tree's own paths."""
    want = sc.extra.get("coverage")
    if not want or not lib.ffdnn_coverage_available():
        return False
    os.environ["GCOV_PREFIX"] = want["dir"]
    os.environ["GCOV_PREFIX_STRIP"] = str(want["strip"])
    return True


def snapshot(ffi, lib, sc: Scenario, record: RunRecord, start: int, before: dict) -> None:
    """The counters, activate() records and log so far, into `record`."""
    after = families.counted(sc.fault).counters(ffi, lib, sc.fault)
    record.counters = Counters(**{k: after[k] - before.get(k, 0) for k in after})
    record.injector = bool(after)
    record.activate = records(ffi, lib, start)
    flushed = [a.ret for a in record.activate if a.flushed]
    record.activate_at_eof = flushed[-1] if flushed else None
    failed = [a.ret for a in record.activate if a.ret != 0]
    record.activate_first_error = failed[0] if failed else None
    record.flush_calls = lib.ffdnn_flush_calls()
    record.log = ffi.string(lib.ffdnn_log_text()).decode(errors="replace")
    record.errors_logged = ffi.string(lib.ffdnn_log_errors()).decode(errors="replace") \
        .splitlines()
    if not families.arms(sc.fault):
        return
    sweep = routes.of(sc.route).swept
    if record.counters.failures and not sweep:  # which call was failed
        record.failed_call = sc.fault.skip + 1
    if sweep or record.counters.failures or sc.fault.skip == FOREVER:
        # where the calls came from: a sweep's every run, a failing run, a census
        record.sites = sites.sites(ffi, lib, sc.fault, record.counters.eligible or 0)


def entry(name: str):
    """What runs a scenario: run(), or the `module:function` a scenario names instead (the
    runner's own tests give it a worker that crashes or hangs)."""
    if not name:
        return run
    module_name, _, function = name.partition(":")
    return getattr(importlib.import_module(module_name), function)


def execute(scenario: str, out: str) -> int:
    """Run one scenario (its JSON) and write its RunRecord to `out`, the checkpoint beside
    it (.partial.json): the exit status. A fresh worker and a fork server's child both
    come here."""
    out = Path(out)
    # an instrumented module writes its counters at exit to where they were built unless
    # told otherwise: here, beside the result, unless the scenario asks (counting())
    os.environ.setdefault("GCOV_PREFIX", str(out.parent / "gcov"))

    def checkpoint(record):
        out.with_suffix(".partial.json").write_text(json.dumps(record.to_dict(), indent=1))

    def stuck(reason):  # the runner ends the run as a HANG once it sees this file
        tmp = out.with_suffix(".stuck.tmp")
        tmp.write_text(reason)
        tmp.rename(out.with_suffix(".stuck"))

    try:
        sc = Scenario.from_json(scenario)
        run_it = entry(sc.entry)
        record = (run_it(sc, checkpoint, stuck) if run_it is run else run_it(sc, checkpoint))
        status = ExitStatus.OK
    except HarnessError as e:  # the scenario could not run: its ERROR, said in the record
        record, status = RunRecord(error=str(e)), e.exit_status
    out.write_text(json.dumps(record.to_dict(), indent=1))
    return status


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.run.worker")
    ap.add_argument("--out", required=True, help="where to write the result JSON")
    args = ap.parse_args(argv)
    faulthandler.enable()
    return execute(sys.stdin.read(), args.out)


if __name__ == "__main__":
    sys.exit(main())
