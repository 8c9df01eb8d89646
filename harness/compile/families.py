"""The fault families, read from their stanzas (injectors/<name>.fi, parsed by
stanza.py): what each can fail, with which values (each function's fault profile),
where its C goes (an LD_PRELOAD interposer, or into each tree's module: `link`), and how a
worker arms, disarms and counts it through the build's module. Adding a family is its
stanza; nothing here names one.

Every family has the same control calls, `fi_<c name>_*` (fi_family.h), found by name at
run time in the preloaded interposers or in the module itself (_cffi_src/inject.c); a
family whose stanza says `window per-function` is one window per function, whose spec
site is `<family>:<function>` and whose C name is `<family>_<function>`.
"""

import errno
import functools
from dataclasses import dataclass
from pathlib import Path

from harness import errnos
from harness.compile import stanza as stanzas
from harness.errors import HarnessError, ScenarioError
from harness.paths import data_dir

FIELDS = ("calls", "eligible", "failures")
STANZAS = data_dir("injectors")


@dataclass(frozen=True)
class Family:
    name: str                      # the stanza's family: the spec's site (or its prefix)
    stanza: stanzas.Stanza

    @property
    def kind(self) -> str:
        """errno (a positive errno), averror (an AVERROR code) or code (the library's own
        name for a value, resolved in the module)."""
        return self.stanza.kind

    @property
    def errno_value(self) -> bool:
        return self.kind == "errno"

    @property
    def link_time(self) -> bool:
        """Compiled into each tree's module (-Wl,--wrap), not preloaded."""
        return "link" in self.stanza.variants

    @property
    def per_function(self) -> bool:
        return self.stanza.per_function

    @property
    def dnn_sites_only(self) -> bool:
        """Only calls with the DNN code on their stack are sites (`sites dnn`)."""
        return self.stanza.sites == "dnn"

    @property
    def selectors(self) -> tuple:
        return self.stanza.selectors

    @property
    def backend(self) -> str:
        """The backend whose API the family fails ("" for the C library's and FFmpeg's)."""
        return self.stanza.backend

    @property
    def functions(self) -> tuple:
        return tuple(f.name for f in self.stanza.functions)

    def sites(self) -> tuple:
        """The spec sites the family answers to: its name, or name:function for each."""
        if self.per_function:
            return tuple(f"{self.name}:{f}" for f in self.functions)
        return (self.name,)

    def declared(self, function: str | None = None) -> tuple:
        """The values the stanza declares (for one function, or every function's, in
        order), `source` left out."""
        fns = [self.stanza.function(function)] if function else self.stanza.functions
        return tuple(dict.fromkeys(v for f in fns if f for v in f.values
                                   if v != stanzas.SOURCE))

    def reads_source(self, function: str) -> bool:
        f = self.stanza.function(function)
        return bool(f) and stanzas.SOURCE in f.values

    def c_name(self, fault) -> str:
        """The C name of the window the fault arms: the family's, or family_function."""
        return f"{self.name}_{fault.symbol}" if self.per_function else self.name

    def counters(self, ffi, lib, f) -> dict:
        """calls, eligible, failures since load; {} without the injector."""
        c = [ffi.new("unsigned long *") for _ in FIELDS]
        ret = lib.ffdnn_inject_counters(self.c_name(f).encode(), *c)
        return {} if ret < 0 else dict(zip(FIELDS, (x[0] for x in c)))

    def site(self, lib, f, n: int, frames, depth: int) -> int:
        """Copy the stack of eligible call n since the arm into frames[depth]: how many
        return addresses (0 when none was kept)."""
        return max(0, lib.ffdnn_inject_site(self.c_name(f).encode(), n, frames, depth))

    def site_function(self, lib, f, n: int) -> str:
        """Which of the family's functions eligible call n was a call of ("" if unknown)."""
        if self.per_function:
            return f.symbol
        i = lib.ffdnn_inject_site_function(self.c_name(f).encode(), n)
        return self.functions[i] if 0 <= i < len(self.functions) else ""

    def arm(self, lib, f) -> None:
        """Fail the fault's calls, by default only those from the module's own code (the
        static libavfilter linked into it), never a backend's own threads."""
        name = self.c_name(f).encode()
        if f.delay:
            ret = lib.ffdnn_inject_arm_delay(name, f.delay, f.skip, f.count, f.caller.encode())
        else:
            ret = lib.ffdnn_inject_arm(name, self.armed_value(lib, f), f.skip, f.count,
                                       f.caller.encode())
        if ret < 0:
            raise ScenarioError(f"arm the {self.name} injector: {_why(ret, f, self)}")

    def armed_value(self, lib, f) -> int:
        """The value the window fails with: the fault's, a code family's name resolved by
        the module (the tree's own headers say what it is)."""
        if self.kind != "code":
            return f.errno
        value = lib.ffdnn_inject_value(self.name.encode(), f.value.encode())
        if value == 0:
            raise ScenarioError(f"arm the {self.name} injector: the module knows no value "
                                f"{f.value}")
        return value

    def disarm(self, lib, f) -> None:
        lib.ffdnn_inject_disarm(self.c_name(f).encode())


