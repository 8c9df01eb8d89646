"""The per-build cffi module (API mode) compiled: its declarations (declarations.py)
compiled against one tree's own headers and linked to its static libraries, imported once
in a process of its own, then committed to the cache, stamped; a cached one checked; the
compile in a process of its own (start, finish: this module run with `python -m`)."""

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from harness import reaper
from harness.compile import injector_build as injectors
from harness.compile.declarations import MODULE_NAME, _parts, cdef_hash
from harness.errors import (SIGNALLED, BuildError, CacheError, ExitStatus, HarnessError,
                            StampError, first_error)
from harness.obtain import probe
from harness.paths import atomic_dir, cache_root, file_sha256
from harness.obtain.tree import Tree, check_stamp, read_stamp, rebuild

VARIANTS = ("preload", "wrap")
# FFmpeg's own functions the module watches (_cffi_src/poll.c), wrapped in every variant
WRAPPED = ("ff_dnn_get_result", "av_usleep")
LIBS = ("avfilter", "avformat", "avcodec", "swscale", "swresample", "avutil")


def _config_mak(src: Path) -> dict:
    out = {}
    for line in (src / "ffbuild/config.mak").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _shared_flags(mak: dict) -> list:
    """The flags FFmpeg links its own shared libraries with (config.mak's SHFLAGS), less
    those that name its own files (soname, version script): the module is a shared
    object made of the tree's static libraries, and FFmpeg 7.1's x86 inline assembly
    (libswscale) links into one only with the -Wl,-Bsymbolic its configure found."""
    return [a for a in shlex.split(mak.get("SHFLAGS", "")) if a != "-shared" and "$" not in a]


def _has_flags(src: Path) -> list:
    """FFDNN_HAS_* for the compiler: what the probe found in the tree's own headers (and
    FFDNN_FLUSH_<type>, each backend's flush, where its DNNModule has no .type). A
    tree that does not declare every call the module binds to set up a graph cannot have
    a module: that is said in one line, not in the compiler's words."""
    facts = probe.facts(src)
    if not facts.flags["FFDNN_HAS_GRAPH_SETUP"]:
        raise BuildError(f"FFmpeg {facts.version} has no "
                         f"{facts.missing('FFDNN_HAS_GRAPH_SETUP')} (harness/compile/_cffi_src/)")
    return [(flag, str(value)) for flag, value in sorted(facts.flags.items())] + \
        [(f"FFDNN_FLUSH_{t}", flush) for t, flush in sorted(facts.module_flushes.items())]


def _compile(ffi, tmp: Path, name: str) -> None:
    """ffi.compile() with the compiler's stderr kept, so a failure names its first error."""
    log = tmp / "compile.log"
    saved = os.dup(2)
    try:
        with open(log, "w") as f:
            os.dup2(f.fileno(), 2)
            try:
                ffi.compile(tmpdir=str(tmp), verbose=False)
            finally:
                os.dup2(saved, 2)
    except Exception as e:
        raise BuildError(f"[{name}] cffi module failed to compile: "
                         f"{first_error(log.read_text(errors='replace'), str(e))}") from None
    finally:
        os.close(saved)


def _objects(tree) -> tuple[str, str]:
    """Whose objects the tree's libraries are, (its entry's name, its key): its own, or
    those of the tree it is a twin of (harness/obtain/twins.py find_twin), whose module
    it shares."""
    twin = tree.stamp.get("twin")
    if twin:
        return twin["entry"], twin["key"]
    return f"{tree.name}-{tree.key[:16]}", tree.key


def ext_path(tree, variant: str) -> Path:
    return cache_root() / "ext" / f"{_objects(tree)[0]}-{variant}-{cdef_hash()}"


def expected_stamp(tree, variant: str) -> str:
    return f"{_objects(tree)[1]}:{variant}:{cdef_hash()}"


