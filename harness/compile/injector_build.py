"""Build the fault injectors in ../injectors/ with the system C compiler.

build(cache_dir) generates each preloaded family's C from its stanza
(injectors/<family>.fi, harness/compile/interposers.py) and compiles its LD_PRELOAD
interposer (libfi_<family>.so) and, for the family with a `wrap` variant
(pthread_create), its link-time wrap object (wrap_pthread_create.o, for links with
-Wl,--wrap=pthread_create) into <cache_dir>/injectors-<hash16>/, where the hash covers
the stanzas, the C they include, the generator, the compiler and the flags; the
generated C is kept beside them (gen/). The directory is built under a temporary name
next to it and renamed into place, so it either exists complete or not at all.

For the cffi extension's wrap variant, compile wrap_sources(dir) (generated there) with
WRAP_CFLAGS and -I INCLUDE_DIR, and link with WRAP_LDFLAGS. Every variant of the
extension also compiles link_sources(tree, dir), the link families (FFmpeg's own
helpers, each backend's API) generated for that tree (the families its config.h has,
each C++ symbol read from its objects), and links with link_ldflags(tree, dir): one
-Wl,--wrap per symbol they wrap.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from harness.compile import interposers, stanza as stanzas
from harness.compile.families import FAMILIES, LINKED, PRELOADED
from harness.errors import CacheError, ExitStatus, first_error
from harness.paths import atomic_dir, atomic_file, data_dir, file_sha256

SRC_DIR = data_dir("injectors")
INCLUDE_DIR = str(SRC_DIR)
CC = os.environ.get("CC", "cc")
# -funwind-tables: a C++ exception thrown below an interposer (the malloc family's
# operator new) unwinds through its frame
CFLAGS = ("-std=c11", "-Wall", "-Wextra", "-O2", "-fPIC", "-pthread", "-funwind-tables")
LDLIBS = ("-ldl",)
PRELOADS = PRELOADED
# the family with a link-time variant of its interposer (its stanza's `wrap`)
WRAP_FAMILY = next(n for n, f in FAMILIES.items() if "wrap" in f.stanza.variants)


def stanza(family: str, src_dir: Path = SRC_DIR) -> Path:
    """The stanza an interposed family's C is generated from."""
    return Path(src_dir) / f"{family}.fi"


def wrap_sources(out_dir: Path, src_dir: Path = SRC_DIR) -> tuple[str, ...]:
    """The wrap variant's C, generated into out_dir: what a link with WRAP_LDFLAGS compiles
    (a stanza that does not parse is an InjectorBuildError)."""
    return (str(generated(WRAP_FAMILY, "wrap", out_dir, src_dir)),)


WRAP_CFLAGS = ("-pthread",)  # the sources set _GNU_SOURCE; need C11 (gcc's default gnu17 is fine)
WRAP_LDFLAGS = ("-Wl,--wrap=pthread_create", "-pthread", "-ldl")



def _config_h(src: Path) -> dict:
    """The tree's config.h: macro -> value."""
    out = {}
    for line in (Path(src) / "config.h").read_text(errors="replace").splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0] == "#define":
            out[parts[1]] = parts[2].strip()
    return out


def linked_here(src: Path) -> list:
    """The link families the tree has: those whose `requires` its config.h sets."""
    config = _config_h(src)
    return [FAMILIES[n] for n in LINKED
            if all(config.get(m, "0") not in ("0", "") for m in FAMILIES[n].stanza.requires.split())]


def _tree_symbols(src: Path) -> dict:
    """Every symbol the tree's libavfilter references but does not define, by its
    demangled name: what a link family's `symbol:` line names (a C++ function's)."""
    lib = Path(src) / "libavfilter" / "libavfilter.a"
    if not lib.is_file():
        return {}
    r = subprocess.run(["nm", "-u", "--format=posix", str(lib)], capture_output=True, text=True)
    mangled = sorted({line.split()[0] for line in r.stdout.splitlines()
                      if line.strip() and not line.endswith(":") and line.split()[0].startswith("_Z")})
    if not mangled:
        return {}
    d = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True, text=True)
    return dict(zip(d.stdout.splitlines(), mangled))


