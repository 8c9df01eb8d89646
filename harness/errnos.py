"""errno names, AVERROR codes and how the PR writes them."""

import errno
import os

from harness.errors import ScenarioError


def _tag(a, b, c, d) -> int:
    return -(ord(a) | ord(b) << 8 | ord(c) << 16 | ord(d) << 24)


# FFmpeg's FFERRTAG codes (libavutil/error.h)
TAGGED = {
    _tag("E", "O", "F", " "): "AVERROR_EOF",
    _tag("E", "X", "T", " "): "AVERROR_EXTERNAL",
    _tag("B", "U", "G", "!"): "AVERROR_BUG",
    _tag("B", "U", "G", " "): "AVERROR_BUG2",
    _tag("I", "N", "D", "A"): "AVERROR_INVALIDDATA",
    _tag("E", "X", "I", "T"): "AVERROR_EXIT",
    _tag("U", "N", "K", "N"): "AVERROR_UNKNOWN",
    _tag("P", "A", "W", "E"): "AVERROR_PATCHWELCOME",
}
AVERROR_EOF = _tag("E", "O", "F", " ")
AVERROR_EXTERNAL = _tag("E", "X", "T", " ")


def parse(name: str) -> int:
    """'EAGAIN' (any case) -> its value on this platform; an unknown name is an error."""
    value = getattr(errno, name.strip().upper(), None)
    if not isinstance(value, int) or not name.strip().upper().startswith("E") or value <= 0:
        raise ScenarioError(f"unknown errno name '{name}' on this platform "
                            "(expected a name like EAGAIN, EINVAL, EPERM)")
    return value


def name(value: int) -> str:
    """Positive errno value -> its canonical name (EAGAIN rather than EWOULDBLOCK)."""
    preferred = {errno.EAGAIN: "EAGAIN"}
    return preferred.get(value) or errno.errorcode.get(value, str(value))


def averror(e: int) -> int:
    return -e


def parse_averror(text: str) -> int:
    """An AVERROR code as FFmpeg's source and a fault spec write it: AVERROR(ENAME), a tag
    (AVERROR_EOF, AVERROR_EXTERNAL, ...) or an integer; anything else is an error."""
    t = text.strip()
    tags = {name: code for code, name in TAGGED.items()}
    if t in tags:
        return tags[t]
    if t.startswith("AVERROR(") and t.endswith(")"):
        return averror(parse(t[len("AVERROR("):-1]))
    try:
        return int(t)
    except ValueError:
        raise ScenarioError(f"not an AVERROR code: '{text}' (AVERROR(ENAME), AVERROR_EOF, ... "
                            "or a number)") from None


def describe(code: int | None) -> str:
    """A return code in FFmpeg's words: AVERROR_EOF, AVERROR(EINVAL) (-22), 11, 0;
    None (no code at all) is "nothing"."""
    if code is None:
        return "nothing"
    if code in TAGGED:
        return TAGGED[code]
    if code < 0 and -code in errno.errorcode:
        return f"AVERROR({name(-code)}) ({code})"
    return str(code)


def strerror(code: int) -> str:
    """What av_strerror() prints for an AVERROR(e) on glibc: strerror(e)."""
    return os.strerror(-code) if code < 0 else os.strerror(code)
