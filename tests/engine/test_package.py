"""The package a user installs (pyproject.toml): its wheel carries everything the commands
read besides Python (the cffi C sources, the injectors' stanzas, C and headers, the
series' patches, the sanitizer suppressions, the JSON schemas, the cases' files), found
through harness/paths.py's data_dir() once installed; the harness installed from it runs
a real scenario from a directory that is no checkout."""

import os
import subprocess
import sys
import zipfile

import pytest

from harness.paths import DATA_DIRS, PROJECT


def tracked(*patterns) -> list:
    r = subprocess.run(["git", "-C", str(PROJECT), "ls-files", *patterns],
                       capture_output=True, text=True)
    return r.stdout.splitlines() if r.returncode == 0 else []


def in_the_wheel(path: str) -> str:
    """Where a file of the checkout is inside the wheel."""
    for name, where in DATA_DIRS.items():
        if path.startswith(where + "/"):
            return f"harness/_data/{name}/{path[len(where) + 1:]}"
    return path


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel of the checkout's files (tracked or new, not ignored), built in a copy:
    setuptools' build/ in the checkout may hold files the checkout no longer has."""
    import shutil
    out, src = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("src")
    r = subprocess.run(["git", "-C", str(PROJECT), "ls-files", "-co", "--exclude-standard"],
                       capture_output=True, text=True)
    for f in r.stdout.splitlines() if r.returncode == 0 else ():
        if (PROJECT / f).is_file():
            (src / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(PROJECT / f, src / f)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                        str(out), str(src if r.returncode == 0 else PROJECT)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    (whl,) = out.glob("*.whl")
    return whl


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """The wheel installed into a directory of its own (its dependencies are the venv's)."""
    site = tmp_path_factory.mktemp("site")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                        "--target", str(site), str(wheel)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return site


def test_the_wheel_carries_what_the_commands_read(wheel):
    if not tracked():
        pytest.skip("not a git checkout: the tracked files are not known")
    names = set(zipfile.ZipFile(wheel).namelist())
    want = [p for p in tracked("harness", "injectors", "builds", "docs/schema")
            if not p.endswith(".py") and not p.startswith("injectors/tests/")]
    assert len(want) > 40
    assert [p for p in want if in_the_wheel(p) not in names] == []
    assert [p for p in tracked("harness/*.py") if p not in names] == []
    models = tracked("models")  # the generators: Python, but data the registry imports
    assert len(models) > 5 and [p for p in models if in_the_wheel(p) not in names] == []
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert "License-Expression: LGPL-2.1-or-later" in text
    assert "Requires-Dist: jsonschema" in text
    from harness import __version__
    assert f"\nVersion: {__version__}\n" in text


def _python(site, cwd, *args):
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True)


def test_installed_it_finds_its_data_there(installed, tmp_path):
    r = _python(installed, tmp_path, "-c", "import harness, json; from harness import paths; "
                "from harness.compile import declarations; declarations.cdef_hash(); "
                "print(json.dumps([harness.__file__] + [str(paths.data_dir(n)) for n in "
                "paths.DATA_DIRS] + [str(paths.PATCHES)]))")
    assert r.returncode == 0, r.stderr[-2000:]
    import json
    files = json.loads(r.stdout)
    assert all(f.startswith(str(installed)) for f in files), files
    assert [os.path.basename(f) for f in files[1:]] == [*DATA_DIRS, "patches"]
    r = _python(installed, tmp_path, "-c", "from harness.obtain import models; "
                "print(models.GENERATORS['onnx-identity'].module_file)")
    assert r.returncode == 0 and r.stdout.startswith(str(installed)), r.stdout + r.stderr[-2000:]


@pytest.mark.after
@pytest.mark.onnx
def test_installed_it_runs_a_scenario_elsewhere(installed, tree, tmp_path):
    tree("after")
    r = _python(installed, tmp_path, "-m", "harness", "run", "--build", "after",
                "--backend-name", "onnx", "--fault", "pthread_create=EAGAIN", "--results", "")
    assert r.returncode == 0, r.stdout + r.stderr[-2000:]
    assert "1 runs: 1 PASS" in r.stdout
