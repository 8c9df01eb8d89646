"""The interposed families' C is generated from their stanzas (injectors/<family>.fi,
harness/compile/interposers.py): the stanzas parse to what they declare, each variant
calls the real function its own way, and a bad stanza is one line naming where."""

import re

import pytest

from harness.compile import injector_build as injectors, interposers, stanza as stanzas

pytestmark = pytest.mark.unit


def test_the_stanzas_declare_their_functions():
    got = {name: stanzas.parse(injectors.stanza(name)) for name in injectors.PRELOADS}
    assert {n: [f.name for f in s.functions] for n, s in got.items()} == {
        "pthread_create": ["pthread_create"],
        "malloc": ["malloc", "calloc", "realloc", "posix_memalign"]}
    assert got["pthread_create"].variants == ("preload", "wrap", "darwin")
    assert got["malloc"].variants == ("preload",) and got["malloc"].tls == "initial-exec"
    create = got["pthread_create"].functions[0]
    assert create.args == "thread, attr, start, arg"  # a function pointer's name too
    sized = stanzas.Function("int", "f", "int lines[4], enum E e, char *s[]", "return err;")
    assert sized.args == "lines, e, s"  # an array parameter's name, sized or not
    assert create.versions == ("GLIBC_2.34", "GLIBC_2.2.5")


def test_each_function_declares_its_fault_profile():
    """POSIX's errors for each: what the gate fails every site through a change with."""
    got = {name: {f.name: f.values for f in stanzas.parse(injectors.stanza(name)).functions}
           for name in ("pthread_create", "malloc")}
    assert got == {"pthread_create": {"pthread_create": ("EAGAIN", "EINVAL", "EPERM")},
                   "malloc": {"malloc": ("ENOMEM",), "calloc": ("ENOMEM",),
                              "realloc": ("ENOMEM",), "posix_memalign": ("ENOMEM", "EINVAL")}}
    wrap = stanzas.parse(injectors.stanza("wrap"))
    assert wrap.kind == "averror" and wrap.per_function and wrap.variants == ("link",)
    # an AVERROR code a helper returns is one of its profile; one that returns a pointer
    # fails with NULL, its value what the callers report for it
    assert all((f.values[-1] == stanzas.SOURCE) == (f.ret == "int") for f in wrap.functions)


@pytest.mark.parametrize("variant, name, real", [
    ("preload", "pthread_create", "fi_real_pthread_create()"),
    ("wrap", "__wrap_pthread_create", "__real_pthread_create"),
    ("darwin", "fi_interposed_pthread_create", "pthread_create"),
])
def test_each_variant_calls_the_real_function_its_way(variant, name, real):
    c = interposers.generate(stanzas.parse(injectors.stanza("pthread_create")), variant)
    assert re.search(rf"\bint {name}\(pthread_t \*thread", c)
    assert f"fi_pthread_create_through({real}, caller, thread, attr, start, arg)" in c
    assert ("dlvsym(RTLD_NEXT" in c) == (variant == "preload")
    assert "FI_FAMILY_API(fi_pthread_create)" in c


def test_a_resolver_only_where_the_real_function_is_called():
    """malloc's calls go through its hooks (the bootstrap arena): no dlsym() of its own."""
    c = interposers.generate(stanzas.parse(injectors.stanza("malloc")), "preload")
    assert "dlsym" not in c and [c.count(f"fi_decide(caller, &eligible, {i})")
                                 for i in range(4)] == [1, 1, 1, 1]  # each call's function
    plain = stanzas.Stanza("open_", ("preload",), functions=[
        stanzas.Function("int", "open", "const char *path, int flags", "return -1;",
                             values=("EIO",))])
    c = interposers.generate(plain, "preload")
    assert 'dlsym(RTLD_NEXT, "open")' in c and "return fi_real_open()(path, flags);" in c


