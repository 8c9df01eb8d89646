"""The link-time family: every module is linked with -Wl,--wrap for FFmpeg's own DNN
helpers (injectors/wrap_ff.c), which LD_PRELOAD cannot reach inside a static
libavfilter. Each wrapper fires, its counters prove it, and what a failed helper does
to a real run is measured on base, before and after."""

import errno

import pytest

from harness import errnos
from harness.compile import ffi_build, injector_build as injectors
from harness.run.outcome import Outcome

ZEROS = "4072783b8efb99a9e5817067d68f61c6"  # md5 of a 64x64 rgb24 frame of zero bytes
OK = (Outcome.PASS, Outcome.MEASURED)


def test_the_module_wraps_the_named_set(tree):
    """The C table, the linker flags and the module agree on the set."""
    ffi, lib = ffi_build.load(tree("after"))
    names = [ffi.string(lib.fi_wrap_symbol(i)).decode() for i in range(lib.fi_wrap_count())]
    assert names == list(injectors.ff_wrap_symbols())
    assert lib.fi_wrap_symbol(lib.fi_wrap_count()) == ffi.NULL
    assert lib.fi_wrap_arm(b"ff_dnn_execute_model", -errno.EINVAL, 0, 1) == -1
    assert lib.fi_wrap_arm(names[0].encode(), 0, 0, 1) == -1


# (symbol, backend, filter): a graph whose frames reach that helper
REACHES = [
    ("ff_proc_from_dnn_to_frame", "onnx", "dnn_processing"),
    ("ff_proc_from_frame_to_dnn", "onnx", "dnn_processing"),
    ("ff_frame_to_dnn_detect", "tf", "dnn_detect"),
    ("ff_frame_to_dnn_classify", "openvino", "dnn_classify"),
    ("ff_dnn_start_inference_async", "tf", "dnn_processing"),
]


MARK = {"onnx": pytest.mark.onnx, "tf": pytest.mark.tensorflow,
        "openvino": pytest.mark.openvino}


@pytest.mark.parametrize("symbol, backend, filt", [
    pytest.param(*r, id=f"{r[0]}-{r[1]}", marks=[getattr(pytest.mark, r[2]), MARK[r[1]]])
    for r in REACHES])
def test_each_wrapper_fires(run_scenario, symbol, backend, filt):
    """Fail the helper's first call after arming: exactly one value returned in its place."""
    value = "11" if symbol == "ff_dnn_start_inference_async" else "AVERROR(ENOMEM)"
    route = "flush" if symbol == "ff_dnn_start_inference_async" else "sweep"
    r = run_scenario("after", f"wrap:{symbol}=1*return({value})", backend, filt,
                     route=route, timeout=20.0)
    assert r.outcome in OK, f"{r.outcome.value}: {r.reason}"
    assert r.data["counters"]["failures"] == 1
    assert r.data["counters"]["eligible"] >= 1


@pytest.mark.onnx
@pytest.mark.dnn_processing
@pytest.mark.parametrize("build", ["base", "before", "after"])
def test_failed_post_processing(run_scenario, build):
    """#24702 commit 3 on ONNX Runtime, through the wrapper: base forwards the first frame
    unwritten (zero bytes) as a normal frame with no error; before and after return
    AVERROR(ENOMEM) for it from activate() and the sink."""
    r = run_scenario(build, "wrap:ff_proc_from_dnn_to_frame=1*return(AVERROR(ENOMEM))",
                     route="sweep")
    assert r.outcome in OK, f"{r.outcome.value}: {r.reason}"
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
    assert r.outcome in OK, f"{r.outcome.value}: {r.reason}"
    assert r.data["counters"]["failures"] == 1
    assert r.data["activate_at_eof"] == errno.EAGAIN
    assert [c for c in r.data["sink"] if c < 0] == [errnos.AVERROR_EOF]
    assert "Unable to start async inference" not in r.data["log"]
