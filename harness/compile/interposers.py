"""Every fault family's C, generated from its stanza (harness/compile/stanza.py parses
it), as libfiu's preload generates its wrappers from declarations. Each generated
function asks the family's one core (fi_family.h: window, caller target, counters, site
stacks, each call's function) and fails or goes on; the core's control calls come with it.
"""
from __future__ import annotations

import re
from pathlib import Path

from harness.compile.stanza import SOURCE, StanzaError, Function, Stanza, parse


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
