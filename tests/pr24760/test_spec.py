"""Tests for the fault-spec language (harness/run/specparse.py, harness/run/spec.py): each
documented form, the round trip through the canonical text, one-line errors with their
column, and plan()."""
import errno

import pytest

from harness import errnos
from harness.run import faults, spec, specparse
from harness.errors import ScenarioError
from harness.run.spec import FOREVER, Plan, Spec, SpecError, Term
from harness.cases import pr24760

try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    given = None

pytestmark = pytest.mark.unit

EAGAIN, ENOMEM, EINVAL = errno.EAGAIN, errno.ENOMEM, errno.EINVAL


def ret(value, text, count=None):
    return Term(count, "return", value, text)


def off(count=None):
    return Term(count, "off")


# (text, the Spec it means, its canonical text)
FORMS = [
    ("none", Spec("none"), "none"),
    ("  none  ", Spec("none"), "none"),
    # the old forms
    ("pthread_create=EAGAIN", Spec("pthread_create", (ret(EAGAIN, "EAGAIN", 1),)),
     "pthread_create=1*return(EAGAIN)"),
    ("pthread_create=eperm", Spec("pthread_create", (ret(errno.EPERM, "EPERM", 1),)),
     "pthread_create=1*return(EPERM)"),
    ("flush=AVERROR(EAGAIN)", Spec("flush", (ret(-EAGAIN, "AVERROR(EAGAIN)"),)),
     "flush=return(AVERROR(EAGAIN))"),
    # terms
    ("pthread_create=2*off->1*return(EAGAIN)",
     Spec("pthread_create", (off(2), ret(EAGAIN, "EAGAIN", 1))),
     "pthread_create=2*off->1*return(EAGAIN)"),
    ("pthread_create=2*off->1*return(EAGAIN)->off",
     Spec("pthread_create", (off(2), ret(EAGAIN, "EAGAIN", 1), off())),
     "pthread_create=2*off->1*return(EAGAIN)->off"),
    ("malloc=3*off->return(ENOMEM)", Spec("malloc", (off(3), ret(ENOMEM, "ENOMEM"))),
     "malloc=3*off->return(ENOMEM)"),
    ("av_malloc=return(ENOMEM)", Spec("malloc", (ret(ENOMEM, "ENOMEM"),)),
     "malloc=return(ENOMEM)"),
    ("malloc=1*return(12)", Spec("malloc", (ret(ENOMEM, "12", 1),)), "malloc=1*return(12)"),
    ("pthread_create=off", Spec("pthread_create", (off(),)), "pthread_create=off"),
    ("flush=1*return(0)->return(-11)", Spec("flush", (ret(0, "0", 1), ret(-EAGAIN, "-11"))),
     "flush=1*return(0)->return(-11)"),
    ("wrap:ff_dnn_start_inference_async=return(AVERROR(ENOMEM))",
     Spec("wrap:ff_dnn_start_inference_async", (ret(-ENOMEM, "AVERROR(ENOMEM)"),)),
     "wrap:ff_dnn_start_inference_async=return(AVERROR(ENOMEM))"),
    ("wrap:ff_proc_from_dnn_to_frame=1*off->1*return(AVERROR_EOF)",
     Spec("wrap:ff_proc_from_dnn_to_frame", (off(1), ret(errnos.AVERROR_EOF, "AVERROR_EOF", 1))),
     "wrap:ff_proc_from_dnn_to_frame=1*off->1*return(AVERROR_EOF)"),
    # selectors, in canonical order; after=arm is the default and drops out
    ("pthread_create=EAGAIN,caller=_ffdnn.",
     Spec("pthread_create", (ret(EAGAIN, "EAGAIN", 1),), {"caller": "_ffdnn."}),
     "pthread_create=1*return(EAGAIN),caller=_ffdnn."),
    ("pthread_create=1*return(EAGAIN),start=worker_main,caller=libavfilter.so",
     Spec("pthread_create", (ret(EAGAIN, "EAGAIN", 1),),
          {"caller": "libavfilter.so", "start": "worker_main"}),
     "pthread_create=1*return(EAGAIN),caller=libavfilter.so,start=worker_main"),
    ("malloc=return(ENOMEM),after=arm", Spec("malloc", (ret(ENOMEM, "ENOMEM"),)),
     "malloc=return(ENOMEM)"),
    ("malloc=return(ENOMEM),after=load",
     Spec("malloc", (ret(ENOMEM, "ENOMEM"),), {"after": "load"}),
     "malloc=return(ENOMEM),after=load"),
    ("flush=AVERROR(EAGAIN),after=load",
     Spec("flush", (ret(-EAGAIN, "AVERROR(EAGAIN)"),), {"after": "load"}),
     "flush=return(AVERROR(EAGAIN)),after=load"),
    # whitespace between tokens
    (" malloc = 3 * off -> return ( ENOMEM ) , caller = _ffdnn. ",
     Spec("malloc", (off(3), ret(ENOMEM, "ENOMEM")), {"caller": "_ffdnn."}),
     "malloc=3*off->return(ENOMEM),caller=_ffdnn."),
]


