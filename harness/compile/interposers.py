"""The interposed families' C, generated from their stanzas, as libfiu's preload
generates its wrappers from declarations.

A stanza (injectors/<family>.fi) declares a family and each function it interposes:

    family NAME              libfi_NAME.so; control calls fi_NAME_* (fi_family.h)
    variants V...            preload (LD_PRELOAD), wrap (-Wl,--wrap=<function> object),
                             darwin (DYLD_INSERT_LIBRARIES; compiles to nothing elsewhere)
    include H...             headers the declarations need (<h> or "h")
    hooks FILE               the family's own C in injectors/ (what `call:` names), optional
    tls initial-exec         the busy guard's TLS model, optional

    RET NAME(PARAMS)         a function the family interposes, then indented:
        fail: C              what a failed call does with `err` (required)
        call: C              how a call the window lets through goes on (default
                             REAL(ARGS)); REAL is the real function, `caller` (the
                             return address) and `eligible` are in scope
        version: V...        glibc symbol versions to ask dlvsym() for first, in order

Lines starting with '#' are comments. Each generated function asks the family's one
core (fi_family.h: window, caller target, counters, site stacks) and fails or goes on;
the core's control calls come with it. Adding a family is its stanza (and, if its calls
need more than REAL(ARGS), its hooks) plus one entry in families.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

VARIANTS = ("preload", "wrap", "darwin")


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

    @property
    def args(self) -> str:
        return ", ".join(_param_name(p) for p in _split(self.params))


@dataclass
class Stanza:
    family: str = ""
    variants: tuple = ()
    includes: tuple = ()
    hooks: str = ""
    tls: str = ""
    functions: list = field(default_factory=list)


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
            if fn is None or key not in ("fail", "call", "version") or not value.strip():
                raise bad("expected 'fail: C', 'call: C' or 'version: V...' under a function")
            if key == "version":
                fn.versions = tuple(value.split())
            else:
                setattr(fn, key, value.strip())
            continue
        word, _, rest = line.partition(" ")
        if word in ("family", "hooks", "tls") and rest.strip():
            setattr(st, word, rest.strip())
        elif word in ("variants", "include") and rest.strip():
            setattr(st, {"variants": "variants", "include": "includes"}[word], tuple(rest.split()))
        else:
            m = DECL.match(line)
            if not m or m["ret"].strip() == "void":
                raise bad("expected a directive or a declaration 'RET NAME(PARAMS)' "
                          "(not void)")
            fn = Function(m["ret"].strip(), m["name"], m["params"].strip())
            st.functions.append(fn)
    where = Path(path).name
    if not re.fullmatch(r"\w+", st.family or ""):
        raise StanzaError(f"{where}: no 'family NAME' line")
    if not st.variants or set(st.variants) - set(VARIANTS):
        raise StanzaError(f"{where}: 'variants' names none or an unknown one (known: "
                          f"{', '.join(VARIANTS)})")
    if st.tls not in ("", "initial-exec"):
        raise StanzaError(f"{where}: tls '{st.tls}' (known: initial-exec)")
    if not st.functions:
        raise StanzaError(f"{where}: declares no function")
    for f in st.functions:
        if not f.fail:
            raise StanzaError(f"{where}: {f.name} has no 'fail:' line")
    return st


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


def _wrapper(f: Function, variant: str) -> str:
    real = {"preload": f"fi_real_{f.name}()", "wrap": f"__real_{f.name}",
            "darwin": f.name}[variant]
    name = {"preload": f.name, "wrap": f"__wrap_{f.name}",
            "darwin": f"fi_interposed_{f.name}"}[variant]
    call = re.sub(r"\bARGS\b", f.args, re.sub(r"\bREAL\b", real, f.call or "REAL(ARGS)"))
    static = "static " if variant == "darwin" else ""
    return f"""{static}{_typed(f.ret, name)}({f.params})
{{
    void *caller = __builtin_return_address(0);
    int eligible, err = fi_decide(caller, &eligible);

    (void)eligible;
    if (err) {{
        {f.fail}
    }}
    return {call};
}}
"""


def generate(st: Stanza, variant: str, source: str = "") -> str:
    """The C of one variant of the family (a translation unit of its own)."""
    if variant not in st.variants:
        raise StanzaError(f"{st.family}: no variant '{variant}' (it has: {', '.join(st.variants)})")
    out = [f"/* Generated from {source or st.family + '.fi'} ({variant}) by "
           "harness/compile/interposers.py: edit the stanza, not this file. */",
           "#define _GNU_SOURCE"]
    if variant == "darwin":
        out.append("#if defined(__APPLE__)")
    out += ["#include <dlfcn.h>", "#include <errno.h>", "#include <stdatomic.h>"]
    out += [f"#include {h}" for h in st.includes]
    if st.tls:
        out.append(f'#define FI_TLS _Thread_local __attribute__((tls_model("{st.tls}")))')
    out += ['#include "fi_family.h"', ""]
    out += [f"typedef {_typed(f.ret, f'(*fi_{f.name}_fn)')}({f.params});" for f in st.functions]
    if variant == "wrap":
        out += [f"{_typed(f.ret, '__real_' + f.name)}({f.params});" for f in st.functions]
        out += [f"{_typed(f.ret, '__wrap_' + f.name)}({f.params});" for f in st.functions]
    out.append("")
    if st.hooks:
        out += [f'#include "{st.hooks}"', ""]
    for f in st.functions:
        if variant == "preload" and re.search(r"\bREAL\b", f.call or "REAL"):
            out.append(_resolver(f))
        out.append(_wrapper(f, variant))
    if variant == "darwin":
        out += ["__attribute__((used)) static const struct {",
                "    const void *replacement;", "    const void *replacee;",
                '} fi_interpose[] __attribute__((section("__DATA,__interpose"))) = {']
        out += [f"    {{ (const void *)fi_interposed_{f.name}, (const void *){f.name} }},"
                for f in st.functions]
        out += ["};", ""]
    out.append(f"FI_FAMILY_API(fi_{st.family})")
    if variant == "darwin":
        out += ["#else", "typedef int fi_interpose_darwin_empty; /* ISO C wants a non-empty unit */",
                "#endif"]
    return "\n".join(out) + "\n"


def write(stanza_path: Path, variant: str, out_dir: Path) -> Path:
    """Generate one variant of the family in `stanza_path` into out_dir/<variant>_<family>.c."""
    st = parse(stanza_path)
    out = Path(out_dir) / f"{variant}_{st.family}.c"
    out.write_text(generate(st, variant, f"injectors/{Path(stanza_path).name}"))
    return out
