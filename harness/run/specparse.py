"""The fault-spec language: SITE=TERMS[,SELECTOR...] read into a Spec (harness/run/spec.py).

    spec     = "none" | site "=" terms { "," selector }
    site     = family | family ":" function | "av_malloc" | "flush"
                                           (a family of injectors/*.fi; family:function for
                                           one whose stanza says `window per-function`)
    terms    = term { "->" term }          (only the last term may omit its count)
             | value                       (the old shorthand: pthread_create and flush only)
    term     = [ count "*" ] ( "off" | "return(" value ")" | "delay(" ms ")" )   count >= 1
    ms       = integer, 1 to 60000         (not for flush)
    value    = ENAME | integer > 0         (an errno family, pthread_create, malloc: a
                                           positive errno of its fault profile)
             | "AVERROR(" ENAME ")" | AVERROR_EOF | ... | integer    (flush, wrap:)
             | NAME                        (a family of the library's own codes: a value of
                                           its fault profile, as ORT_FAIL)
    selector = "caller=" substring         (the families whose stanza selects by caller)
             | "start=" ident              (pthread_create)
             | "after=" ( "arm" | "load" )

What the terms and selectors do is harness/run/spec.py's. The old forms stay valid:
`pthread_create=EAGAIN` is `pthread_create=1*return(EAGAIN)`, `flush=AVERROR(EAGAIN)` is
`flush=return(AVERROR(EAGAIN))`, `none` injects nothing. `av_malloc` is an alias of
`malloc`. Spaces may stand between tokens; the canonical text (spec.format) has none.
Columns in errors are 1-based.
"""
from __future__ import annotations

import re

from harness import errnos
from harness.errors import ScenarioError
from harness.compile.families import FAMILIES
from harness.run.spec import NONE, Spec, SpecError, Term

SITES = (*(n for n, f in FAMILIES.items() if not f.per_function), "flush")  # and family:function
PER_FUNCTION = tuple(n for n, f in FAMILIES.items() if f.per_function)
ALIASES = {"av_malloc": "malloc"}
ERRNO_SITES = tuple(n for n, f in FAMILIES.items() if f.kind == "errno")  # a positive errno
CODE_SITES = tuple(n for n, f in FAMILIES.items() if f.kind == "code")    # the library's names
SELECTORS = {**{k: tuple(n for n, f in FAMILIES.items() if k in f.selectors)
                for k in ("caller", "start")}, "after": None}
AFTER = ("arm", "load")
MAX_DELAY = 60_000    # milliseconds: a delay(ms) longer than any run's timeout is a hang
CALLER_MAX = 255      # the injectors keep 255 bytes of the caller substring
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CODE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*")
_INT = re.compile(r"-?[0-9]+")
_TAGS = {name: code for code, name in errnos.TAGGED.items()}