@pytest.mark.parametrize("text,want,canonical", FORMS, ids=[f[0].strip() for f in FORMS])
def test_forms(text, want, canonical):
    got = specparse.parse(text)
    assert got == want
    assert spec.format(got) == str(got) == canonical
    assert specparse.parse(canonical) == got
    hash(got)


def test_spec_properties():
    s = specparse.parse("av_malloc=3*off->return(ENOMEM),caller=_ffdnn.")
    assert (s.kind, s.site, s.caller, s.after) == ("malloc", "malloc", "_ffdnn.", "arm")
    w = specparse.parse("wrap:ff_dnn_start_inference_async=return(AVERROR(EAGAIN)),after=load")
    assert (w.kind, w.caller, w.after) == ("wrap", None, "load")
    assert specparse.parse("none") is spec.NONE


@pytest.mark.parametrize("text", pr24760.FAULTS + ("none",))
def test_old_specs_mean_what_they_meant(text):
    old, new = faults.parse(text), specparse.parse(text)
    assert new.kind == old.kind
    if old.kind == "pthread_create":
        assert new.plan() == (0, 1, old.errno, 0, "")  # what arming.arm() arms
    elif old.kind == "flush":
        assert new.plan() == (0, FOREVER, errnos.averror(old.errno), 0, "")
    else:
        assert new.plan() == (0, 0, 0, 0, "")