def symbols(family, src: Path) -> dict:
    """function -> the tree's symbol for each function of the family with a `symbol:`
    line (the one whose demangled name begins with it); a function the tree does not
    reference is left out (and not wrapped)."""
    wanted = [f for f in family.stanza.functions if f.symbol]
    if not wanted:
        return {}
    found = _tree_symbols(src)
    out = {}
    for f in wanted:
        hits = sorted(m for d, m in found.items() if d.startswith(f.symbol))
        if len(hits) == 1:
            out[f.name] = hits[0]
    return out


def link_sources(src: Path, out_dir: Path, src_dir: Path = SRC_DIR) -> tuple[str, ...]:
    """The link families' C for the tree in `src`, generated into out_dir."""
    out = []
    for fam in linked_here(src):
        try:
            out.append(str(interposers.write(stanza(fam.name, src_dir), "link", out_dir,
                                             symbols(fam, src))))
        except (OSError, stanzas.StanzaError) as e:
            raise InjectorBuildError(f"injector stanza: {e}") from None
    return tuple(out)


def link_ldflags(src: Path) -> tuple[str, ...]:
    """-Wl,--wrap for every function (and table source) of the link families the tree
    has; a function with a `symbol:` line the tree does not reference is not wrapped."""
    out = []
    for fam in linked_here(src):
        resolved = symbols(fam, src)
        names = [resolved.get(f.name) if f.symbol else f.name for f in fam.stanza.functions]
        if fam.stanza.table:
            names = [fam.stanza.table[1]]
        out += [f"-Wl,--wrap={n}" for n in names if n]
    return tuple(out)


def preload_name(family: str) -> str:
    return f"libfi_{family}.so"


PRELOAD_SO = preload_name("pthread_create")
WRAP_OBJECT = "wrap_pthread_create.o"
MALLOC_SO = preload_name("malloc")


class InjectorBuildError(RuntimeError):
    """The C compiler failed; the message is its first error line."""


@dataclass(frozen=True)
class Injectors:
    dir: Path
    wrap_object: Path

    def preload(self, family: str) -> Path:
        """The LD_PRELOAD interposer of an interposed family."""
        return self.dir / preload_name(family)

    @property
    def preloads(self) -> str:
        """LD_PRELOAD for every interposed family (each idle until armed)."""
        return " ".join(str(self.preload(n)) for n in PRELOADS)

    @property
    def preload_so(self) -> Path:
        return self.preload("pthread_create")

    @property
    def malloc_so(self) -> Path:
        return self.preload("malloc")


def _compile(args: list[str]) -> None:
    try:
        proc = subprocess.run(args, capture_output=True, text=True)
    except OSError as exc:
        raise InjectorBuildError(f"cannot run C compiler {args[0]!r}: {exc.strerror}") from None
    if proc.returncode != 0:
        why = first_error(proc.stderr, "the compiler failed without a message")
        raise InjectorBuildError(f"injector build failed: {why}")


def sources(src_dir: Path = SRC_DIR) -> list:
    """What the injectors are made of: the stanzas, their C, the parser and the generator."""
    return sorted([*Path(src_dir).glob("*.[ch]"), *Path(src_dir).glob("*.fi")]) + \
        [Path(stanzas.__file__), Path(interposers.__file__)]


def _digest(src_dir: Path, cc: str) -> str:
    """The compiler, the flags and every stanza, C source and header of the injectors
    and their generator (a file a family adds is in it with no list to keep)."""
    h = hashlib.sha256()
    for part in (cc, *CFLAGS, *LDLIBS):
        h.update(part.encode() + b"\0")
    for f in sources(src_dir):
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def generated(family: str, variant: str, out_dir: Path, src_dir: Path = SRC_DIR) -> Path:
    """One variant of a family's C, generated into out_dir (a stanza that does not parse
    is an InjectorBuildError)."""
    try:
        return interposers.write(stanza(family, src_dir), variant, out_dir)
    except (OSError, stanzas.StanzaError) as e:
        raise InjectorBuildError(f"injector stanza: {e}") from None