@pytest.mark.parametrize("text, why", [
    ("variants preload\nint f(int a)\n    fail: return err;\n", "no 'family NAME' line"),
    ("family x\nvariants wasm\nint f(int a)\n    fail: return err;\n", "'variants' names"),
    ("family x\nvariants preload\n", "declares no function"),
    ("family x\nvariants preload\nint f(int a)\n", "f has no 'fail:' line"),
    ("family x\nvariants preload\nint f(int a)\n    fail: return err;\n",
     "f has no 'values:' line (its fault profile)"),
    ("family x\nvariants preload\nvoid f(int a)\n    fail: return;\n    values: EIO\n",
     "f returns void: only a link family's function may"),
    ("family x\nvariants preload\nint f(int a)\n    fail: return err;\n    values: source\n",
     "'source' values are AVERROR codes"),
    ("family x\nvariants preload\nvalues bytes\nint f(int a)\n    fail: return err;\n"
     "    values: EIO\n", "values 'bytes' (known: errno, averror, code)"),
    ("family x\nvariants preload\nwindow each\n", "x.fi:3: expected 'window shared' or"),
    ("family x\nvariants preload\ntable T\n", "x.fi:3: expected 'table TYPE via SYMBOL'"),
    ("family x\nvariants preload\ntable T via s\nint f(int a)\n    fail: return err;\n"
     "    values: EIO\n", "a table's family has the link variant only"),
    ("family x\nvariants preload\nint f(int a)\n    onerror: -1\n", "x.fi:4: expected 'fail: C'"),
    ("family x\nvariants preload\nint f(int a)\n    symbol: f(\n    fail: return err;\n"
     "    values: EIO\n", "f: 'symbol:' is for a link family"),
    ("family x\nvariants preload\n    fail: return err;\n", "x.fi:3: expected 'fail: C'"),
    ("family x\nvariants preload\ntls global-dynamic\nint f(int a)\n    fail: return err;\n"
     "    values: EIO\n", "tls 'global-dynamic'"),
    ("family x\nvariants preload\nsites all\n", "x.fi:3: expected 'sites dnn'"),
    ("family x\nvariants preload\nint f(int a, int *)\n    fail: return err;\n"
     "    values: EIO\n", "f: every parameter needs a name"),
])
def test_a_bad_stanza_is_one_line(tmp_path, text, why):
    path = tmp_path / "x.fi"
    path.write_text(text)
    with pytest.raises(stanzas.StanzaError) as info:
        stanzas.parse(path)
    assert why in str(info.value) and "\n" not in str(info.value)


CLOSE = """# close() fails on demand: a family with no hooks, its calls through REAL(ARGS)
family close
variants preload
include <unistd.h>

int close(int fd)
    fail: errno = err; return -1;
    values: EIO
"""
CALLER = r"""
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    int (*arm)(int, unsigned, unsigned) =
        (int (*)(int, unsigned, unsigned))dlsym(RTLD_DEFAULT, "fi_close_arm");
    unsigned long (*failures)(void) = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "fi_close_failures");

    if (!arm || !failures || arm(EIO, 1, 1))
        return 1;
    for (int i = 0; i < 3; i++) {
        int ret;

        errno = 0;
        ret = close(1000 + i);
        printf("%d %d\n", ret, errno);
    }
    printf("failures %lu\n", failures());
    return 0;
}
"""


@pytest.mark.injectors
def test_a_new_family_is_its_stanza(tmp_path):
    """A stanza alone makes a working interposer: the second close() of the window fails
    with EIO, the others reach the C library (EBADF)."""
    import errno
    import subprocess
    stanza = tmp_path / "close.fi"
    stanza.write_text(CLOSE)
    lib, exe, prog = tmp_path / "libfi_close.so", tmp_path / "caller", tmp_path / "caller.c"
    prog.write_text(CALLER)
    cc = [injectors.CC, *injectors.CFLAGS, "-Werror", f"-I{injectors.INCLUDE_DIR}"]
    subprocess.run([*cc, "-shared", "-o", lib, interposers.write(stanza, "preload", tmp_path),
                    *injectors.LDLIBS], check=True)
    subprocess.run([*cc, "-o", exe, prog, "-ldl"], check=True)
    r = subprocess.run([exe], env={"LD_PRELOAD": str(lib)}, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"-1 {errno.EBADF}", f"-1 {errno.EIO}", f"-1 {errno.EBADF}",
                                     "failures 1"]


@pytest.mark.parametrize("edit, says", [
    (("values: EAGAIN EINVAL EPERM", "values: EAGAIN EFOO"),
     "pthread_create.fi: pthread_create's profile names an errno this platform does not "
     "know: EFOO"),
    (("    fail: return err;\n    call:", "    call:"), "pthread_create has no 'fail:' line"),
])
def test_a_bad_family_is_bad_input(tmp_path, edit, says):
    """The registry reads every stanza: one that does not parse, or whose profile names an
    errno the platform does not know, is one line of bad input, not a traceback."""
    from harness.compile import families
    from harness.errors import HarnessError
    for stanza in injectors.SRC_DIR.glob("*.fi"):
        (tmp_path / stanza.name).write_text(stanza.read_text())
    bad = tmp_path / "pthread_create.fi"
    assert edit[0] in bad.read_text()
    bad.write_text(bad.read_text().replace(*edit))
    with pytest.raises(HarnessError) as info:
        families._registry(str(tmp_path))
    assert says in str(info.value) and "\n" not in str(info.value)
