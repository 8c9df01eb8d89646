"""Backend names and cached installs: unknown names and broken entries are one clear line."""

import importlib
import json
import pathlib

import pytest

from tests.conftest import LAYOUT  # the default case's, by name
from harness.obtain import backends, libtorch, wheels
from harness.obtain.backends import fetch
from harness.errors import BackendError


@pytest.mark.unit
def test_all_is_every_backend_module():
    """`all` is every module of harness/obtain/backends/ (the four of 9.0.2 among them),
    sorted; a backend added is in it with no list to edit."""
    modules = sorted(p.stem for p in pathlib.Path(backends.__file__).parent.glob("*.py")
                     if p.stem not in ("__init__", "__main__", "backend", "fetch"))
    assert backends.parse("all") == tuple(modules) == tuple(sorted(backends.BACKENDS))
    assert {"onnx", "openvino", "tf", "torch"} <= set(modules)
    assert backends.parse("default") == ("onnx",)
    assert backends.parse("torch,onnx,torch") == ("onnx", "torch")


@pytest.mark.unit
def test_every_backend_has_an_installer():
    for name, spec in backends.BACKENDS.items():
        assert spec.name == name and callable(spec.install) and spec.version


@pytest.mark.unit
@pytest.mark.parametrize("bad", ["tensorflow", "onnx,pytorch", "ALL"])
def test_unknown_backend_is_one_line(bad):
    with pytest.raises(BackendError, match=r"unknown backend '\w+' \(known: .*all.*\)") as e:
        backends.parse(bad)
    assert "\n" not in str(e.value)


def _fake_install(root, name, info):
    """A cached entry as install() leaves it: <cache>/backends/<package>-<version>/."""
    spec = backends.BACKENDS[name]
    entry = root / "backends" / f"{spec.package}-{spec.version}"
    (entry / "lib").mkdir(parents=True)
    full = {"versions": {spec.package: spec.version}, **info}
    (entry / "backend.json").write_text(json.dumps(full).replace("ENTRY", str(entry)))
    return entry


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FFDNN_CACHE", str(tmp_path))
    return tmp_path


@pytest.mark.unit
def test_cached_install_is_used_without_fetching(cache, monkeypatch):
    entry = _fake_install(cache, "torch", {"runtime_dirs": ["ENTRY/lib"],
                                           "files": ["ENTRY/lib/libtorch.so"]})
    (entry / "lib/libtorch.so").write_text("")
    monkeypatch.setattr(wheels, "download", lambda *a, **k: pytest.fail("fetched"))
    monkeypatch.setattr(libtorch, "pip_report", lambda *a: pytest.fail("asked pip"))
    got = backends.install("torch")
    assert got.root == entry and got.files == [str(entry / "lib/libtorch.so")]


@pytest.mark.unit
def test_missing_library_file_names_it(cache):
    entry = _fake_install(cache, "tf", {"runtime_dirs": ["ENTRY/lib"],
                                        "files": ["ENTRY/lib/libtensorflow.so"]})
    (entry / "lib/libtensorflow_cc.so.2").write_text("")
    (entry / "lib/libtensorflow.so").symlink_to("gone.so.2")  # dangling
    with pytest.raises(BackendError, match="libtensorflow.so is missing") as e:
        backends.install("tf")
    assert str(entry) in str(e.value) and "\n" not in str(e.value)


@pytest.mark.unit
def test_empty_library_dir_names_it(cache):
    entry = _fake_install(cache, "openvino", {"runtime_dirs": ["ENTRY/lib"]})
    with pytest.raises(BackendError, match=r"no library in .*openvino-2026\.4\.1/lib"):
        backends.install("openvino")
    assert (entry / "backend.json").is_file()  # reported, not silently refetched


def _partial_wheel(*files):
    """A stand-in for fetch.wheel that unpacks only `files` (empty) into dest."""
    def fake(spec, dest, *prefixes):
        for f in files:
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            (dest / f).write_text("")
        return {spec.split("==")[0]: spec.split("==")[1], "wheel": "fake.whl"}
    return fake


