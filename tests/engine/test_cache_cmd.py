"""`python -m harness cache`: gc --dry-run on a scratch cache holding an older recipe's
trees lists exactly those (and their modules), gc removes them and nothing else, list
says what names each entry, verify checks them; a `.tmp-*` is collected only once its
process is gone."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from harness.paths import PROJECT, cache_root, tmp_owner_alive, tmp_prefix


def harness(cache, *args):
    return subprocess.run([sys.executable, "-m", "harness", "cache", *args], cwd=PROJECT,
                          capture_output=True, text=True,
                          env={**os.environ, "FFDNN_CACHE": str(cache)})


@pytest.mark.unit
def test_a_temporary_names_its_owner(tmp_path):
    mine = tmp_path / (tmp_prefix(tmp_path / "entry") + "abc")
    mine.mkdir()
    assert tmp_owner_alive(mine)
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = tmp_path / f".tmp-entry.pid{gone.pid}-xyz"
    dead.mkdir()
    assert not tmp_owner_alive(dead)


@pytest.mark.trees
def test_gc_collects_exactly_an_older_recipes_trees(tree, tmp_path):
    from harness.compile import declarations, ffi_build
    current = [tree(n) for n in ("base", "before", "after")]
    real, cache = cache_root(), tmp_path / "cache"
    (cache / "trees").mkdir(parents=True)
    (cache / "ext").mkdir()
    for part in ("src", "backends", "apt", "packages", "models"):
        os.symlink(real / part, cache / part)
    for t in current:
        os.symlink(t.path, cache / "trees" / t.path.name)
    modules = [ffi_build.ext_path(t, "preload") for t in current]
    for m in modules:
        if m.is_dir():
            os.symlink(m, cache / "ext" / m.name)
    # an older recipe's before and after: stamps only (gc reads nothing else)
    old = {}
    for t, parent in ((current[1], None), (current[2], "before")):
        stamp = {**t.stamp, "recipe": 0, "key": t.name[0] * 64}
        if parent:
            stamp["parent"] = old[parent]["key"]
        entry = cache / "trees" / f"{t.name}-{stamp['key'][:16]}"
        entry.mkdir()
        (entry / "stamp.json").write_text(json.dumps(stamp))
        old[t.name] = {"key": stamp["key"], "entry": entry}
    old_module = cache / "ext" / f"{old['before']['entry'].name}-preload-{declarations.cdef_hash()}"
    old_module.mkdir()
    # kept runs (harness/experiments/kept.py): of a tree named, of one not, of older code
    from harness.experiments import kept
    (cache / "runs").mkdir()
    code = json.dumps({"code": kept.code_hash(), "runs": {}})
    kept_named = kept.path_of(current[2], cache)
    kept_named.write_text(code)
    kept_gone = cache / "runs" / f"{old['after']['entry'].name}-0123456789abcdef.json"
    kept_gone.write_text(code)
    kept_older = cache / "runs" / f"{current[1].path.name}-fedcba9876543210.json"
    kept_older.write_text(json.dumps({"code": "0" * 16, "runs": {}}))
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = cache / "trees" / f".tmp-before-x.pid{dead.pid}-abcdefgh"
    stale.mkdir()
    live = cache / "trees" / (tmp_prefix(cache / "trees" / "after-y") + "ijklmnop")
    live.mkdir()

    r = harness(cache, "gc", "--dry-run")
    assert r.returncode == 0, r.stderr
    listed = sorted(line.split()[2] for line in r.stdout.splitlines())
    assert listed == sorted([f"trees/{old['before']['entry'].name}",
                             f"trees/{old['after']['entry'].name}",
                             f"ext/{old_module.name}", f"trees/{stale.name}",
                             f"runs/{kept_gone.name}", f"runs/{kept_older.name}"]), r.stdout
    assert "recipe 0 (now 1)" in r.stdout
    assert old_module.is_dir() and stale.is_dir(), "a dry run removes nothing"

    r = harness(cache, "list")
    assert f"trees/{current[1].path.name}  case pr24760 (" in r.stdout, r.stdout
    assert f"trees/{old['after']['entry'].name}  NOT NAMED: recipe 0 (now 1)" in r.stdout

    r = harness(cache, "gc")
    assert r.returncode == 0, r.stderr
    left = sorted(p.name for p in (cache / "trees").iterdir())
    assert left == sorted([t.path.name for t in current] + [live.name]), left
    assert all((cache / "trees" / t.path.name).is_symlink() for t in current)
    assert all(t.path.is_dir() for t in current), "the real cache is untouched"
    assert not old_module.exists()
    assert sorted(p.name for p in (cache / "runs").iterdir()) == [kept_named.name]


@pytest.mark.trees
def test_verify_names_a_damaged_entry(tree, tmp_path):
    base = tree("base")
    cache = tmp_path / "cache"
    (cache / "trees").mkdir(parents=True)
    for part in ("src", "backends"):
        os.symlink(cache_root() / part, cache / part)
    os.symlink(base.path, cache / "trees" / base.path.name)
    r = harness(cache, "verify")
    assert r.returncode == 0 and f"ok    trees/{base.path.name}" in r.stdout, r.stderr
    broken = cache / "trees" / "base-0000000000000000"
    broken.mkdir()
    (broken / "stamp.json").write_text('{"tree": "base"')
    r = harness(cache, "verify")
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"BAD   trees/{broken.name}: cache entry {broken}: stamp.json does not parse" \
        in r.stdout
    assert r.stderr.strip() == "error: 1 cache entry fails its check (listed above)"
    shutil.rmtree(broken)


@pytest.mark.unit
def test_a_directory_removed_during_the_walk_is_passed_over(tmp_path, monkeypatch):
    """`cache list` and `gc` walk the whole cache for the `.tmp-*` a killed process left;
    another process may remove a directory while the walk is in it (a mutant's tree, a
    temporary being committed): it is passed over, not an internal error (exit 70)."""
    import os

    from harness import paths
    gone = tmp_path / "trees" / "b"
    left = tmp_path / "trees" / "a" / ".tmp-x.pid999999999-1"
    left.mkdir(parents=True)
    (left / ".tmp-inside.pid999999999-2").mkdir()
    (gone / "src").mkdir(parents=True)
    scandir = os.scandir

    def racing(path):
        if str(path) == str(gone):
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return scandir(path)
    monkeypatch.setattr(os, "scandir", racing)
    assert [e.path for e in paths.temporaries(tmp_path)] == [left]


@pytest.mark.unit
def test_verify_names_damaged_kept_runs(tmp_path):
    """Kept runs (harness/experiments/kept.py) that do not read back are a cache entry
    failing its check: one BAD line naming it, one error line, exit 2."""
    cache = tmp_path / "cache"
    (cache / "runs").mkdir(parents=True)
    bad = cache / "runs" / "after-0000000000000000-0000000000000000.json"
    bad.write_text('{"code": "x", "runs": {"a": {"scenario": "{"}}}\n')
    r = harness(cache, "verify")
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"BAD   runs/{bad.name}: cache entry {bad}: its kept runs do not read" in r.stdout
    assert r.stderr.strip() == "error: 1 cache entry fails its check (listed above)"
