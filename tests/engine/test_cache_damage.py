"""A damaged cache, in a scratch copy (the real cache is only read): each damaged file is
a cache error naming its entry (exit 2), never a scenario's FAIL or ERROR; a module or
injector is loaded once before it is committed; a damaged model is generated again."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from harness.paths import PROJECT, cache_root, file_sha256
from tests.conftest import BACKENDS

pytestmark = [pytest.mark.trees, pytest.mark.base, pytest.mark.onnx]


def scratch(tmp_path, base, own=()):
    """A cache of its own: every real entry linked one by one (trees/, ext/, the
    injectors), `own` parts copied so they can be damaged, and base's tree entry a
    directory of links whose libavfilter/ is a directory of its own."""
    real, cache = cache_root(), tmp_path / "cache"
    cache.mkdir()
    for part in ("src", "backends", "apt", "packages", "models", "clips"):
        if part in own:
            shutil.copytree(real / part, cache / part, symlinks=True)
        elif (real / part).exists():
            os.symlink(real / part, cache / part)
    for d in ("trees", "ext"):
        (cache / d).mkdir()
        for e in (real / d).iterdir():
            if not e.name.startswith(".tmp-"):
                os.symlink(e, cache / d / e.name)
    for e in real.glob("injectors-*"):
        if "injectors" in own:
            shutil.copytree(e, cache / e.name)
        else:
            os.symlink(e, cache / e.name)
    entry = cache / "trees" / base.path.name
    entry.unlink()
    (entry / "src" / "libavfilter").mkdir(parents=True)
    shutil.copy(base.path / "stamp.json", entry / "stamp.json")
    for e in base.src.iterdir():
        if e.name != "libavfilter":
            os.symlink(e, entry / "src" / e.name)
    for e in (base.src / "libavfilter").iterdir():
        os.symlink(e, entry / "src" / "libavfilter" / e.name)
    return cache, entry


def run(cache):
    return subprocess.run([sys.executable, "-m", "harness", "run", "--build", "base",
                           "--backend", BACKENDS, "--fault", "pthread_create=EAGAIN",
                           "--results", "", "--measure"], cwd=PROJECT, capture_output=True,
                          text=True, env={**os.environ, "FFDNN_CACHE": str(cache)})


def cache_error(r, entry, says):
    assert r.returncode == 2, r.stdout[-1000:] + r.stderr[-2000:]
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: cache entry {entry}") and says in last, last
    assert "rm -rf" in last and "Traceback" not in r.stderr
    assert "FAIL" not in r.stdout and "ERROR" not in r.stdout, "blamed on the code under test"


def base_modules(cache, base):
    """Remove the scratch cache's links to base's compiled modules."""
    for e in (cache / "ext").glob(f"{base.path.name}-*"):
        e.unlink()


def test_an_emptied_archive_is_a_cache_error_and_no_module_is_stored(tree, tmp_path):
    base = tree("base")
    cache, entry = scratch(tmp_path, base)
    base_modules(cache, base)
    lib = entry / "src" / "libavfilter" / "libavfilter.a"
    lib.unlink()
    lib.write_bytes(b"")
    cache_error(run(cache), entry, "libavfilter/libavfilter.a is not a static library")
    assert not list((cache / "ext").glob(f"{base.path.name}-*"))


def test_a_module_that_links_but_does_not_load_is_never_stored(tree, tmp_path):
    """An archive that is an archive but not FFmpeg's: the module links (a shared object
    may leave symbols undefined), its import fails, and nothing is committed, so once
    the archive is back the run works."""
    base = tree("base")
    cache, entry = scratch(tmp_path, base)
    base_modules(cache, base)
    lib = entry / "src" / "libavfilter" / "libavfilter.a"
    lib.unlink()
    (tmp_path / "stub.c").write_text("int ffdnn_stub;\n")
    subprocess.run(["cc", "-c", "-fPIC", "-o", str(tmp_path / "stub.o"),
                    str(tmp_path / "stub.c")], check=True)
    subprocess.run(["ar", "rc", str(lib), str(tmp_path / "stub.o")], check=True)
    stamp = entry / "stamp.json"
    real = stamp.read_text()
    s = json.loads(real)  # the stamp vouches for the stub, so the size check lets it by
    s["libraries"]["libavfilter/libavfilter.a"] = [lib.stat().st_size, file_sha256(lib)]
    stamp.write_text(json.dumps(s))
    cache_error(run(cache), entry, "its cffi module links but does not load")
    assert not [e for e in (cache / "ext").iterdir() if e.name.startswith(base.path.name)
                or e.name.startswith(".tmp-")]
    lib.unlink()
    os.symlink(base.src / "libavfilter" / "libavfilter.a", lib)
    stamp.write_text(real)
    r = run(cache)
    assert r.returncode == 0 and "1 MEASURED" in r.stdout, r.stderr[-2000:]


@pytest.mark.parametrize("text", ["", '{"tree": "base", "key'], ids=["empty", "truncated"])
def test_a_stamp_that_does_not_parse_is_a_cache_error(tree, tmp_path, text):
    base = tree("base")
    cache, entry = scratch(tmp_path, base)
    (entry / "stamp.json").write_text(text)
    cache_error(run(cache), entry, "stamp.json does not parse")


def test_an_emptied_module_is_a_cache_error(tree, tmp_path):
    from harness.compile import ffi_build
    base = tree("base")
    real = ffi_build.build(base)  # the real cache's module (compiled there if missing)
    cache, _ = scratch(tmp_path, base)
    ext = cache / "ext" / real.name
    ext.unlink()
    shutil.copytree(real, ext)
    so = next(ext.glob("_ffdnn.*.so"))
    so.write_bytes(b"")
    cache_error(run(cache), ext, f"{so.name} is not")


@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "no-manifest"])
def test_an_emptied_injector_is_a_cache_error_not_a_fail(tree, tmp_path, manifest):
    from harness.compile import injector_build
    base = tree("base")
    injector_build.build(cache_root())  # the real entry, with its manifest
    cache, _ = scratch(tmp_path, base, own=("injectors",))
    entry = injector_build.build(cache).dir
    if not manifest:
        (entry / injector_build.MANIFEST).unlink()
    (entry / "libfi_pthread_create.so").write_bytes(b"")
    cache_error(run(cache), entry, "libfi_pthread_create.so")


def test_an_emptied_model_is_generated_again(tree, tmp_path):
    base = tree("base")
    cache, _ = scratch(tmp_path, base, own=("models",))
    from harness.obtain import models
    model = models.path("onnx-identity", cache / "models")  # this recipe's, not an older one
    model.write_bytes(b"")
    r = run(cache)
    assert r.returncode == 0 and "1 MEASURED" in r.stdout, r.stderr[-2000:]
    assert f"cache: model {model.name} fails its check (empty): generating it again" in r.stderr
    assert model.stat().st_size > 0
    from harness.run import modelfile
    assert modelfile.why_not(model) is None
