"""LibTorch, the CPU build only, by the first route of harness/obtain/libtorch.py that gives
one; its cache entry is named by that route (a distribution's package has its own version).
configure adds -std=c++17 and -ltorch -lc10 -ltorch_cpu itself. It ignores input= and
output=."""

from pathlib import Path

from harness.obtain import libtorch
from harness.obtain.backends.backend import Backend
from harness.paths import cache_root


def install(dest: Path, version: str, route=None) -> dict:
    r = route or libtorch.route(version, cache_root() / "backends")
    return libtorch.install(r, version, dest)


def entry(version: str) -> str:
    r = libtorch.route(version, cache_root() / "backends")
    if r.kind is libtorch.Way.NONE:
        raise libtorch.no_cpu_libtorch(r.detail)
    return r.entry


BACKEND = Backend(
    name="torch", package="torch", version=libtorch.VERSION, install=install,
    library="libtorch", label="LibTorch", product="LibTorch", dnn_type="DNN_TH",
    option="torch", marker="torch", identity="torch-identity", non_identity="torch-scale",
    generator="torch_models", entry=entry,
)
