"""A fault family's stanza (injectors/<family>.fi), parsed and checked: what the C of the
family is generated from (harness/compile/interposers.py).

A stanza (injectors/<family>.fi) declares a family and each function it can fail:

    family NAME              control calls fi_NAME_* (fi_family.h); libfi_NAME.so (preload)
    variants V...            preload (LD_PRELOAD), wrap (-Wl,--wrap=<function> object),
                             darwin (DYLD_INSERT_LIBRARIES; compiles to nothing elsewhere),
                             link (-Wl,--wrap=<function>, compiled into each tree's module
                             with that tree's headers: FFmpeg's own helpers, a backend's API)
    include H...             headers the declarations need (<h> or "h")
    hooks FILE               the family's own C in injectors/ (what `call:` names), optional
    tls initial-exec         the busy guard's TLS model, optional
    values KIND              what a failing value is: errno (a positive errno, the default),
                             averror (an AVERROR code, returned as is) or code (a name of the
                             library's own, resolved by the C the stanza generates, compiled
                             with the tree's headers: fi_NAME_value("ORT_FAIL"))
    window per-function      each function its own fault window and numbering (spec site
                             NAME:function, control calls fi_NAME_function_*); default one
                             window for all the family's functions
    requires MACRO...        (link) compiled only where the tree's config.h sets every MACRO
    backend NAME             the calls are that backend's API: swept on its graphs only
    sites dnn                a call is a site only with FFmpeg's DNN code on its stack (on
                             every route, as the setup route has it for every family): for
                             functions the rest of FFmpeg calls too
    selectors S...           spec selectors the family takes besides after= (caller, start)
    table TYPE via SYMBOL    the functions are entries of TYPE, a table of function pointers
                             that SYMBOL hands out: the hooks wrap SYMBOL and put the
                             wrappers into a copy of the table (fi_table_install(TYPE *))

    RET NAME(PARAMS)         a function the family fails, then indented:
        fail: C              what a failed call does with `err` (required)
        call: C              how a call the window lets through goes on (default
                             REAL(ARGS)); REAL is the real function, `caller` (the
                             return address) and `eligible` are in scope
        values: V...         the fault profile: every value the function can fail with,
                             the first what a one-value sweep fails it with; the word
                             `source` stands for the AVERROR codes the function's own body
                             returns in the tree (read by harness/obtain/probe.py)
        version: V...        glibc symbol versions to ask dlvsym() for first, in order
        symbol: TEXT         (link) the symbol is the tree's reference whose demangled name
                             begins with TEXT (a C++ function: its mangled name read from
                             the tree's objects, not written here)

Lines starting with '#' are comments. Each generated function asks the family's one
core (fi_family.h: window, caller target, counters, site stacks, each call's function)
and fails or goes on; the core's control calls come with it. Adding a family is its
stanza (and, if its calls need more than REAL(ARGS), its hooks).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

VARIANTS = ("preload", "wrap", "darwin", "link")
KINDS = ("errno", "averror", "code")
SOURCE = "source"  # the value word for "what the function's body in the tree returns"


class StanzaError(ValueError):
    """A stanza that does not parse: its file, line and why."""


@dataclass
class Function:
    ret: str
    name: str
    params: str
    fail: str = ""
    call: str = ""
    versions: tuple = ()
    values: tuple = ()
    symbol: str = ""  # a demangled prefix the tree's objects resolve (link)

    @property
    def args(self) -> str:
        return ", ".join(_param_name(p) for p in _split(self.params))

    @property
    def void(self) -> bool:
        return self.ret == "void"


@dataclass
class Stanza:
    family: str = ""
    variants: tuple = ()
    includes: tuple = ()
    hooks: str = ""
    tls: str = ""
    functions: list = field(default_factory=list)
    kind: str = "errno"
    per_function: bool = False
    requires: str = ""
    backend: str = ""
    selectors: tuple = ()
    table: tuple = ()  # (TYPE, SYMBOL)
    sites: str = ""    # "dnn": only the DNN code's calls are sites

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)


def _split(params: str) -> list:
    """The parameters, split at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in params:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [p for p in (*out, cur.strip()) if p and p != "void"]