@functools.lru_cache(maxsize=None)
def _registry(directory: str) -> dict:
    """Every stanza of `directory`; one that does not parse, or whose errno family names
    an errno this platform does not know, is bad input (one line naming it)."""
    out = {}
    for path in sorted(Path(directory).glob("*.fi")):
        try:
            st = stanzas.parse(path)
        except (OSError, stanzas.StanzaError) as e:
            raise HarnessError(f"injector stanza: {e}") from None
        for f in st.functions if st.kind == "errno" else ():
            for v in f.values:
                try:
                    errnos.parse(v)
                except ScenarioError:
                    raise HarnessError(f"injector stanza {path.name}: {f.name}'s profile names "
                                       f"an errno this platform does not know: {v}") from None
        out[st.family] = Family(st.family, st)
    return out


FAMILIES = _registry(str(STANZAS))
PRELOADED = tuple(n for n, f in FAMILIES.items() if "preload" in f.stanza.variants)
LINKED = tuple(n for n, f in FAMILIES.items() if f.link_time)
INTERPOSED = PRELOADED  # the families an LD_PRELOAD interposer carries


def of_site(site: str) -> Family | None:
    """The family of a spec site (pthread_create, wrap:ff_x, ...), None if none."""
    return FAMILIES.get(site.split(":")[0])


def counted(fault) -> Family:
    """The family a fault is armed and counted in; none and the stand-in flush are
    counted in the family whose calls the stand-in makes (the one with a `start=`
    selector: the thread it starts)."""
    return FAMILIES.get(fault.kind) or next(f for f in FAMILIES.values()
                                            if "start" in f.selectors)


def arms(fault) -> bool:
    """Does the fault arm an injector (not none, not the stand-in flush)?"""
    return fault.kind in FAMILIES


def _why(ret: int, f, family) -> str:
    return {-errno.ENOSYS: "the injector is not loaded (AVERROR(ENOSYS))",
            -errno.ENOENT: f"no loaded object's file name contains caller={f.caller} "
                           "(AVERROR(ENOENT))",
            -errno.EINVAL: "the injector refused the window (AVERROR(EINVAL))"}.get(ret, str(ret))


def sweep_fault(family: str) -> str:
    """A sweep's --fault: a family (or a per-function family's site) gets the first value
    of its profile, once per call; a spec is kept."""
    if "=" in family:
        return family
    name, _, function = family.partition(":")
    fam = FAMILIES.get(name)
    if fam is None:
        known = [n + (":<function>" if f.per_function else "") for n, f in FAMILIES.items()]
        raise HarnessError(f"bad sweep family '{family}' (known: {', '.join(known)})")
    if function and not fam.per_function:
        raise HarnessError(f"bad sweep family '{family}': {name} has one window for all its "
                           f"functions: --fault {name}")
    if fam.per_function and not function:
        raise HarnessError(f"a {name} sweep names its function: --fault {name}:<function> "
                           f"(known: {', '.join(fam.functions)})")
    if fam.per_function and function not in fam.functions:
        raise HarnessError(f"bad sweep family '{family}': {function} is not in the {name} "
                           f"family (known: {', '.join(fam.functions)})")
    value = fam.declared(function or None)
    if not value:
        raise HarnessError(f"the {family} family declares no value to fail with")
    return f"{family}=1*return({value[0]})"


def failing(fault, text: str):
    """The fault with its value replaced by `text` (as the spec writes it)."""
    from dataclasses import replace
    family = FAMILIES[fault.kind]
    if family.kind == "code":
        return replace(fault, errno=0, value=text)
    return replace(fault, errno=value_of(family, text), value="")


def value_of(family: Family, text: str) -> int | None:
    """A value as the spec writes it, for an errno or averror family (None for a code
    family: the module resolves it)."""
    if family.kind == "errno":
        return errnos.parse(text)
    if family.kind == "averror":
        return errnos.parse_averror(text)
    return None
