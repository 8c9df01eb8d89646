"""Where LibTorch comes from (harness/obtain/libtorch.py): only a CPU build, by the first route
that gives one, and one error line naming every way when none does."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.obtain import libtorch, libtorch_cpupart
from harness.errors import BackendError

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]


def fake_libtorch(d: Path, cuda=False) -> Path:
    """An unpacked LibTorch's layout, empty files (what configure and the loader open)."""
    for f in ("include/torch/csrc/api/include/torch/torch.h", "include/torch/script.h",
              "lib/libtorch.so", "lib/libc10.so", "lib/libtorch_cpu.so",
              *(["lib/libtorch_cuda.so"] if cuda else [])):
        (d / f).parent.mkdir(parents=True, exist_ok=True)
        (d / f).write_text("")
    (d / "include/torch/csrc/api/include/torch/version.h").write_text(
        '#define TORCH_VERSION "2.13.0"\n')
    return d


@pytest.fixture
def clean(monkeypatch, tmp_path):
    for v in (libtorch.DIR_VARIABLE, libtorch.INDEX_VARIABLE):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setattr(libtorch, "system_version", lambda: "")
    monkeypatch.setattr(libtorch, "pip_report", lambda *a, **k: (
        False, "torch-2.13.0-cp313-cp313-manylinux_2_28_x86_64.whl is a CUDA build "
               "(requires cuda-toolkit, nvidia-cudnn-cu13, ...)"))
    monkeypatch.setattr(libtorch, "apt_candidate", lambda: "")
    return tmp_path


def test_user_dir_first(clean, monkeypatch):
    d = fake_libtorch(clean / "libtorch")
    monkeypatch.setenv(libtorch.DIR_VARIABLE, str(d))
    monkeypatch.setenv(libtorch.INDEX_VARIABLE, "http://index.example/cpu")
    r = libtorch.route("2.13.0", clean / "cache")
    assert r.kind == "user" and r.entry.startswith("libtorch-dir-")
    info = libtorch.install(r, "2.13.0", clean / "entry")
    assert info["versions"]["libtorch"] == "2.13.0"
    assert f"-I{d / 'include/torch/csrc/api/include'}" in info["cflags"]
    assert f"-Wl,-rpath,{d / 'lib'}" in info["ldflags"]


def test_user_dir_with_cuda_is_refused(clean, monkeypatch):
    d = fake_libtorch(clean / "libtorch", cuda=True)
    monkeypatch.setenv(libtorch.DIR_VARIABLE, str(d))
    with pytest.raises(BackendError, match="is a CUDA build"):
        libtorch.install(libtorch.route("2.13.0", clean), "2.13.0", clean / "entry")


def test_index_then_cache_then_system(clean, monkeypatch):
    monkeypatch.setenv(libtorch.INDEX_VARIABLE, "http://index.example/cpu")
    assert libtorch.route("2.13.0", clean).kind == "index"
    monkeypatch.delenv(libtorch.INDEX_VARIABLE)
    monkeypatch.setattr(libtorch, "system_version", lambda: "2.6.0+dfsg-7")
    (clean / "torch-2.13.0").mkdir()
    (clean / "torch-2.13.0/backend.json").write_text("{}")
    assert libtorch.route("2.13.0", clean).kind == "cached"
    (clean / "torch-2.13.0/backend.json").unlink()
    r = libtorch.route("2.13.0", clean)
    assert (r.kind, r.entry) == ("system", "libtorch-dev-2.6.0+dfsg-7")


def test_cuda_only_index_takes_the_cpu_part(clean):
    """What issue 13 found: on the public index torch==2.13.0 is the CUDA build; its CPU
    part is the route then, in an entry of its own."""
    r = libtorch.route("2.13.0", clean)
    assert (r.kind, r.entry) == ("cpu-part", "torch-2.13.0-cpu-part")
    assert "is a CUDA build" in r.detail
    (clean / r.entry).mkdir()
    (clean / r.entry / "backend.json").write_text("{}")
    assert libtorch.route("2.13.0", clean) == libtorch.Route("cached", r.entry, str(clean / r.entry))


def test_no_torch_at_all_is_one_line_naming_every_way(clean, monkeypatch):
    monkeypatch.setattr(libtorch, "pip_report", lambda *a, **k: (
        False, "torch==2.13.0 not found (ERROR: No matching distribution found)"))
    r = libtorch.route("2.13.0", clean)
    assert r.kind == "none"
    with pytest.raises(BackendError) as e:
        libtorch.install(r, "2.13.0", clean / "entry")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("no CPU LibTorch: torch==2.13.0 not found")
    for way in ("FFDNN_TORCH_INDEX", "FFDNN_LIBTORCH", "libtorch-dev (2.0 or newer)",
                "BACKENDS=onnx,openvino,tf"):
        assert way in msg