def _param_name(param: str) -> str:
    """The name a parameter declares (`int *x`, `int x[4]`, `void (*cb)(int)`), "" if none."""
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)", param) or re.search(r"(\w+)\s*(\[\s*\w*\s*\])?$", param)
    return m.group(1) if m else ""


DECL = re.compile(r"^(?P<ret>[\w\s*]+?)\s*\b(?P<name>\w+)\s*\((?P<params>.*)\)$")
KEYS = ("fail", "call", "version", "values", "symbol")
SINGLE = ("family", "hooks", "tls", "values", "window", "requires", "backend", "sites")
MANY = {"variants": "variants", "include": "includes", "selectors": "selectors"}


def parse(path: Path) -> Stanza:
    """The stanza in `path`; a line that does not parse is a StanzaError naming it."""
    st, fn = Stanza(), None
    for no, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue

        def bad(why):
            return StanzaError(f"{Path(path).name}:{no}: {why}: {line}")

        if raw[0].isspace():
            key, _, value = line.partition(":")
            if fn is None or key not in KEYS or not value.strip():
                raise bad("expected 'fail: C', 'call: C', 'values: V...', 'version: V...' "
                          "or 'symbol: TEXT' under a function")
            if key in ("version", "values"):
                setattr(fn, {"version": "versions"}.get(key, key), tuple(value.split()))
            else:
                setattr(fn, key, value.strip())
            continue
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if word in SINGLE and rest:
            if word == "values":
                st.kind = rest
            elif word == "sites":
                if rest != "dnn":
                    raise bad("expected 'sites dnn'")
                st.sites = rest
            elif word == "window":
                if rest not in ("shared", "per-function"):
                    raise bad("expected 'window shared' or 'window per-function'")
                st.per_function = rest == "per-function"
            else:
                setattr(st, word, rest)
        elif word in MANY and rest:
            setattr(st, MANY[word], tuple(rest.split()))
        elif word == "table":
            m = re.fullmatch(r"(\w+)\s+via\s+(\w+)", rest)
            if not m:
                raise bad("expected 'table TYPE via SYMBOL'")
            st.table = (m[1], m[2])
        else:
            m = DECL.match(line)
            if not m:
                raise bad("expected a directive or a declaration 'RET NAME(PARAMS)'")
            fn = Function(m["ret"].strip(), m["name"], m["params"].strip())
            st.functions.append(fn)
    _check(st, Path(path).name)
    return st


def _check(st: Stanza, where: str) -> None:
    if not re.fullmatch(r"\w+", st.family or ""):
        raise StanzaError(f"{where}: no 'family NAME' line")
    if not st.variants or set(st.variants) - set(VARIANTS):
        raise StanzaError(f"{where}: 'variants' names none or an unknown one (known: "
                          f"{', '.join(VARIANTS)})")
    if st.tls not in ("", "initial-exec"):
        raise StanzaError(f"{where}: tls '{st.tls}' (known: initial-exec)")
    if st.kind not in KINDS:
        raise StanzaError(f"{where}: values '{st.kind}' (known: {', '.join(KINDS)})")
    if st.table and st.variants != ("link",):
        raise StanzaError(f"{where}: a table's family has the link variant only")
    if not st.functions:
        raise StanzaError(f"{where}: declares no function")
    for f in st.functions:
        if not f.fail:
            raise StanzaError(f"{where}: {f.name} has no 'fail:' line")
        if not f.values:
            raise StanzaError(f"{where}: {f.name} has no 'values:' line (its fault profile)")
        if not all(_param_name(p) for p in _split(f.params)):
            raise StanzaError(f"{where}: {f.name}: every parameter needs a name (the "
                              "wrapper passes them on)")
        if f.void and set(st.variants) - {"link"}:
            raise StanzaError(f"{where}: {f.name} returns void: only a link family's "
                              "function may (its failure is in an argument)")
        if SOURCE in f.values and st.kind != "averror":
            raise StanzaError(f"{where}: {f.name}: 'source' values are AVERROR codes "
                              "(values averror)")
        if f.symbol and "link" not in st.variants:
            raise StanzaError(f"{where}: {f.name}: 'symbol:' is for a link family")
