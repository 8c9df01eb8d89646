"""The link-time family: every module is linked with -Wl,--wrap for FFmpeg's own DNN
helpers (injectors/wrap_ff.c), which LD_PRELOAD cannot reach inside a static
libavfilter. Each wrapper fires, its counters prove it, and what a failed helper does
to a real run is measured on base, before and after."""

import errno

import pytest

from harness.cases import pr24760 as expected
from harness import errnos
from harness.compile import ffi_build, injector_build as injectors
from harness.run.outcome import Outcome, failed_where, functions
from harness.obtain.backends import BACKENDS

ZEROS = "4072783b8efb99a9e5817067d68f61c6"  # md5 of a 64x64 rgb24 frame of zero bytes


def test_the_module_wraps_the_named_set(tree):
    """The C table, the linker flags and the module agree on the set."""
    ffi, lib = ffi_build.load(tree("after"))
    names = [ffi.string(lib.fi_wrap_symbol(i)).decode() for i in range(lib.fi_wrap_count())]
    assert names == list(injectors.ff_wrap_symbols())
    assert lib.fi_wrap_symbol(lib.fi_wrap_count()) == ffi.NULL
    assert lib.fi_wrap_arm(b"ff_dnn_execute_model", -errno.EINVAL, 0, 1) == -1
    assert lib.fi_wrap_arm(names[0].encode(), 0, 0, 1) == -1
    assert lib.fi_wrap_arm_delay(b"ff_dnn_execute_model", 5, 0, 1) == -1
    assert lib.fi_wrap_arm_delay(names[0].encode(), 0, 0, 1) == -1   # a delay of 0 ms
    assert lib.fi_wrap_arm_delay(names[0].encode(), 5, 0, 1) == 0
    lib.fi_wrap_disarm()


MARK = {name: getattr(pytest.mark, b.marker) for name, b in BACKENDS.items()}


def confidences(frames) -> list:
    """Per frame, the confidences of its boxes' classification labels."""
    return [[c["confidence"] for b in f["boxes"] for c in b["classify"]] for f in frames]


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
    d = r.data
    assert d["counters"]["failures"] == 1
    assert d["counters"]["eligible"] == eligible
    assert functions(failed_where(d) if route == "flush" else d["sites"][0]["where"])[0] == caller
    errors = [c for c in d["drained"] + d["sink"] if c < 0 and c not in (-errno.EAGAIN,
                                                                           errnos.AVERROR_EOF)]
    md5s = [f["md5"] for f in d["frames"]]
    if effect == "first_error":
        assert d["activate_first_error"] == arg and errors == [arg]
        assert md5s == d["inputs"][1:], "the failed frame is dropped, the other goes through"
    elif effect == "altered":
        assert errors == [] and len(md5s) == len(d["inputs"])
        assert md5s[arg] != d["inputs"][arg] and md5s[arg + 1:] == d["inputs"][arg + 1:]
    elif effect == "classified":
        clean = run_scenario("after", "none", backend, filt, route=route, timeout=20.0)
        conf, clean_conf = confidences(d["frames"]), confidences(clean.data["frames"])
        assert errors == [] and len(conf) == len(clean_conf) == len(d["inputs"])
        assert conf[arg] != clean_conf[arg] and conf[arg + 1:] == clean_conf[arg + 1:]
    elif effect == "activate_at_eof":
        assert d["activate_at_eof"] == arg and errors == []
    else:
        assert effect == "unseen" and arg, "a wrapper whose effect cannot show says why"
        assert errors == [] and md5s == d["inputs"]


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
    assert r.data["counters"]["failures"] == 1
    errors = [c for c in r.data["drained"] if c < 0 and c != -errno.EAGAIN]
    md5s = [f["md5"] for f in r.data["frames"]]
    if build == "base":
        assert errors == [] and r.data["activate_first_error"] is None
        assert md5s[0] == ZEROS and len(md5s) == 2
        assert md5s[1] != ZEROS
    else:
        assert errors == [-errno.ENOMEM]
        assert r.data["activate_first_error"] == -errno.ENOMEM
        assert len(md5s) == 1 and md5s[0] != ZEROS
    assert r.data["sink"][-1] == errnos.AVERROR_EOF


@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("build", ["before", "after"])
def test_wrapping_the_helper_bypasses_the_fix(run_scenario, build):
    """The fix of #24760 lives inside ff_dnn_start_inference_async(): a wrapper that
    returns 11 in its place stands above it, so after loses the 11 at EOF like before.
    (Failing pthread_create() below the helper is what shows the fix.)"""
    r = run_scenario(build, "wrap:ff_dnn_start_inference_async=1*return(11)")
    unjudged(r, build)
    assert r.data["counters"]["failures"] == 1
    assert r.data["activate_at_eof"] == errno.EAGAIN
    assert [c for c in r.data["sink"] if c < 0] == [errnos.AVERROR_EOF]
    assert "Unable to start async inference" not in r.data["log"]