def test_public_index_is_seen_as_cuda_without_downloading_it():
    """The real public index, with this machine's pip configuration (find-links to a
    pre-downloaded CPU wheel, a constraint file) left out, as a user's machine has it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_CERT=os.environ.get("PIP_CERT", ""))
    env = {k: v for k, v in env.items() if v}
    code = "from harness.obtain import libtorch; print(*libtorch.pip_report('2.13.0'), sep='|')"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    if "not found" in r.stdout and "ERROR:" in r.stdout:
        pytest.skip(f"the package index is not reachable: {r.stdout.strip()}")
    cpu, what = r.stdout.strip().split("|", 1)
    assert cpu == "False" and "is a CUDA build" in what, r.stdout + r.stderr


def test_distribution_versions_against_the_floor():
    assert libtorch.new_enough("2.6.0+dfsg-7") and libtorch.new_enough("2.14.1+dfsg-1")
    assert not libtorch.new_enough("1.13.1+dfsg-4")  # bookworm's: no ATen XPU hooks
    assert libtorch.new_enough("1:2.0.0-1") and not libtorch.new_enough("garbage")


def test_too_old_installed_package_is_not_taken_and_is_named(clean, monkeypatch):
    monkeypatch.setattr(libtorch, "system_version", lambda: "1.13.1+dfsg-4")
    r = libtorch.route("2.13.0", clean)
    assert r.kind == "cpu-part"
    assert "the installed libtorch-dev 1.13.1+dfsg-4 is older than 2.0" in r.detail


def test_the_virtualenv_asks_for_no_torch():
    """`pip install -e '.[test]'` (the Makefile's) must not pull torch: on the public
    index that is the CUDA build and its nvidia-* wheels, 4.9 GB on a fresh trixie."""
    import re
    text = (ROOT / "pyproject.toml").read_text()
    project = text.split("[tool.", 1)[0]
    assert not re.search(r'"torch\b', project), "pyproject.toml asks for torch"
    make = (ROOT / "Makefile").read_text()
    assert "torch]" not in make and ",torch" not in make.split("pip install", 1)[1].split("\n")[0]


def _so(cc_dir: Path, name: str, *links: str) -> Path:
    """A real shared object `name` (its soname) that needs `links` (DT_NEEDED)."""
    out = cc_dir / name
    subprocess.run(["cc", "-shared", "-x", "c", "/dev/null", "-o", str(out),
                    f"-Wl,-soname,{name}", "-Wl,--no-as-needed", f"-L{cc_dir}",
                    *(f"-l:{l}" for l in links)], check=True)
    return out


def _wheel(dest: Path, name: str, version: str, files: dict, requires=(), extras=()):
    """A wheel pip takes from a local directory: METADATA, WHEEL and the `files`."""
    import zipfile
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    meta = [f"Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
            *(f"Provides-Extra: {e}" for e in extras), *(f"Requires-Dist: {r}" for r in requires)]
    with zipfile.ZipFile(dest / f"{name.replace('-', '_')}-{version}-py3-none-any.whl", "w") as z:
        for arc, data in files.items():
            z.writestr(arc, data)
        z.writestr(f"{info}/METADATA", "\n".join(meta) + "\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")


@pytest.fixture
def cuda_wheels(tmp_path, monkeypatch):
    """A CUDA-style torch wheel in a local index: libtorch_cpu needs libc10 (in the wheel)
    and libfakert.so.7 (in fake-rt, brought by fake-toolkit's `fakert` extra, which torch's
    metadata pins), beside a libtorch_cuda.so that must never be unpacked."""
    so, index = tmp_path / "so", tmp_path / "index"
    so.mkdir(), index.mkdir()
    _so(so, "libc10.so"), _so(so, "libfakert.so.7")
    _so(so, "libtorch_cpu.so", "libc10.so", "libfakert.so.7")
    lib = {f"torch/lib/{n}": (so / n).read_bytes() for n in ("libc10.so", "libtorch_cpu.so")}
    lib["torch/lib/libtorch_cuda.so"] = b"never unpacked"
    headers = {"torch/include/torch/script.h": "", "torch/include/torch/csrc/api/include/torch/torch.h": ""}
    _wheel(index, "torch", "2.13.0", {**headers, **lib},
           requires=['fake-toolkit[fakert,other]==1.0; platform_system == "Linux"'])
    _wheel(index, "fake-toolkit", "1.0", {}, extras=("fakert", "other"),
           requires=['fake-rt==2.0; extra == "fakert"', 'fake-big==9; extra == "other"'])
    _wheel(index, "fake-rt", "2.0", {"fake_rt/lib/libfakert.so.7": (so / "libfakert.so.7").read_bytes()})
    for k in [k for k in os.environ if k.startswith("PIP_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    return tmp_path


def test_cpu_part_takes_libtorch_cpu_and_the_runtime_it_names(cuda_wheels):
    entry = cuda_wheels / "entry"
    info = libtorch.install(libtorch.Route("cpu-part", "torch-2.13.0-cpu-part", "CUDA"),
                            "2.13.0", entry)
    lib = entry / "lib"
    assert sorted(p.name for p in lib.iterdir()) == [
        "libc10.so", "libfakert.so.7", "libtorch.so", "libtorch_cpu.so"]
    assert not list(entry.rglob("libtorch_cuda.so"))
    needed = libtorch_cpupart.needed(lib / "libtorch.so")
    assert [n for n in needed if n.startswith("libtorch")] == ["libtorch_cpu.so"]
    assert info["versions"]["runtime"] == ["fake_rt-2.0-py3-none-any.whl"]
    assert info["ldflags"] == [f"-L{lib}", f"-Wl,-rpath,{lib}"]


def test_cpu_part_whose_runtime_no_extra_brings_is_one_line(cuda_wheels):
    (cuda_wheels / "index/fake_rt-2.0-py3-none-any.whl").unlink()
    with pytest.raises(BackendError) as e:
        libtorch_cpupart.install("2.13.0", cuda_wheels / "entry", libtorch.layout)
    assert "\n" not in str(e.value)
    assert str(e.value).startswith("pip could not fetch fake-toolkit[fakert]==1.0")
