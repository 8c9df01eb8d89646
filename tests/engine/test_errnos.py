"""errno names and AVERROR codes (harness/errnos.py) against numbers written down, not computed:
FFmpeg's FFERRTAG codes as libavutil/error.h gives them (and as the recorded real runs
returned them, tests/data/verdicts/), Linux's errno values as the PR states them (11, 22, 1),
and the words av_strerror() prints on glibc, as the after tree's log says them."""

import pytest

from harness import errnos
from harness.errors import ScenarioError
from tests import recorded

pytestmark = pytest.mark.unit

# libavutil/error.h: FFERRTAG(a, b, c, d) = -MKTAG(a, b, c, d), by value
FFERRTAG = {
    "AVERROR_EOF": (("E", "O", "F", " "), -541478725),
    "AVERROR_EXTERNAL": (("E", "X", "T", " "), -542398533),
    "AVERROR_BUG": (("B", "U", "G", "!"), -558323010),
    "AVERROR_BUG2": (("B", "U", "G", " "), -541545794),
    "AVERROR_INVALIDDATA": (("I", "N", "D", "A"), -1094995529),
    "AVERROR_EXIT": (("E", "X", "I", "T"), -1414092869),
    "AVERROR_UNKNOWN": (("U", "N", "K", "N"), -1313558101),
    "AVERROR_PATCHWELCOME": (("P", "A", "W", "E"), -1163346256),
}


@pytest.mark.parametrize("name", list(FFERRTAG))
def test_fferrtag(name):
    tag, value = FFERRTAG[name]
    assert errnos._tag(*tag) == value
    assert errnos.TAGGED[value] == name
    assert errnos.describe(value) == name


def test_the_codes_the_real_runs_returned():
    """The after EAGAIN row's sink, as FFmpeg returned it: AVERROR_EXTERNAL then EOF."""
    sink = recorded.run("table-onnx", "after", "pthread_create=EAGAIN")["data"]["sink"]
    assert sink == [errnos.AVERROR_EXTERNAL, errnos.AVERROR_EOF] == [-542398533, -541478725]
    assert [errnos.describe(c) for c in sink] == ["AVERROR_EXTERNAL", "AVERROR_EOF"]


# the PR's numbers: "before the fix `activate()` returned 11, 22 and 1"
@pytest.mark.parametrize("text, value", [("EAGAIN", 11), ("EINVAL", 22), ("EPERM", 1),
                                         ("eperm", 1), (" EIO ", 5), ("ENOMEM", 12),
                                         ("EACCES", 13)])
def test_parse(text, value):
    assert errnos.parse(text) == value


@pytest.mark.parametrize("bad", ["EFOO", "", " ", "11", "AGAIN", "errorcode", "E", "__name__"])
def test_parse_refuses(bad):
    with pytest.raises(ScenarioError) as e:
        errnos.parse(bad)
    assert str(e.value) == (f"unknown errno name '{bad}' on this platform (expected a name "
                            "like EAGAIN, EINVAL, EPERM)")


@pytest.mark.parametrize("value, text", [(11, "EAGAIN"), (1, "EPERM"), (22, "EINVAL"),
                                         (13, "EACCES"), (99999, "99999")])
def test_name(value, text):
    assert errnos.name(value) == text


def test_name_is_eagain_where_the_table_says_ewouldblock(monkeypatch):
    """The same value has two names (EAGAIN, EWOULDBLOCK); a platform whose table keeps
    the other still reads EAGAIN, as FFmpeg and the PR write it."""
    import errno
    monkeypatch.setitem(errno.errorcode, errno.EAGAIN, "EWOULDBLOCK")
    assert errnos.name(errno.EAGAIN) == "EAGAIN"
    assert errnos.describe(-errno.EAGAIN) == f"AVERROR(EAGAIN) ({-errno.EAGAIN})"


@pytest.mark.parametrize("code, text", [
    (None, "nothing"), (0, "0"), (11, "11"), (-22, "AVERROR(EINVAL) (-22)"),
    (-11, "AVERROR(EAGAIN) (-11)"), (-1, "AVERROR(EPERM) (-1)"), (-5, "AVERROR(EIO) (-5)"),
    (-99999, "-99999"), (-541478725, "AVERROR_EOF"),
])
def test_describe(code, text):
    assert errnos.describe(code) == text


@pytest.mark.parametrize("code, text", [
    (-11, "Resource temporarily unavailable"),  # the after tree's log: "...: Resource ..."
    (11, "Resource temporarily unavailable"),
    (-22, "Invalid argument"), (-1, "Operation not permitted"), (1, "Operation not permitted"),
])
def test_strerror(code, text):
    assert errnos.strerror(code) == text


def test_averror():
    assert [errnos.averror(e) for e in (11, 22, 1)] == [-11, -22, -1]


@pytest.mark.parametrize("text, code", [("AVERROR(ENOMEM)", -12), ("AVERROR_EOF", -541478725),
                                        ("AVERROR_EXTERNAL", -542398533), ("11", 11), ("-5", -5)])
def test_an_averror_as_the_source_writes_it(text, code):
    assert errnos.parse_averror(text) == code


@pytest.mark.parametrize("bad", ["AVERROR(EFOO)", "ENOMEM", "AVERROR_NOPE", "",
                                 "AVERROR(12", "12)"])
def test_not_an_averror(bad):
    with pytest.raises(ScenarioError):
        errnos.parse_averror(bad)


def test_not_an_averror_says_what_is():
    with pytest.raises(ScenarioError, match=r"^not an AVERROR code: 'AVERROR\(12' "
                       r"\(AVERROR\(ENAME\), AVERROR_EOF, \.\.\. or a number\)$"):
        errnos.parse_averror("AVERROR(12")