def build(tree, variant: str = "preload") -> Path:
    """Compile (once) the module for `tree`; return the directory holding it."""
    import cffi

    if variant not in VARIANTS:
        raise BuildError(f"unknown module variant '{variant}' (known: {', '.join(VARIANTS)})")
    final = ext_path(tree, variant)
    if (final / "stamp.json").is_file():
        check_module(final)
        return final
    check_stamp(tree)  # a damaged tree is a cache error, not a module that links anyway
    src, mak = tree.src, _config_mak(tree.src)
    cdef, source = _parts()
    stamp = expected_stamp(tree, variant)
    source += f'\nconst char *ffdnn_build_stamp(void)\n{{\n    return "{stamp}";\n}}\n'
    libs = [str(src / f"lib{n}/lib{n}.a") for n in LIBS if (src / f"lib{n}/lib{n}.a").is_file()]
    link = shlex.split(mak.get("LDFLAGS", "")) + _shared_flags(mak)
    for var in [f"EXTRALIBS-{n}" for n in LIBS] + ["EXTRALIBS"]:
        link += [a for a in shlex.split(mak.get(var, "")) if a not in link]
    # every variant: the link families the tree has (FFmpeg's own DNN helpers, each
    # backend's API), compiled with the tree's headers and its backends' (its CFLAGS)
    sources, macros = [], _has_flags(src)
    includes = [str(src), injectors.INCLUDE_DIR] + [
        a[2:] for a in shlex.split(mak.get("CFLAGS", "")) if a.startswith("-I") and "$" not in a]
    link += list(injectors.link_ldflags(src)) + [f"-Wl,--wrap={f}" for f in WRAPPED]
    if tree.stamp.get("coverage"):  # objects built with gcov's instrumentation: its runtime,
        # with the calls inject.c reaches by weak references (which pull no archive member)
        link += ["--coverage", "-Wl,-u,__gcov_dump", "-Wl,-u,__gcov_reset"]
    if variant == "wrap":
        link += list(injectors.WRAP_LDFLAGS)
        macros.append(("FFDNN_WRAP_INJECTOR", "1"))
    print(f"[{tree.name}] module: compiling {MODULE_NAME} ({variant})", file=sys.stderr,
          flush=True)
    with atomic_dir(final) as tmp:
        try:  # generated from their stanzas, kept beside module.c
            sources += list(injectors.link_sources(src, tmp))
            if variant == "wrap":
                sources += list(injectors.wrap_sources(tmp))
        except injectors.InjectorBuildError as e:
            raise BuildError(f"[{tree.name}] {e}") from None
        ffi = cffi.FFI()
        ffi.cdef(cdef)
        ffi.set_source(MODULE_NAME, source, include_dirs=includes, define_macros=macros,
                       sources=sources, extra_objects=libs, extra_link_args=link + ["-ldl"],
                       extra_compile_args=["-std=gnu11", "-Wno-unused-function"])
        _compile(ffi, tmp, tree.name)
        for junk in tmp.glob(f"{MODULE_NAME}.c"):
            junk.rename(tmp / "module.c")
        for junk in tmp.iterdir():  # the objects, under the compiler's own directory tree
            if junk.is_dir():
                shutil.rmtree(junk)
        so = next(tmp.glob(f"{MODULE_NAME}.*.so"), None)
        if so is None:
            raise BuildError(f"[{tree.name}] cffi module compiled to no {MODULE_NAME}.*.so")
        try_import(so, stamp, tree)  # loaded once before it is committed
        (tmp / "stamp.json").write_text(json.dumps({"stamp": stamp, "tree": tree.stamp,
                                                    "sha256": {so.name: file_sha256(so)}},
                                                   indent=1))
    return final


IMPORT = """import importlib.util, sys
spec = importlib.util.spec_from_file_location("{name}", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
got = mod.ffi.string(mod.lib.ffdnn_build_stamp()).decode()
sys.exit(0 if got == sys.argv[2] else "stamp " + got + " is not " + sys.argv[2])
""".format(name=MODULE_NAME)


def try_import(so: Path, stamp: str, tree) -> None:
    """Import the module in a process of its own, as a worker will (the static libraries
    it links may be damaged: a module can link with undefined symbols and fail to load)."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    r = subprocess.run([sys.executable, "-c", IMPORT, str(so), stamp], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        raise CacheError(tree.path, f"its cffi module links but does not load "
                         f"({lines[-1] if lines else f'exit {r.returncode}'})",
                         rebuild(tree.stamp))


def check_module(directory: Path) -> Path:
    """A cached module: its stamp parses and its .so is the file that was committed
    (its sha256, recorded then; an entry from before that, an ELF file). The .so."""
    try:
        info = json.loads((directory / "stamp.json").read_text())
    except (OSError, ValueError) as e:
        raise CacheError(directory, f"stamp.json does not parse ({e})") from None
    so = next(directory.glob(f"{MODULE_NAME}.*.so"), None)
    if so is None:
        raise CacheError(directory, "no compiled module in it")
    recorded = info.get("sha256", {}).get(so.name) if isinstance(info, dict) else None
    if recorded is not None:
        if file_sha256(so) != recorded:
            raise CacheError(directory, f"{so.name} is not the module that was committed")
    else:
        with open(so, "rb") as f:
            if f.read(4) != b"\x7fELF":
                raise CacheError(directory, f"{so.name} is not a shared object (emptied?)")
    return so


def start(tree, variant: str = "preload"):
    """build() in a process of its own (it redirects its process's stderr while the
    compiler runs), so the compile overlaps what this process does next, as the next
    tree's build: the process, or None when the module is in the cache."""
    if (ext_path(tree, variant) / "stamp.json").is_file():
        check_module(ext_path(tree, variant))
        return None
    # the compiler with it, when the command is ended
    return reaper.spawn([sys.executable, "-m", __name__, tree.name, str(tree.path), variant],
                        stdout=subprocess.PIPE, text=True)


def finish(process) -> None:
    """Wait for start()'s process; its error, if any, as this process's error (a cache
    error stays one)."""
    if process is None:
        return
    try:
        out, _ = process.communicate()
    finally:
        process.drop()
    if process.returncode != 0:
        text = out.strip() or f"cffi module compile exited {process.returncode}"
        raise StampError(text) if text.startswith("cache entry ") else BuildError(text)


if __name__ == "__main__":  # start()'s process: NAME TREE_DIR VARIANT; an error on stdout
    name, path, variant = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    try:
        with reaper.installed():  # ended by a signal: its .tmp-* removed, its compiler too
            build(Tree(name, path, read_stamp(path)), variant)
    except (HarnessError, OSError, ValueError) as e:
        print(e)
        sys.exit(ExitStatus.BAD_INPUT)
    except KeyboardInterrupt:
        sys.exit(SIGNALLED + (reaper.signalled() or signal.SIGINT))
