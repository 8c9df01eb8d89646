"""DNN backends: fetch each one's library and headers into the cache, say how to configure.

Every backend comes from a package registry (a PyPI wheel, a Debian package), pinned,
installed by the project itself into `<cache>/backends/<name>-<version>/`.
"""

import json
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from . import apt
from .errors import BackendError
from .paths import atomic_dir, cache_root


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

    def stamp(self) -> dict:
        return {"name": self.name, "versions": self.versions}


def _pip_wheel(spec: str, work: Path) -> Path:
    """Download one wheel (no dependencies) with the machine's own pip configuration."""
    r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        "--only-binary=:all:", "-d", str(work), spec],
                       capture_output=True, text=True)
    wheels = sorted(work.glob("*.whl"))
    if r.returncode != 0 or not wheels:
        msg = (r.stderr.strip().splitlines() or ["no wheel"])[-1]
        raise BackendError(f"pip could not fetch {spec}: {msg}")
    return wheels[0]


def _unzip(wheel: Path, dest: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        z.extractall(dest)


def _link(target: Path, *names: Path) -> None:
    for name in names:
        name.parent.mkdir(parents=True, exist_ok=True)
        if not name.exists():
            os.symlink(os.path.relpath(target, name.parent), name)


def _install_onnx(dest: Path, version: str) -> dict:
    """ONNX Runtime: the library from the onnxruntime wheel, the C header from
    Debian sid's libonnxruntime-dev (the wheel ships none; the C API is versioned,
    so an older header against a newer library is fine)."""
    with tempfile.TemporaryDirectory(prefix="ffdnn-ort-") as work:
        work = Path(work)
        _unzip(_pip_wheel(f"onnxruntime=={version}", work), dest / "wheel")
        deb = apt.private(cache_root() / "apt").download("libonnxruntime-dev", work)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(work / "deb")], check=True)
        (work / "deb/usr/include/onnxruntime").rename(dest / "include")
        header_version = deb.name.split("_")[1]
    libs = sorted((dest / "wheel/onnxruntime/capi").glob("libonnxruntime.so.*"))
    if not libs:
        raise BackendError("onnxruntime wheel has no libonnxruntime.so.*")
    lib = dest / "lib"
    # The SONAME is libonnxruntime.so.1, which the wheel does not ship under that name.
    _link(libs[0], lib / "libonnxruntime.so", lib / "libonnxruntime.so.1")
    return {"versions": {"onnxruntime": version, "libonnxruntime-dev": header_version},
            "configure": ["--enable-libonnxruntime"],
            "cflags": [f"-I{dest / 'include'}"],
            "ldflags": [f"-L{lib}", f"-Wl,-rpath,{lib}"],
            "runtime_dirs": [str(lib)]}


@dataclass(frozen=True)
class Spec:
    name: str
    package: str
    version: str
    install: object


BACKENDS = {
    "onnx": Spec("onnx", "onnxruntime", "1.32.0", _install_onnx),
}
BACKEND_SETS = {"default": ("onnx",)}


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


def install(name: str) -> Installed:
    """Install one backend into the cache (once) and describe it."""
    spec = BACKENDS[name]
    final = cache_root() / "backends" / f"{spec.package}-{spec.version}"
    info_file = final / "backend.json"
    if not info_file.is_file():
        print(f"fetch: backend {spec.package} {spec.version}", flush=True)
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
    return Installed(name=name, root=final, **info)
