"""Every fault family's C, generated from its stanza, as libfiu's preload generates its
wrappers from declarations.

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
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)", param) or re.search(r"(\w+)\s*(\[\s*\])?$", param)
    return m.group(1)


DECL = re.compile(r"^(?P<ret>[\w\s*]+?)\s*\b(?P<name>\w+)\s*\((?P<params>.*)\)$")
KEYS = ("fail", "call", "version", "values", "symbol")
SINGLE = ("family", "hooks", "tls", "values", "window", "requires", "backend")
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
        if f.void and set(st.variants) - {"link"}:
            raise StanzaError(f"{where}: {f.name} returns void: only a link family's "
                              "function may (its failure is in an argument)")
        if SOURCE in f.values and st.kind != "averror":
            raise StanzaError(f"{where}: {f.name}: 'source' values are AVERROR codes "
                              "(values averror)")
        if f.symbol and "link" not in st.variants:
            raise StanzaError(f"{where}: {f.name}: 'symbol:' is for a link family")


def c_value(word: str) -> str:
    """The C a code value's name stands for: the name itself when it is an identifier
    (NULL, for a function whose failure is a null pointer, stands for 1: its `fail:` line
    returns NULL), else FI_VALUE_<name with every other character an underscore> (the
    hooks define it, for names like c10::Error)."""
    if word == "NULL":
        return "1"
    return word if re.fullmatch(r"[A-Za-z_]\w*", word) else \
        "FI_VALUE_" + re.sub(r"\W", "_", word)


def _typed(ret: str, name: str) -> str:
    """`int name`, `void *name`."""
    return f"{ret}{'' if ret.endswith('*') else ' '}{name}"


def _resolver(f: Function) -> str:
    """fi_real_NAME(): the next definition of NAME, looked up once (by version first)."""
    versions = "".join(f'"{v}", ' for v in f.versions)
    by_version = (f"""#ifdef __GLIBC__
    static const char *const versions[] = {{ {versions}NULL }};

    for (int i = 0; !sym && versions[i]; i++)
        sym = dlvsym(RTLD_NEXT, "{f.name}", versions[i]);