ROUND_TRIP = [
    "none",
    "pthread_create=EAGAIN",
    "pthread_create=EINVAL",
    "pthread_create=EPERM",
    "pthread_create=ewouldblock",
    "pthread_create=1*return(EAGAIN)",
    "pthread_create=return(EAGAIN)",
    "pthread_create=2*off->1*return(EAGAIN)",
    "pthread_create=2*off->1*return(EAGAIN)->off",
    "pthread_create=1*off->1*return(EAGAIN)->1*off->1*return(EINVAL)",
    "pthread_create=10*return(11)->5*off->return(EPERM)",
    "pthread_create=1*return(EAGAIN),caller=_ffdnn.",
    "pthread_create=1*return(EAGAIN),start=ff_thread_worker",
    "pthread_create=1*return(EAGAIN),start=w,caller=c,after=load",
    "pthread_create=1*return(EAGAIN),after=arm",
    "pthread_create=off",
    "pthread_create=4294967296*off->off",
    "malloc=return(ENOMEM)",
    "malloc=1*return(ENOMEM)",
    "malloc=3*off->return(ENOMEM)",
    "malloc=3*off->1*return(ENOMEM)->2*off->1*return(EINVAL)",
    "malloc=100*off->1*return(12),caller=libavutil",
    "malloc=1*return(ENOMEM),caller=/usr/lib/x86_64-linux-gnu/libonnxruntime.so.1",
    "malloc=1*return(ENOMEM),after=load",
    "av_malloc=1*return(ENOMEM)",
    "av_malloc=2*off->return(enomem),caller=_ffdnn.",
    "malloc=off",
    "flush=AVERROR(EAGAIN)",
    "flush=AVERROR(EINVAL)",
    "flush=return(AVERROR(EAGAIN))",
    "flush=1*return(AVERROR(EAGAIN))->return(0)",
    "flush=2*off->return(AVERROR_EOF)",
    "flush=return(-1094995529)",
    "flush=1*off->1*return(AVERROR_INVALIDDATA)->off,after=load",
    "wrap:ff_dnn_start_inference_async=return(AVERROR(ENOMEM))",
    "wrap:ff_dnn_start_inference_async=1*off->1*return(AVERROR(EAGAIN))",
    "wrap:ff_proc_from_dnn_to_frame=return(AVERROR_EXTERNAL)",
    "wrap:ff_proc_from_dnn_to_frame=3*off->2*return(-22)->off,after=load",
    " wrap:x = 1 * return ( AVERROR ( EAGAIN ) ) -> off , after = load ",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_round_trip(text):
    s = specparse.parse(text)
    canonical = spec.format(s)
    assert specparse.parse(canonical) == s
    assert spec.format(specparse.parse(canonical)) == canonical
    assert " " not in canonical


# (text, 1-based column, what the message must say)
BAD = [
    ("pthread_create=2*of", 18, "expected 'off', 'return(...)' or 'delay(ms)'"),
    ("pthread_create=1*offset", 18, "expected 'off', 'return(...)' or 'delay(ms)'"),
    ("pthread_create=", 16, "expected 'off', 'return(...)' or 'delay(ms)'"),
    ("pthread_create=retur(EAGAIN)", 16, "expected 'off', 'return(...)' or 'delay(ms)'"),
    ("pthread_create=1off", 17, "expected '*' after the count"),
    ("pthread_create=0*off->return(EAGAIN)", 16, "a count must be at least 1"),
    ("pthread_create=return(EAGAIN)->off", 30, "lasts forever, so it must be the last"),
    ("malloc=off->1*return(ENOMEM)", 11, "lasts forever, so it must be the last"),
    ("pthread_create=1*return(EAGAIN", 31, "expected ')'"),
    ("pthread_create=1*return EAGAIN", 25, "expected '('"),
    ("pthread_create=1*return(EAGAIN)x", 32, "expected '->', ',' or the end"),
    ("pthread_create=1*return(EAGAIN)-off", 32, "expected '->', ',' or the end"),
    ("pthread_create", 15, "expected '='"),
    ("", 1, "expected a site"),
    ("foo=off", 1, "expected a site"),
    ("=EAGAIN", 1, "expected a site"),
    ("none=1", 5, "'none' takes no terms or selectors"),
    ("wrap:=off", 6, "expected a C symbol after 'wrap:'"),
    ("pthread_create=EFOO", 16, "unknown errno name 'EFOO' on this platform"),
    ("malloc=1*return(EFOO)", 17, "unknown errno name 'EFOO' on this platform"),
    ("flush=return(AVERROR(EFOO))", 22, "unknown errno name 'EFOO' on this platform"),
    ("pthread_create=AVERROR(EAGAIN)", 16, "positive errno"),
    ("malloc=1*return(AVERROR(ENOMEM))", 17, "positive errno"),
    ("malloc=1*return(-3)", 17, "an errno must be positive"),
    ("pthread_create=1*return(0)", 25, "an errno must be positive"),
    ("flush=EAGAIN", 7, "flush returns AVERROR codes: write AVERROR(EAGAIN)"),
    ("wrap:ff_x=return(eagain)", 18, "returns AVERROR codes: write AVERROR(EAGAIN)"),
    ("flush=return(AVERROR(11))", 22, "expected an errno name"),
    ("malloc=ENOMEM", 8, "shorthand SITE=ENOMEM is only for pthread_create and flush"),
    ("wrap:ff_x=AVERROR(EAGAIN)", 11, "shorthand SITE=AVERROR(EAGAIN) is only for"),
    ("pthread_create=EAGAIN->off", 22, "takes no more terms: write 1*return(EAGAIN)->"),
    ("pthread_create=EAGAIN,caller=", 30, "expected a value after 'caller='"),
    ("pthread_create=EAGAIN,start=1x", 29, "expected a value after 'start='"),
    ("pthread_create=EAGAIN,start=x,start=y", 31, "duplicate selector 'start='"),
    ("pthread_create=EAGAIN,when=arm", 23, "expected a selector: caller=, start= or after="),
    ("pthread_create=EAGAIN,", 23, "expected a selector"),
    ("pthread_create=EAGAIN,after=never", 29, "expected after=arm or after=load"),
    ("malloc=return(ENOMEM),start=f", 23, "selector 'start=' applies only to pthread_create"),
    ("flush=AVERROR(EAGAIN),caller=x", 23,
     "selector 'caller=' applies only to malloc and pthread_create"),
    ("malloc=return(ENOMEM),caller=" + "x" * 256, 30, "at most 255 bytes"),
    ("pthread_create=1*return(EA\x07GAIN)", 27, "unexpected control character"),
    ("pthread_create=1*delay(0)", 24, "a delay is 1 to 60000 milliseconds"),
    ("pthread_create=1*delay(60001)", 24, "a delay is 1 to 60000 milliseconds"),
    ("malloc=delay(ENOMEM)", 14, "a delay is 1 to 60000 milliseconds"),
    ("pthread_create=1*delay(5", 25, "expected ')'"),
    ("flush=delay(5)", 7, "the stand-in flush takes no delay(ms)"),
]


@pytest.mark.parametrize("text,column,what", BAD, ids=[b[0][:40] for b in BAD])
def test_bad_specs(text, column, what):
    with pytest.raises(SpecError) as info:
        specparse.parse(text)
    msg = str(info.value)
    assert isinstance(info.value, ScenarioError)
    assert "\n" not in msg
    shown = "".join(c if c.isprintable() else "?" for c in text.strip())
    assert msg.startswith(f"bad fault spec '{shown}' at column {column}: "), msg
    assert what in msg, msg


def test_unknown_errno_reuses_errnos_wording():
    with pytest.raises(ScenarioError) as want:
        errnos.parse("EFOO")
    with pytest.raises(SpecError) as got:
        specparse.parse("malloc=1*return(EFOO)")
    assert str(got.value).endswith(f": {want.value}")


PLANS = [
    ("none", Plan(0, 0, 0)),
    ("pthread_create=off", Plan(0, 0, 0)),
    ("pthread_create=3*off", Plan(0, 0, 0)),
    ("pthread_create=EAGAIN", Plan(0, 1, EAGAIN)),
    ("pthread_create=1*return(EAGAIN)", Plan(0, 1, EAGAIN)),
    ("pthread_create=2*off->1*return(EAGAIN)", Plan(2, 1, EAGAIN)),
    ("pthread_create=2*off->1*return(EAGAIN)->off", Plan(2, 1, EAGAIN)),
    ("pthread_create=2*off->1*return(EAGAIN)->5*off", Plan(2, 1, EAGAIN)),
    ("pthread_create=1*off->1*off->2*return(EPERM)->1*return(1)", Plan(2, 3, errno.EPERM)),
    ("pthread_create=1*return(EAGAIN),caller=_ffdnn.", Plan(0, 1, EAGAIN)),
    ("malloc=3*off->return(ENOMEM)", Plan(3, FOREVER, ENOMEM)),
    ("malloc=return(ENOMEM)", Plan(0, FOREVER, ENOMEM)),
    ("malloc=7*return(ENOMEM)", Plan(0, 7, ENOMEM)),
    ("malloc=4294967295*off->1*return(ENOMEM)", Plan(4294967295, 1, ENOMEM)),
    ("malloc=4294967294*return(ENOMEM)", Plan(0, 4294967294, ENOMEM)),
    ("flush=AVERROR(EAGAIN)", Plan(0, FOREVER, -EAGAIN)),
    ("wrap:ff_dnn_start_inference_async=1*off->1*return(AVERROR(EINVAL))", Plan(1, 1, -EINVAL)),
    # FreeBSD fail(9)'s delay(ms): the window's calls sleep, then go through
    ("pthread_create=1*delay(1500)", Plan(0, 1, 0, 1500)),
    ("malloc=3*off->2*delay(10)->off", Plan(3, 2, 0, 10)),
    ("wrap:ff_proc_from_dnn_to_frame=delay(60000)", Plan(0, FOREVER, 0, 60000)),
]


@pytest.mark.parametrize("text,want", PLANS, ids=[p[0] for p in PLANS])
def test_plan(text, want):
    got = specparse.parse(text).plan()
    assert got == want and tuple(got) == (want.skip, want.count, want.errno, want.delay,
                                          want.value)


CANNOT = [
    ("pthread_create=1*delay(5)->1*return(EAGAIN)", "or a change of value"),
    ("malloc=1*return(ENOMEM)->1*delay(5)", "or a change of value"),
    ("pthread_create=1*return(EAGAIN)->1*off->1*return(EAGAIN)", "cannot express a second run"),
    ("pthread_create=1*return(EAGAIN)->1*return(EINVAL)", "or a change of value"),
    ("pthread_create=1*return(EAGAIN),start=worker", "by start routine (start=)"),
    ("malloc=1*return(ENOMEM),after=load", "not from load (after=load)"),
    ("malloc=4294967296*off->1*return(ENOMEM)", "cannot skip 4294967296 calls"),
    ("malloc=4294967295*return(ENOMEM)", "cannot fail exactly 4294967295 calls"),
]


@pytest.mark.parametrize("text,what", CANNOT, ids=[c[0] for c in CANNOT])
def test_plan_cannot(text, what):
    s = specparse.parse(text)
    with pytest.raises(SpecError) as info:
        s.plan()
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"fault spec '{spec.format(s)}' cannot be armed: "
                                              f"the {s.site} injector ")
    assert what in msg and msg.endswith(" yet"), msg


