"""DNN backends: fetch each one's library and headers into the cache, say how to configure.

Every backend comes from a package registry (a PyPI wheel, a Debian package), pinned,
installed by the project itself into `<cache>/backends/<name>-<version>/`; wheels are
fetched for the C library and headers they carry (harness/obtain/wheels.py), LibTorch only as
a CPU build (harness/obtain/libtorch.py), ONNX Runtime's header by harness/obtain/ort_header.py.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harness.obtain import libtorch, ort_header, wheels
from harness.errors import BackendError
from harness.paths import atomic_dir, cache_root


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


def _wheel(spec: str, dest: Path, *prefixes: str) -> dict:
    """Fetch and unpack the C parts of one pinned wheel (harness/obtain/wheels.py: any Python
    tag that has it, this machine's platform); what it really was, for `versions`."""
    package, version = spec.split("==")
    return wheels.fetch(package, version, dest, *prefixes)


def _need(what: str, *paths: Path) -> None:
    """A piece the wheel should have shipped: one line naming the first one missing."""
    for p in paths:
        if not p.exists():
            raise BackendError(f"{what} has no {p.name} (looked for {p})")


def _one(directory: Path, pattern: str, what: str) -> Path:
    found = sorted(directory.glob(pattern))
    if not found:
        raise BackendError(f"{what} has no {pattern} in {directory}")
    return found[-1]


def _need_system_lib(name: str, package: str) -> None:
    """-l<name> in extra libs links against the machine's lib<name>.so (a -dev package)."""
    cc = shutil.which("cc") or shutil.which("gcc") or "cc"
    r = subprocess.run([cc, f"-print-file-name=lib{name}.so"], capture_output=True, text=True)
    if not os.path.isabs(r.stdout.strip()):
        raise BackendError(f"-l{name} needs lib{name}.so: apt-get install {package}")


def _link(target: Path, *names: Path) -> None:
    for name in names:
        name.parent.mkdir(parents=True, exist_ok=True)
        if not name.exists():
            os.symlink(os.path.relpath(target, name.parent), name)


def _install_onnx(dest: Path, version: str) -> dict:
    """ONNX Runtime: the library from the onnxruntime wheel, the C header from the chain
    of harness/obtain/ort_header.py (the wheel ships none)."""
    versions = _wheel(f"onnxruntime=={version}", dest / "wheel", "onnxruntime/capi/")
    with tempfile.TemporaryDirectory(prefix="ffdnn-ort-") as work:
        versions.update(ort_header.install(dest / "include", Path(work)))
    libs = sorted((dest / "wheel/onnxruntime/capi").glob("libonnxruntime.so.*"))
    if not libs:
        raise BackendError("onnxruntime wheel has no libonnxruntime.so.*")
    lib = dest / "lib"
    # The SONAME is libonnxruntime.so.1, which the wheel does not ship under that name.
    _link(libs[0], lib / "libonnxruntime.so", lib / "libonnxruntime.so.1")
    return {"versions": versions,
            "configure": ["--enable-libonnxruntime"],
            "cflags": [f"-I{dest / 'include'}"],
            "ldflags": [f"-L{lib}", f"-Wl,-rpath,{lib}"],
            "runtime_dirs": [str(lib)]}


def _install_openvino(dest: Path, version: str) -> dict:
    """OpenVINO: C headers and libraries from the openvino wheel (TBB and hwloc are in
    it too; its dependencies numpy and openvino-telemetry are Python-only). configure
    finds the 2.0 C API only through pkg-config (its fallback knows only the legacy
    c_api/ie_c_api.h), so write an openvino.pc; ${pcfiledir} keeps it right after the
    entry is renamed into place. libs/ stays whole: the plugins load from it at run time."""
    versions = _wheel(f"openvino=={version}", dest / "wheel",
                      "openvino/include/", "openvino/libs/")
    ov, what = dest / "wheel/openvino", f"openvino {version} wheel"
    lib = _one(ov / "libs", "libopenvino_c.so.*", what)
    files = [ov / "include/openvino/c/openvino.h", lib, ov / "libs/libtbb.so.12",
             ov / "libs/libopenvino_intel_cpu_plugin.so"]
    _need(what, *files)
    _link(lib, dest / "lib/libopenvino_c.so")
    files.append(dest / "lib/libopenvino_c.so")
    (dest / "pkgconfig").mkdir()
    (dest / "pkgconfig/openvino.pc").write_text(
        "prefix=${pcfiledir}/..\nName: openvino\nDescription: OpenVINO C API (wheel)\n"
        f"Version: {version}\nCflags: -I${{prefix}}/wheel/openvino/include\n"
        "Libs: -L${prefix}/lib -lopenvino_c -Wl,-rpath,${prefix}/wheel/openvino/libs\n")
    files.append(dest / "pkgconfig/openvino.pc")  # the binary's rpath runs through it
    return {"versions": versions, "configure": ["--enable-libopenvino"],
            "pkg_config_path": str(dest / "pkgconfig"),
            "runtime_dirs": [str(ov / "libs")], "files": [str(f) for f in files]}


def _install_tf(dest: Path, version: str) -> dict:
    """TensorFlow's C API from the tensorflow-cpu wheel, without its Python dependencies
    and unpacking only headers and the two libraries (the rest, 140 MB, is Python's).
    libtensorflow_cc.so.2 exports TF_*, so a libtensorflow.so symlink to it satisfies
    configure's -ltensorflow; it needs libtensorflow_framework.so.2 beside it."""
    _need_system_lib("z", "zlib1g-dev")
    _need_system_lib("atomic", "gcc")
    versions = _wheel(f"tensorflow-cpu=={version}", dest / "wheel", "tensorflow/include/",
                      "tensorflow/libtensorflow_cc.so", "tensorflow/libtensorflow_framework.so")
    tf = dest / "wheel/tensorflow"
    files = [tf / "include/tensorflow/c/c_api.h", tf / "libtensorflow_cc.so.2",
             tf / "libtensorflow_framework.so.2"]
    _need(f"tensorflow-cpu {version} wheel", *files)
    _link(tf / "libtensorflow_cc.so.2", dest / "lib/libtensorflow.so")
    files.append(dest / "lib/libtensorflow.so")
    return {"versions": versions, "configure": ["--enable-libtensorflow"],
            "cflags": [f"-I{tf / 'include'}"],
            "ldflags": [f"-L{dest / 'lib'}", f"-Wl,-rpath,{tf}"],
            "extra_libs": ["-lz", "-latomic"],
            "runtime_dirs": [str(tf)], "files": [str(f) for f in files]}


def _install_torch(dest: Path, version: str, route=None) -> dict:
    """LibTorch, the CPU build, by the first route of harness/obtain/libtorch.py.
    configure adds -std=c++17 and -ltorch -lc10 -ltorch_cpu itself."""
    r = route or libtorch.route(version, cache_root() / "backends")
    return libtorch.install(r, version, dest)


@dataclass(frozen=True)
class Spec:
    name: str
    package: str
    version: str
    install: object
    library: str = ""  # configure's --enable-<library>; CONFIG_<LIBRARY> in config.h
    label: str = ""    # the backend's name in a sentence
    marker: str = ""   # the pytest marker of its tests
    option: str = ""   # the DNN filters' dnn_backend= value
    processing: str = ""    # dnn_processing's options after model= for its generated models
    identity: str = ""      # its generated identity model (models/)
    non_identity: str = ""  # and a model that changes every pixel
    generator: str = ""     # the module of models/ that writes both: `onnx-conv` is its conv()


# One entry a backend: how it is fetched, its configure library, its marker (registered
# by tests/conftest.py), how the DNN filters name it, and the generated models its
# dnn_processing graphs use, with the module of models/ that writes them. OpenVINO
# models have fixed shapes and processing needs layout=nchw; Torch ignores input=/output=.
BACKENDS = {
    "onnx": Spec("onnx", "onnxruntime", "1.32.0", _install_onnx, "libonnxruntime", "ONNX",
                 "onnx", "onnx", ":input=x:output=y", "onnx-identity", "onnx-conv",
                 "onnx_models"),
    "openvino": Spec("openvino", "openvino", "2026.4.1", _install_openvino, "libopenvino",
                     "OpenVINO", "openvino", "openvino", ":input=x:output=y:layout=nchw",
                     "ov-identity", "ov-scale", "ov_models"),
    "tf": Spec("tf", "tensorflow-cpu", "2.18.0", _install_tf, "libtensorflow", "TensorFlow",
               "tensorflow", "tensorflow", ":input=x:output=y", "tf-identity", "tf-scale",
               "tf_models"),
    "torch": Spec("torch", "torch", libtorch.VERSION, _install_torch, "libtorch", "LibTorch",
                  "torch", "torch", "", "torch-identity", "torch-scale", "torch_models"),
}
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
    """The backend's directory under <cache>/backends/: package and pin, or for
    LibTorch the route it comes by (a distribution's package has its own version)."""
    spec = BACKENDS[name]
    if name == "torch":
        r = libtorch.route(spec.version, cache_root() / "backends")
        if r.kind == "none":
            raise libtorch.no_cpu_libtorch(r.detail)
        return r.entry
    return f"{spec.package}-{spec.version}"


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