#endif
""" if f.versions else "")
    return f"""static fi_{f.name}_fn fi_real_{f.name}(void)
{{
    static _Atomic(fi_{f.name}_fn) real;
    fi_{f.name}_fn fn = atomic_load(&real);
    void *sym = NULL;

    if (fn)
        return fn;
{by_version}    if (!sym)
        sym = dlsym(RTLD_NEXT, "{f.name}");
    fn = (fi_{f.name}_fn)sym;
    atomic_store(&real, fn);
    return fn;
}}
"""


def _names(st: Stanza, f: Function, variant: str, symbols: dict) -> tuple[str, str]:
    """(the wrapper's name, the real function's C) for one variant."""
    sym = symbols.get(f.name, f.name)
    if st.table:
        return f"fi_entry_{f.name}", f"fi_table_real->{f.name}"
    return ({"preload": f.name, "wrap": f"__wrap_{sym}", "link": f"__wrap_{sym}",
             "darwin": f"fi_interposed_{f.name}"}[variant],
            {"preload": f"fi_real_{f.name}()", "wrap": f"__real_{sym}",
             "link": f"__real_{sym}", "darwin": f.name}[variant])


def _wrapper(st: Stanza, f: Function, index: int, variant: str, symbols: dict) -> str:
    name, real = _names(st, f, variant, symbols)
    call = re.sub(r"\bARGS\b", f.args, re.sub(r"\bREAL\b", real, f.call or "REAL(ARGS)"))
    static = "static " if variant == "darwin" or st.table else ""
    decide = (f"fi_decide_in(&fi_window_{f.name}, caller, &eligible, 0)" if st.per_function
              else f"fi_decide(caller, &eligible, {index})")
    tail = f"{call};" if f.void else f"return {call};"
    return f"""{static}{_typed(f.ret, name)}({f.params})
{{
    void *caller = __builtin_return_address(0);
    int eligible, err = {decide};

    (void)eligible;
    if (err) {{
        {f.fail}
    }}
    {tail}
}}
"""


def _values(st: Stanza) -> list:
    """A code family's value table: fi_NAME_value(name) -> the library's own value."""
    words = list(dict.fromkeys(v for f in st.functions for v in f.values))
    out = [f"int fi_{st.family}_value(const char *name);",
           f"int fi_{st.family}_value(const char *name)", "{",
           "    static const struct { const char *name; int value; } values[] = {"]
    out += [f'        {{ "{w}", (int)({c_value(w)}) }},' for w in words]
    out += ["    };", "",
            "    for (unsigned i = 0; name && i < sizeof(values) / sizeof(*values); i++)",
            "        if (!strcmp(values[i].name, name))", "            return values[i].value;",
            "    return 0;", "}", ""]
    return out


def generate(st: Stanza, variant: str, source: str = "", symbols: dict | None = None) -> str:
    """The C of one variant of the family (a translation unit of its own); `symbols`
    (link) maps a function with a `symbol:` line to the tree's symbol for it."""
    symbols = symbols or {}
    # a function whose symbol the tree does not reference is not wrapped (nor declared)
    absent = {f.name for f in st.functions if f.symbol and f.name not in symbols}
    if variant not in st.variants:
        raise StanzaError(f"{st.family}: no variant '{variant}' (it has: {', '.join(st.variants)})")
    out = [f"/* Generated from {source or st.family + '.fi'} ({variant}) by "
           "harness/compile/interposers.py: edit the stanza, not this file. */",
           "#define _GNU_SOURCE"]
    if variant == "link":  # compiled into a tree's module: that tree's config.h says
        out += ['#include "config.h"', f"#if {' && '.join(st.requires.split()) or 1}"]
    if variant == "darwin":
        out.append("#if defined(__APPLE__)")
    out += ["#include <dlfcn.h>", "#include <errno.h>", "#include <stdatomic.h>",
            "#include <string.h>"]
    out += [f"#include {h}" for h in st.includes]
    if st.tls:
        out.append(f'#define FI_TLS _Thread_local __attribute__((tls_model("{st.tls}")))')
    out += ['#include "fi_family.h"', ""]
    out += [f"typedef {_typed(f.ret, f'(*fi_{f.name}_fn)')}({f.params});" for f in st.functions]
    if variant in ("wrap", "link") and not st.table:
        for f in (f for f in st.functions if f.name not in absent):
            sym = symbols.get(f.name, f.name)
            out += [f"{_typed(f.ret, '__real_' + sym)}({f.params});",
                    f"{_typed(f.ret, '__wrap_' + sym)}({f.params});"]
    if st.per_function:
        out += [f"static FIWindow fi_window_{f.name};" for f in st.functions]
    if st.table:
        out += [f"static const {st.table[0]} *fi_table_real; /* the table the library handed out */",
                f"static void fi_table_install({st.table[0]} *table);"]
    out.append("")
    if st.hooks:
        out += [f'#include "{st.hooks}"', ""]
    for i, f in enumerate(st.functions):
        if f.name in absent:
            continue
        if variant == "preload" and re.search(r"\bREAL\b", f.call or "REAL"):
            out.append(_resolver(f))
        out.append(_wrapper(st, f, i, variant, symbols))
    if st.table:
        out += [f"static void fi_table_install({st.table[0]} *table)", "{"]
        out += [f"    table->{f.name} = fi_entry_{f.name};" for f in st.functions]
        out += ["}", ""]
    if variant == "darwin":
        out += ["__attribute__((used)) static const struct {",
                "    const void *replacement;", "    const void *replacee;",
                '} fi_interpose[] __attribute__((section("__DATA,__interpose"))) = {']
        out += [f"    {{ (const void *)fi_interposed_{f.name}, (const void *){f.name} }},"
                for f in st.functions]
        out += ["};", ""]
    if st.kind == "code":
        out += _values(st)
    if st.per_function:
        out += [f"FI_FAMILY_WINDOW_API(fi_{st.family}_{f.name}, fi_window_{f.name})"
                for f in st.functions]
    else:
        out.append(f"FI_FAMILY_API(fi_{st.family})")
    if variant == "darwin":
        out += ["#else", "typedef int fi_interpose_darwin_empty; /* ISO C wants a non-empty unit */",
                "#endif"]
    if variant == "link":
        out += ["#else", f"typedef int fi_{st.family}_absent; /* not configured: {st.requires} */",
                "#endif"]
    return "\n".join(out) + "\n"


def write(stanza_path: Path, variant: str, out_dir: Path, symbols: dict | None = None) -> Path:
    """Generate one variant of the family in `stanza_path` into out_dir/<variant>_<family>.c."""
    st = parse(stanza_path)
    out = Path(out_dir) / f"{variant}_{st.family}.c"
    out.write_text(generate(st, variant, f"injectors/{Path(stanza_path).name}", symbols))
    return out