def _build_into(out: Path, src_dir: Path, cc: str) -> None:
    base, gen = [cc, *CFLAGS, f"-I{src_dir}"], out / "gen"
    gen.mkdir()
    for family in PRELOADS:
        _compile([*base, "-shared", "-o", str(out / preload_name(family)),
                  str(generated(family, "preload", gen, src_dir)), *LDLIBS])
    _compile([*base, "-c", "-o", str(out / WRAP_OBJECT), *wrap_sources(gen, src_dir)])


def build(cache_dir: str | os.PathLike, src_dir: str | os.PathLike = SRC_DIR,
          cc: str | None = None) -> Injectors:
    """Return the injectors for these sources, compiling them on a cache miss."""
    cc = cc or CC
    src_dir, cache_dir = Path(src_dir), Path(cache_dir)
    final = cache_dir / f"injectors-{_digest(src_dir, cc)}"
    result = Injectors(final, final / WRAP_OBJECT)
    if final.is_dir():
        check(final)
        return result
    with atomic_dir(final) as tmp:  # a concurrent build that wins the race is kept
        _build_into(tmp, src_dir, cc)
        _try_load(tmp, final)  # each interposer dlopen()ed once before it is committed
        _write_manifest(tmp)
        tmp.chmod(0o755)
    return result


MANIFEST = "injectors.json"  # file -> sha256, written when the entry is committed
LOAD = "import ctypes, os, sys\nfor p in sys.argv[1:]:\n    ctypes.CDLL(p, mode=os.RTLD_NOW)\n"


def _files(directory: Path) -> list:
    return [directory / preload_name(f) for f in PRELOADS] + [directory / WRAP_OBJECT]


def _try_load(directory: Path, entry: Path) -> None:
    """dlopen() every interposer in a process of its own (ld.so only warns about a
    preload it cannot load, and the run goes on without its faults) and check the wrap
    object is a relocatable ELF object."""
    obj = directory / WRAP_OBJECT
    with open(obj, "rb") as f:
        head = f.read(18)
    if head[:4] != b"\x7fELF" or int.from_bytes(head[16:18], "little") != 1:  # ET_REL
        raise CacheError(entry, f"{WRAP_OBJECT} is not a relocatable object (emptied?)",
                         "python -m harness run")
    sos = [str(p) for p in _files(directory) if p.suffix == ".so"]
    r = subprocess.run([sys.executable, "-c", LOAD, *sos], capture_output=True, text=True)
    if r.returncode != 0:
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        raise CacheError(entry, f"an injector does not load ({lines[-1] if lines else ''})",
                         "python -m harness run")


def _write_manifest(directory: Path) -> None:
    text = json.dumps({p.name: file_sha256(p) for p in _files(directory)}, indent=1)
    (directory / MANIFEST).write_text(text + "\n")


def check(entry: Path, record: bool = True) -> None:
    """A cached entry: each file is the one committed (its sha256 in the manifest); an
    entry from before manifests is loaded once, then (`record`) gets one (atomic_file)."""
    try:
        recorded = json.loads((entry / MANIFEST).read_text())
    except FileNotFoundError:
        _try_load(entry, entry)
        if not record:
            return
        with atomic_file(entry / MANIFEST) as tmp:
            tmp.write_text(json.dumps({p.name: file_sha256(p) for p in _files(entry)},
                                      indent=1) + "\n")
        return
    except (OSError, ValueError) as e:
        raise CacheError(entry, f"{MANIFEST} does not parse ({e})", "python -m harness run")
    for p in _files(entry):
        if not p.is_file() or file_sha256(p) != recorded.get(p.name):
            raise CacheError(entry, f"{p.name} is not the injector that was built "
                             "(emptied or changed)", "python -m harness run")


def main(argv: list) -> int:
    """`python -m harness.compile.injector_build DIR`: the injectors built (or found) in
    DIR, the one way they are built; their tests are `python -m pytest -m injectors`."""
    if len(argv) != 1:
        print("usage: python -m harness.compile.injector_build DIR", file=sys.stderr)
        return ExitStatus.BAD_INPUT
    try:
        built = build(argv[0])
    except (InjectorBuildError, CacheError) as e:
        print(f"error: {e}", file=sys.stderr)
        return ExitStatus.BAD_INPUT
    print(built.dir)
    return ExitStatus.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
