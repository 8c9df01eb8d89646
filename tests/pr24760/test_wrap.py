"""The link-time family: every module is linked with -Wl,--wrap for FFmpeg's own DNN
helpers (injectors/wrap.fi, its C generated into the module), which LD_PRELOAD cannot reach inside a static
libavfilter. Each wrapper fires, its counters prove it, and what a failed helper does
to a real run is measured on base, before and after."""

import errno

import pytest

from harness.cases import pr24760 as expected
from harness import errnos
from harness.compile import ffi_load
from harness.compile.families import FAMILIES
from harness.run.outcome import Outcome, failed_where, functions
from harness.obtain.backends import BACKENDS

ZEROS = "4072783b8efb99a9e5817067d68f61c6"  # md5 of a 64x64 rgb24 frame of zero bytes


def test_the_module_wraps_the_named_set(tree):
    """Every function the stanza names has its window in the module, found by name as
    every family's is; a function it does not name has none."""
    ffi, lib = ffi_load.load(tree("after"))
    names = FAMILIES["wrap"].functions
    assert len(names) == 8
    for name in names:
        window = f"wrap_{name}".encode()
        assert lib.ffdnn_inject_available(window) == 1, name
        assert lib.ffdnn_inject_arm(window, -errno.EINVAL, 0, 1, b"_ffdnn.") == 0
        lib.ffdnn_inject_disarm(window)
    assert lib.ffdnn_inject_available(b"wrap_ff_dnn_execute_model") == 0
    assert lib.ffdnn_inject_arm(b"wrap_ff_dnn_execute_model", -errno.EINVAL, 0, 1,
                                b"_ffdnn.") == -errno.ENOSYS
    first = f"wrap_{names[0]}".encode()
    assert lib.ffdnn_inject_arm(first, 0, 0, 1, b"_ffdnn.") == -errno.EINVAL  # 0 fails nothing
    assert lib.ffdnn_inject_arm_delay(first, 0, 0, 1, b"_ffdnn.") == -errno.EINVAL  # 0 ms
    assert lib.ffdnn_inject_arm_delay(first, 5, 0, 1, b"_ffdnn.") == 0
    lib.ffdnn_inject_disarm(first)


MARK = {name: getattr(pytest.mark, b.marker) for name, b in BACKENDS.items()}


def confidences(frames) -> list:
    """Per frame, the confidences of its boxes' classification labels."""
    return [[c.confidence for b in f.boxes for c in b.classify] for f in frames]


def unjudged(r, build: str) -> None:
    """No expectation table judges a link-time run (expected.lookup has no row for it), so
    it must come out MEASURED, and the test's own assertions are its judgment."""
    sc = r.scenario
    assert expected.lookup(build, sc.fault, sc.backend, sc.filter, sc.route) is None
    assert r.outcome is Outcome.MEASURED, f"{r.outcome.value}: {r.reason}"


@pytest.mark.parametrize("symbol", [
    pytest.param(s, id=f"{s}-{row[0]}", marks=[getattr(pytest.mark, row[1]), MARK[row[0]]])
    for s, row in expected.WRAP_FIRES.items()])
def test_each_wrapper_fires(run_scenario, symbol):
    """Fail the helper's first call after arming: exactly that call fails, from the caller
    the table names, and the value returned in its place shows (expected.WRAP_FIRES); a
    wrapper that counted the call but made it anyway would show nothing."""
    backend, filt, route, value, eligible, caller, (effect, arg) = expected.WRAP_FIRES[symbol]
    r = run_scenario("after", f"wrap:{symbol}=1*return({value})", backend, filt,
                     route=route, timeout=20.0)
    unjudged(r, "after")
    d = r.record
    assert d.counters.failures == 1
    assert d.counters.eligible == eligible
    assert functions(failed_where(d) if route == "flush" else d.sites[0].where)[0] == caller
    errors = [c for c in d.drained + d.sink if c < 0 and c not in (-errno.EAGAIN,
                                                                     errnos.AVERROR_EOF)]
    md5s = [f.md5 for f in d.frames]
    if effect == "first_error":
        assert d.activate_first_error == arg and errors == [arg]
        assert md5s == d.inputs[1:], "the failed frame is dropped, the other goes through"
    elif effect == "error_then_every_frame":
        assert d.activate_first_error == arg and errors == [arg]
        assert d.sink[-1] == errnos.AVERROR_EOF and not [c for c in d.sink if c < 0][:-1]
        assert md5s == d.inputs, "every frame comes out, the failed one later"
    elif effect == "altered":
        assert errors == [] and len(md5s) == len(d.inputs)
        assert md5s[arg] != d.inputs[arg] and md5s[arg + 1:] == d.inputs[arg + 1:]
    elif effect == "classified":
        clean = run_scenario("after", "none", backend, filt, route=route, timeout=20.0)
        conf, clean_conf = confidences(d.frames), confidences(clean.record.frames)
        assert errors == [] and len(conf) == len(clean_conf) == len(d.inputs)
        assert conf[arg] != clean_conf[arg] and conf[arg + 1:] == clean_conf[arg + 1:]
    elif effect == "activate_at_eof":
        assert d.activate_at_eof == arg and errors == []
    else:
        assert effect == "unseen" and arg, "a wrapper whose effect cannot show says why"
        assert errors == [] and md5s == d.inputs


