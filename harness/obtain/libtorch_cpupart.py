"""LibTorch's CPU_PART way (harness/obtain/libtorch.py): the CPU libraries of pip's CUDA
torch wheel (the public index's for Linux), laid out as include/ + lib/. Its headers,
libtorch_cpu and what that links from the wheel, the two small CUDA runtime libraries
libtorch_cpu names (libcudart, libcupti: from the wheels torch itself requires, about 13
MB), and a libtorch.so that links libtorch_cpu alone (the wheel's also links
libtorch_cuda). No GPU library and no nvidia-* dependency beyond those two: about 540 MB
fetched, where the wheel with its dependencies is several GB."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from harness.errors import BackendError, first_error
from harness.obtain import wheels


def needed(lib: Path) -> list:
    """The libraries an ELF shared object names (DT_NEEDED), from binutils' readelf."""
    r = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True)
    if r.returncode != 0:
        raise BackendError(f"readelf could not read {lib} ({first_error(r.stderr)}); "
                           "is binutils installed?")
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", r.stdout)


def system_has(name: str) -> bool:
    """Does the distribution provide `name` (ldconfig's cache, under /lib or /usr/lib;
    not a toolkit someone put in /usr/local, which another machine does not have)?"""
    r = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True,
                       env={**os.environ, "PATH": os.environ.get("PATH", "") + ":/sbin:/usr/sbin"})
    return any(line.strip().startswith(name + " ") and
               line.split("=>")[-1].strip().startswith(("/lib", "/usr/lib"))
               for line in r.stdout.splitlines())


def _members(wheel: Path) -> dict:
    """{file name: member} of the shared objects a wheel carries."""
    with zipfile.ZipFile(wheel) as z:
        return {n.rsplit("/", 1)[-1]: n for n in z.namelist() if ".so" in n.rsplit("/", 1)[-1]}


def _take(wheel: Path, member: str, lib: Path) -> Path:
    with zipfile.ZipFile(wheel) as z, z.open(member) as src:
        out = lib / member.rsplit("/", 1)[-1]
        out.write_bytes(src.read())
    return out


def _cuda_extras(wheel: Path, missing: list) -> str:
    """The requirement, read from the torch wheel's own metadata, that brings the CUDA
    runtime libraries `missing` (libcudart.so.13 -> its cuda-toolkit[cudart] extra)."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        requires = [l.split(":", 1)[1].strip() for l in z.read(meta).decode().splitlines()
                    if l.startswith("Requires-Dist:")]
    extras = [m.split(".so")[0].removeprefix("lib") for m in missing]
    for req in requires:
        m = re.match(r"([A-Za-z0-9_.-]+)\[([^\]]*)\]\s*(==[^;\s]+)", req)
        if m and all(e in m.group(2).split(",") for e in extras):
            return f"{m.group(1)}[{','.join(extras)}]{m.group(3)}"
    raise BackendError(f"{wheel.name} links {', '.join(missing)}, which no requirement "
                       "of its metadata names as an extra")


def install(version: str, dest: Path, layout) -> dict:
    """The cache entry `dest`; `layout` (libtorch.layout) says what configure needs of it."""
    lib = dest / "lib"
    lib.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="ffdnn-torch-") as work:
        wheels._say(f"torch=={version}: the CUDA wheel from pip's index, its CPU libraries only")
        wheel = wheels.download("torch", version, Path(work))
        wheels.unzip(wheel, dest / "wheel", "torch/include/")
        carried, todo, missing = _members(wheel), ["libtorch_cpu.so", "libc10.so"], []
        while todo:  # libtorch_cpu's closure over what the wheel carries
            name = todo.pop()
            if (lib / name).exists() or name in missing:
                continue
            if name in carried:
                todo += needed(_take(wheel, carried[name], lib))
            elif not system_has(name):
                missing.append(name)
        got = {"torch": wheel.name.split("-")[1], "wheel": wheel.name,
               "taken": sorted(p.name for p in lib.iterdir())}
        if missing:
            req = _cuda_extras(wheel, missing)
            wheels._say(f"{req}: {', '.join(missing)} for libtorch_cpu")
            runtime = Path(work) / "runtime"
            r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d",
                                str(runtime), *wheels.pip_args("", deps=True), req],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise BackendError(f"pip could not fetch {req}: {wheels.pip_error(r.stderr, 'no wheel')}")
            for w in sorted(runtime.glob("*.whl")):
                for name, member in _members(w).items():
                    if name in missing:
                        for n in needed(_take(w, member, lib)):
                            if not (lib / n).exists() and not system_has(n):
                                raise BackendError(f"{name} from {w.name} needs {n}, "
                                                   "which neither the wheels nor the system have")
                        got.setdefault("runtime", []).append(w.name)
            left = [m for m in missing if not (lib / m).exists()]
            if left:
                raise BackendError(f"{req} did not bring {', '.join(left)}")
    cc = os.environ.get("CC") or shutil.which("cc") or "gcc"
    r = subprocess.run([cc, "-shared", "-o", str(lib / "libtorch.so"), "-Wl,-soname,libtorch.so",
                        "-Wl,--no-as-needed", f"-L{lib}", "-ltorch_cpu", "-Wl,-rpath,$ORIGIN"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise BackendError(f"could not link libtorch.so over libtorch_cpu: {first_error(r.stderr)}")
    return {"versions": got, **layout(dest / "wheel/torch/include", lib)}
