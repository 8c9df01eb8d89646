"""DNN backends: the registry of the backend modules beside this file, each fetched into
the cache with its library and headers, and what configure and the linker need of it.

Every backend comes from a package registry (a PyPI wheel, a Debian package), pinned,
installed by the project itself into `<cache>/backends/<name>-<version>/`; wheels are
fetched for the C library and headers they carry (harness/obtain/wheels.py, through
fetch.py), LibTorch only as a CPU build (harness/obtain/libtorch.py), ONNX Runtime's
header by harness/obtain/ort_header.py. `python -m harness.obtain.backends` prints what the
Makefile, builds/deps.sh and the CI workflows read of it.
"""

import importlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import BackendError
from harness.paths import atomic_dir, cache_root


# where the compiler looks after the -I it is given
SYSTEM_INCLUDE = [Path("/usr/local/include"), Path("/usr/include")]


@dataclass(frozen=True)
class Installed:
    """What configure and the linker need from one installed backend."""

    name: str
    root: Path
    versions: dict
    configure: list = field(default_factory=list)
    cflags: list = field(default_factory=list)
    ldflags: list = field(default_factory=list)
    extra_libs: list = field(default_factory=list)
    pkg_config_path: str = ""
    runtime_dirs: list = field(default_factory=list)
    files: list = field(default_factory=list)  # what the link and the loader open

    def stamp(self) -> dict:
        return {"name": self.name, "versions": self.versions}

    def include_dirs(self) -> list:
        """Where the compiler finds its headers: the -I of its cflags and of its
        pkg-config files (each `.pc` of pkg_config_path), then the system's."""
        flags = list(self.cflags)
        for pc in sorted(Path(self.pkg_config_path).glob("*.pc")) if self.pkg_config_path else ():
            r = subprocess.run(["pkg-config", "--cflags-only-I", pc.stem], capture_output=True,
                               text=True, env={**os.environ, "PKG_CONFIG_PATH": self.pkg_config_path})
            flags += r.stdout.split()
        return [Path(f[2:]) for f in flags if f.startswith("-I")] + SYSTEM_INCLUDE

    def has_header(self, header: str) -> bool:
        return any((d / header).is_file() for d in self.include_dirs())


def _modules() -> tuple:
    """The backend modules of this package: every module but the shared ones."""
    here = Path(__file__).parent
    return tuple(sorted(p.stem for p in here.glob("*.py")
                        if p.stem not in ("__init__", "__main__", "backend", "fetch")))


# One module a backend (harness/obtain/backends/<name>.py, its BACKEND): how it is fetched,
# its configure library, how FFmpeg and the filters name it, its graphs and generated
# models, the system libraries its link needs, its marker and CI shard. Adding a backend
# is adding its module (and the module of models/ that writes its models).
BACKENDS = {b.name: b for b in (importlib.import_module(f"{__name__}.{m}").BACKEND
                                for m in _modules())}
BACKEND_SETS = {"default": ("onnx",), "all": tuple(BACKENDS)}


def parse(names: str | list) -> tuple:
    """'onnx', 'onnx,openvino', 'default' or 'all' -> sorted tuple of known backend names."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n]
    out = set()
    for n in names:
        if n in BACKEND_SETS:
            out.update(BACKEND_SETS[n])
        elif n in BACKENDS:
            out.add(n)
        else:
            known = ", ".join(sorted(BACKENDS) + sorted(BACKEND_SETS))
            raise BackendError(f"unknown backend '{n}' (known: {known})")
    return tuple(sorted(out))


def entry_name(name: str) -> str:
    """The backend's directory under <cache>/backends/: package and pin, or what its
    module names it (LibTorch: the route it comes by)."""
    spec = BACKENDS[name]
    return spec.entry(spec.version) if spec.entry else f"{spec.package}-{spec.version}"


def shards() -> list:
    """The CI shards, each the backends it tests together, in the registry's order."""
    out = {}
    for name, b in BACKENDS.items():
        out.setdefault(b.shard, []).append(name)
    return [{"backends": ",".join(names), "shard": shard} for shard, names in out.items()]


def system_libs(names) -> list:
    """(library, Debian package) the named backends' links need from the system."""
    return list(dict.fromkeys(lib for n in names for lib in BACKENDS[n].libs))


def install(name: str) -> Installed:
    """Install one backend into the cache (once) and describe it."""
    spec = BACKENDS[name]
    final = cache_root() / "backends" / entry_name(name)
    info_file = final / "backend.json"
    if not info_file.is_file():
        print(f"fetch: backend {spec.package} {spec.version} -> {final.name}",
              file=sys.stderr, flush=True)
        with atomic_dir(final) as tmp:
            info = spec.install(tmp, spec.version)
            # paths in the info point at `final`, where the entry lands on rename
            text = json.dumps(info, indent=1).replace(str(tmp), str(final))
            (tmp / "backend.json").write_text(text)
    info = json.loads(info_file.read_text())
    for d in info.get("runtime_dirs", []):
        libs = [p for p in Path(d).glob("*.so*") if p.exists()]  # exists() follows symlinks
        if not libs:
            raise BackendError(f"{spec.package} {spec.version}: no library in {d}; "
                               f"remove {final} and run make build")
    for f in info.get("files", []):
        if not Path(f).exists():  # a dangling symlink counts as missing
            raise BackendError(f"{spec.package} {spec.version}: {f} is missing; "
                               f"remove {final} and run make build")
    return Installed(name=name, root=final, **info)