@pytest.mark.parametrize("function", [
    pytest.param(f, marks=[getattr(pytest.mark, row[1]), MARK[row[0]]])
    for f, row in expected.LIBAV_SITES.items()])
def test_each_libav_call_fails_where_the_dnn_code_makes_it(tree, preload, monkeypatch,
                                                           function):
    """The libav family (injectors/libav.fi) fails FFmpeg's calls only where the DNN code
    makes them: the census of the graph counts the function's calls with a DNN function
    innermost, and failing them gives the class the case measured
    (expected.LIBAV_SITES); the sink's, the format filter's calls are no sites."""
    from harness.compile.families import sweep_fault
    from harness.experiments import sweep as sweeps
    from harness.run import forkclient, matrix
    from harness.cases.pr24760 import EXPECT
    backend, filt, caller, cls = expected.LIBAV_SITES[function]
    if backend not in tree("after").backends:
        pytest.skip(f"tree built without {backend} (run: make test BACKENDS=all)")
    assert function in FAMILIES["libav"].functions
    monkeypatch.setattr(sweeps, "FRAMES", 2)
    scs = matrix.scenarios([tree("after")], backend, filt, [sweep_fault("libav")],
                           route="sweep")
    found = sweeps.sweep(scs, preload, jobs=2, expect=EXPECT, pool=forkclient.DEFAULT)["after"]
    count, sites = found
    of = sweeps.census_functions(found.census)  # call index -> the family's function
    assert count == len(sites) > 0
    assert all(functions(s.where)[0] not in ("get_frame_internal", "filter_frame")
               for s in sites), f"only the DNN code's calls are sites: {[s.where for s in sites]}"
    mine = [s for s in sites if of[s.index] == function and functions(s.where)[0] == caller]
    assert mine, f"no site of {function} in {caller} in the census"
    assert cls in {s.cls.value for s in mine}, [(s.index, s.cls.value, s.where) for s in sites]


@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("build", ["base", "before", "after"])
def test_failed_post_processing(run_scenario, build):
    """#24702 commit 3 on ONNX Runtime, through the wrapper: base forwards the first frame
    unwritten (zero bytes) as a normal frame with no error; before and after return
    AVERROR(ENOMEM) for it from activate() and the sink."""
    r = run_scenario(build, "wrap:ff_proc_from_dnn_to_frame=1*return(AVERROR(ENOMEM))",
                     route="sweep")
    unjudged(r, build)
    assert r.record.counters.failures == 1
    errors = [c for c in r.record.drained if c < 0 and c != -errno.EAGAIN]
    md5s = [f.md5 for f in r.record.frames]
    if build == "base":
        assert errors == [] and r.record.activate_first_error is None
        assert md5s[0] == ZEROS and len(md5s) == 2
        assert md5s[1] != ZEROS
    else:
        assert errors == [-errno.ENOMEM]
        assert r.record.activate_first_error == -errno.ENOMEM
        assert len(md5s) == 1 and md5s[0] != ZEROS
    assert r.record.sink[-1] == errnos.AVERROR_EOF


@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("build", ["before", "after"])
def test_wrapping_the_helper_bypasses_the_fix(run_scenario, build):
    """The fix of #24760 lives inside ff_dnn_start_inference_async(): a wrapper that
    returns 11 in its place stands above it, so after loses the 11 at EOF like before.
    (Failing pthread_create() below the helper is what shows the fix.)"""
    r = run_scenario(build, "wrap:ff_dnn_start_inference_async=1*return(11)")
    unjudged(r, build)
    assert r.record.counters.failures == 1
    assert r.record.activate_at_eof == errno.EAGAIN
    assert [c for c in r.record.sink if c < 0] == [errnos.AVERROR_EOF]
    assert "Unable to start async inference" not in r.record.log