@pytest.mark.unit
@pytest.mark.parametrize("name, files, missing", [
    ("openvino", ["openvino/libs/libopenvino_c.so.2641"], "openvino.h"),
    ("openvino", ["openvino/include/openvino/c/openvino.h"], r"libopenvino_c\.so\.\*"),
    ("tf", ["tensorflow/include/tensorflow/c/c_api.h", "tensorflow/libtensorflow_cc.so.2"],
     r"libtensorflow_framework\.so\.2"),
])
@pytest.mark.unit
def test_piece_missing_in_wheel_names_it(tmp_path, monkeypatch, name, files, missing):
    spec = backends.BACKENDS[name]
    module = importlib.import_module(f"harness.obtain.backends.{name}")
    monkeypatch.setattr(module, "wheel", _partial_wheel(*files))
    # zlib1g-dev or not
    monkeypatch.setattr(module, "need_system_lib", lambda *a: None, raising=False)
    with pytest.raises(BackendError, match=rf"{spec.package} {spec.version} wheel has no "
                                           rf"{missing}") as e:
        spec.install(tmp_path, spec.version)
    assert "\n" not in str(e.value)


@pytest.mark.unit
def test_torch_cuda_build_is_refused(tmp_path, monkeypatch):
    """A wheel with libtorch_cuda.so (what the public index gives for Linux) is refused
    with the one line that names what to set."""
    def fake(package, version, dest, *prefixes, index=None):
        _partial_wheel("torch/lib/libtorch_cuda.so")(f"{package}=={version}", dest)
        return {package: version, "wheel": "fake.whl"}
    monkeypatch.setattr(wheels, "fetch", fake)
    route = libtorch.Route("index", "torch-2.13.0", "http://index.example/cpu")
    with pytest.raises(BackendError, match=r"no CPU LibTorch: torch==2.13.0 resolved to a "
                                           r"CUDA build .*FFDNN_TORCH_INDEX") as e:
        backends.BACKENDS["torch"].install(tmp_path, "2.13.0", route)
    assert "\n" not in str(e.value)


@pytest.mark.unit
def test_missing_dev_library_names_the_package():
    with pytest.raises(BackendError, match=r"-lffdnn_nosuch needs libffdnn_nosuch\.so: "
                                           r"apt-get install ffdnn-nosuch-dev"):
        fetch.need_system_lib("ffdnn_nosuch", "ffdnn-nosuch-dev")


@pytest.mark.trees
def test_all_tree_links_every_backend():
    """The base tree built with --backend all: every library resolves, every DNN filter is in."""
    import subprocess

    from harness.errors import HarnessError
    from harness.paths import cache_root
    from harness.obtain.trees import Plan

    for spec in backends.BACKENDS.values():  # never fetch ~1 GB of wheels from a test
        try:  # LibTorch's entry is named by its route (a distribution's libtorch-dev)
            entry = backends.entry_name(spec.name)
        except HarnessError as e:
            pytest.skip(str(e))
        if not (cache_root() / "backends" / entry / "backend.json").is_file():
            pytest.skip(f"backend {spec.name} not installed (run: python -m harness build "
                        "--backend all --tree base)")
    try:
        tree = Plan("all", LAYOUT).get("base", build=False)
    except HarnessError as e:
        pytest.skip(str(e))
    ldd = subprocess.run(["ldd", str(tree.ffmpeg)], capture_output=True, text=True).stdout
    assert "not found" not in ldd
    for lib in ("libonnxruntime.so.1", "libopenvino_c.so", "libtensorflow_cc.so.2",
                "libtorch_cpu.so"):
        assert lib in ldd
    out = subprocess.run([str(tree.ffmpeg), "-hide_banner", "-filters"], capture_output=True,
                         text=True, env={"TF_CPP_MIN_LOG_LEVEL": "1"}).stdout
    assert {"dnn_processing", "dnn_detect", "dnn_classify"} <= set(out.split())