class _Parser:
    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def fail(self, msg: str, pos: int | None = None):
        col = (self.pos if pos is None else pos) + 1
        raise SpecError(f"bad fault spec '{self.text}' at column {col}: {msg}")

    def ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1

    def peek(self, s: str) -> bool:
        self.ws()
        return self.text.startswith(s, self.pos)

    def take(self, s: str) -> bool:
        if self.peek(s):
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str, what: str | None = None) -> None:
        if not self.take(s):
            self.fail(f"expected {what or repr(s)}")

    def match(self, rx: re.Pattern) -> str | None:
        self.ws()
        m = rx.match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return m.group(0) if m else None

    def spec(self) -> Spec:
        start = self.pos
        name = self.match(_IDENT)
        if name == "none":
            if self.pos == len(self.text):
                return NONE
            self.fail("'none' takes no terms or selectors")
        if name in PER_FUNCTION and self.take(":"):
            symbol = self.match(_IDENT) or self.fail(f"expected a C symbol after '{name}:'")
            site = f"{name}:{symbol}"
        elif name in SITES or name in ALIASES:
            site = ALIASES.get(name, name)
        else:
            known = [*SITES, "av_malloc", *(f"{n}:<function>" for n in PER_FUNCTION)]
            self.fail(f"expected a site: {', '.join(known)} or none", start)
        self.expect("=")
        terms = self.terms(site)
        selectors = self.selectors(site)
        if self.pos != len(self.text):
            self.fail("expected '->', ',' or the end of the spec")
        return Spec(site, terms, selectors)

    def terms(self, site: str) -> tuple[Term, ...]:
        self.ws()
        start = self.pos
        word = _IDENT.match(self.text, self.pos)
        if word and word.group(0) not in ("off", "return", "delay") and word.group(0)[:1] in "EeA":
            value, text = self.value(site)            # the old SITE=E shorthand
            if site not in ("pthread_create", "flush"):
                self.fail(f"the shorthand SITE={text} is only for pthread_create and "
                          f"flush: write 1*return({text}) or return({text})", start)
            if self.peek("->"):
                self.fail(f"the shorthand SITE={text} takes no more terms: write "
                          f"{'1*' if site == 'pthread_create' else ''}return({text})->...")
            return (Term(1 if site == "pthread_create" else None, "return", value, text),)
        terms = [self.term(site)]
        while True:
            arrow = self.pos
            if not self.take("->"):
                return tuple(terms)
            if terms[-1].count is None:
                self.fail("a term without a count lasts forever, so it must be the last",
                          arrow)
            terms.append(self.term(site))

    def term(self, site: str) -> Term:
        self.ws()
        start, count = self.pos, None
        digits = self.match(re.compile(r"[0-9]+"))
        if digits is not None:
            self.expect("*", "'*' after the count")
            count = int(digits)
            if count < 1:
                self.fail("a count must be at least 1", start)
        self.ws()
        word = self.match(_IDENT)
        if word == "off":
            return Term(count, "off")
        if word == "delay":
            if site == "flush":
                self.fail("the stand-in flush takes no delay(ms): delay the call it "
                          "makes (pthread_create=1*delay(ms) on the flush route)",
                          self.pos - len(word))
            self.expect("(")
            at = self.pos
            ms = self.match(_INT)
            if ms is None or not 1 <= int(ms) <= MAX_DELAY:
                self.fail(f"a delay is 1 to {MAX_DELAY} milliseconds", at)
            self.expect(")")
            return Term(count, "delay", int(ms), str(int(ms)))
        if word != "return":
            self.fail("expected 'off', 'return(...)' or 'delay(ms)'",
                      self.pos - len(word or ""))
        self.expect("(")
        value, text = self.value(site)
        self.expect(")")
        return Term(count, "return", value, text)

    def value(self, site: str) -> tuple[int | None, str]:
        self.ws()
        start = self.pos
        family = site.split(":")[0]
        if family in CODE_SITES:
            word = self.match(_CODE) or self.fail(f"{site} fails with a value of its own: "
                                                  f"{', '.join(profile(family))}")
            if word not in profile(family):
                self.fail(f"{word} is not in {family}'s fault profile: "
                          f"{', '.join(profile(family))}", start)
            return None, word
        if site in ERRNO_SITES:
            if self.peek("AVERROR"):
                self.fail(f"{site} fails with a positive errno: write a name like EAGAIN "
                          "or a number, not an AVERROR code")
            if (number := self.match(_INT)) is not None:
                if int(number) <= 0:
                    self.fail("an errno must be positive", start)
                value, text = int(number), str(int(number))
            else:
                value, text = self.errno(start)
            known = profile(site)
            if value not in [errnos.parse(v) for v in known]:
                self.fail(f"{text} is not in {site}'s fault profile (the errors it can "
                          f"fail with: {', '.join(known)})", start)
            return value, text
        if (number := self.match(_INT)) is not None:
            return int(number), str(int(number))
        name = self.match(_IDENT) or self.fail("expected AVERROR(ENAME), AVERROR_EOF or a number")
        if name in _TAGS:
            return _TAGS[name], name
        if name != "AVERROR":
            self.fail(f"{site} returns AVERROR codes: write AVERROR({name.upper()})", start)
        self.expect("(")
        value, text = self.errno(self.pos)
        self.expect(")")
        return errnos.averror(value), f"AVERROR({text})"

    def errno(self, start: int) -> tuple[int, str]:
        name = self.match(_IDENT) or self.fail("expected an errno name like EAGAIN")
        try:
            return errnos.parse(name), name.upper()
        except ScenarioError as e:
            self.fail(str(e), start)

    def selectors(self, site: str) -> dict:
        found: dict = {}
        while self.take(","):
            self.ws()
            start = self.pos
            key = self.match(_IDENT)
            if key not in SELECTORS:
                self.fail("expected a selector: caller=, start= or after=", start)
            if SELECTORS[key] is not None and site not in SELECTORS[key]:
                self.fail(f"selector '{key}=' applies only to {' and '.join(SELECTORS[key])}",
                          start)
            if key in found:
                self.fail(f"duplicate selector '{key}='", start)
            self.expect("=")
            self.ws()
            at = self.pos
            rx = {"caller": re.compile(r"[^,\s]+")}.get(key, _IDENT)
            value = self.match(rx) or self.fail(f"expected a value after '{key}='")
            if key == "after" and value not in AFTER:
                self.fail("expected after=arm or after=load", at)
            if key == "caller" and len(value.encode()) > CALLER_MAX:
                self.fail(f"a caller substring is at most {CALLER_MAX} bytes", at)
            found[key] = value
        if found.get("after") == "arm":    # the default: not part of the canonical text
            del found["after"]
        return {k: found[k] for k in SELECTORS if k in found}


def profile(family: str) -> tuple:
    """Every value a family's stanza declares, for any of its functions."""
    return FAMILIES[family].declared()


def parse(text: str) -> Spec:
    """Text -> Spec; SpecError (one line, with the column) when it is not a valid spec."""
    text = text.strip()
    bad = next((i for i, c in enumerate(text) if not c.isprintable()), None)
    if bad is not None:
        shown = "".join(c if c.isprintable() else "?" for c in text)
        raise SpecError(f"bad fault spec '{shown}' at column {bad + 1}: "
                        "unexpected control character")
    return _Parser(text).spec()