def outcomes(s: Spec, calls: int) -> list:
    """What the terms do to calls 0 .. calls-1: 0 = through, else the value returned."""
    out = []
    for t in s.terms:
        n = calls - len(out) if t.count is None else min(t.count, calls - len(out))
        out += [t.value if t.action == "return" else 0] * n
    return out + [0] * (calls - len(out))


def plan_outcomes(p: Plan, calls: int) -> list:
    return [p.errno if p.skip <= i < p.skip + p.count else 0 for i in range(calls)]


@pytest.mark.parametrize("text", [p[0] for p in PLANS[:13]] + [PLANS[-1][0]])
def test_plan_matches_terms(text):
    s = specparse.parse(text)
    assert plan_outcomes(s.plan(), 40) == outcomes(s, 40)


if given is not None:
    ERRNO_NAMES = ["EAGAIN", "eagain", "ENOMEM", "EINVAL", "EPERM", "EWOULDBLOCK", "ENOSYS"]
    # what each errno family's fault profile holds, by name and by number (its stanza)
    PROFILE = {k: [v for v in ERRNO_NAMES + [str(n) for n in range(1, 200)]
                   if (int(v) if v.isdigit() else errnos.parse(v))
                   in [errnos.parse(x) for x in specparse.profile(k)]]
               for k in specparse.ERRNO_SITES}
    ident = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,15}", fullmatch=True)
    sp = st.sampled_from(["", " "])

    def errno_value(kind):
        return st.sampled_from(PROFILE[kind])

    def averror_value():
        return st.one_of(st.sampled_from(ERRNO_NAMES).map(lambda n: f"AVERROR({n})"),
                         st.sampled_from(sorted(specparse._TAGS)),
                         st.integers(-2**31, 2**31).map(str))

    @st.composite
    def spec_texts(draw):
        site = draw(st.one_of(st.sampled_from(["pthread_create", "malloc", "av_malloc", "flush"]),
                              ident.map(lambda s: f"wrap:{s}")))
        kind = specparse.ALIASES.get(site, site).split(":")[0]
        value = errno_value(kind) if kind in specparse.ERRNO_SITES else averror_value()
        if kind in ("pthread_create", "flush") and draw(st.integers(0, 4)) == 0:
            names = st.sampled_from([n for n in ERRNO_NAMES        # the old shorthand
                                     if kind == "flush" or n in PROFILE[kind]])
            terms = draw(names if kind == "pthread_create" else names.map(
                lambda n: f"AVERROR({n})"))
        else:
            def term(counted):
                what = draw(st.one_of(st.just("off"), value.map(lambda v: f"return({v})")))
                return f"{draw(st.integers(1, 10**6))}{draw(sp)}*{draw(sp)}{what}" if counted \
                    else what
            n = draw(st.integers(0, 4))
            parts = [term(True) for _ in range(n)]
            if n == 0 or draw(st.booleans()):
                parts.append(term(False))
            terms = f"{draw(sp)}->{draw(sp)}".join(parts)
        selectors = []
        for key in draw(st.permutations(sorted(specparse.SELECTORS))):
            allowed = specparse.SELECTORS[key]
            if (allowed is None or kind in allowed) and draw(st.booleans()):
                val = {"caller": st.from_regex(r"[A-Za-z0-9_./+-]{1,40}", fullmatch=True),
                       "start": ident, "after": st.sampled_from(specparse.AFTER)}[key]
                selectors.append(f",{draw(sp)}{key}={draw(val)}")
        return f"{draw(sp)}{site}{draw(sp)}={draw(sp)}{terms}{''.join(selectors)}{draw(sp)}"

    @settings(max_examples=400, deadline=None, database=None)
    @given(spec_texts())
    def test_round_trip_generated(text):
        s = specparse.parse(text)
        canonical = spec.format(s)
        assert specparse.parse(canonical) == s
        assert spec.format(specparse.parse(canonical)) == canonical
        hash(s)
        try:
            p = s.plan()
        except SpecError as e:
            assert "\n" not in str(e) and "cannot be armed" in str(e)
        else:
            assert plan_outcomes(p, 30) == outcomes(s, 30)

    @settings(max_examples=400, deadline=None, database=None)
    @given(st.text(alphabet="pthread_cremalofsuwin:=*->(),EAGINOMV0123456789 ", max_size=40))
    def test_garbage_fails_on_one_line(text):
        try:
            s = specparse.parse(text)
        except SpecError as e:
            msg = str(e)
            assert "\n" not in msg and msg.startswith("bad fault spec '") and " at column " in msg
        else:
            assert specparse.parse(spec.format(s)) == s
else:  # pragma: no cover
    @pytest.mark.skip(reason="hypothesis not installed (pip install hypothesis)")
    def test_round_trip_generated():
        pass


@pytest.mark.parametrize("text, slug", [
    ("libav=1*return(AVERROR(ENOMEM))", "libav-enomem"),
    ("libav=3*off->1*return(AVERROR(EINVAL))", "libav-einval-skip3"),
    ("wrap:ff_dnn_fill_task=1*return(AVERROR(EINVAL))", "wrap-ff_dnn_fill_task-einval"),
    ("onnxruntime=2*off->1*return(ORT_FAIL)", "onnxruntime-ort_fail-skip2"),
])
def test_a_scenario_id_names_the_value(text, slug):
    """An AVERROR family with one window names its value as a per-function one does
    (not as the negative number an errno family's would give)."""
    assert faults.parse(text).slug == slug
