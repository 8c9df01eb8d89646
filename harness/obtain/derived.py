"""A built tree with one change made to it, for the claims that undo one commit of a
case's series (its claim and sanitizer tests, tests/<case>/): a copy of the tree's cache
entry, objects included, the change made in its git repository, and one make target
rebuilt, so only what the change touches compiles again.

Each is a cache entry `<cache>/trees/<tree>-<label>-<key>/`, its key the tree's own
key and the hash of what is changed (the reverted commit's id, or the sha256 of the
edited file), so the next run finds it built.
"""

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Callable

from harness.errors import BuildError
from harness.obtain.build import copy_tree, first_objects, git, run_logged
from harness.obtain.tree import Tree, library_files, read_stamp
from harness.paths import atomic_dir, cache_root, digest

RECIPE = 1  # bump when the way a derived tree is built changes


def derive(tree: Tree, label: str, what: str, change: Callable[[Path], None],
           target: str = "ffmpeg") -> Tree:
    """`tree` with `change(src)` made and committed and `make TARGET` run: from the
    cache when a run before built it. `what` names the change by content (a commit id,
    a file's sha256); it is the key, with the tree's."""
    key = digest(RECIPE, tree.key, what, target)
    path = cache_root() / "trees" / f"{tree.name}-{label}-{key[:16]}"
    if not (path / "stamp.json").is_file():
        _build(tree, label, what, change, target, key, path)
    stamp = read_stamp(path)
    if stamp.get("key") != key or not (path / "src" / target).is_file():
        raise BuildError(f"{path}: not the tree its key names, or no {target} in it "
                         "(remove the entry to build it again)")
    return Tree(f"{tree.name}-{label}", path, stamp)


def _build(tree, label, what, change, target, key, final: Path) -> None:
    t0, name = time.monotonic(), f"{tree.name}-{label}"
    with atomic_dir(final) as tmp:
        src, log = tmp / "src", tmp / "build.log"
        copy_tree(tree.src, src)
        git(src, "update-index", "-q", "--refresh", check=False)  # the copy has new inodes
        change(src)
        if git(src, "status", "--porcelain", "--untracked-files=no").stdout.strip():
            git(src, "commit", "-q", "-a", "-m", f"{name}: {what}")
        rc = run_logged(["make", f"-j{os.cpu_count() or 2}", *first_objects(src), target], src, log)
        if rc != 0:
            text = log.read_text(errors="replace").splitlines()
            errors = [l for l in text if ": error: " in l or l.startswith("make: ***")]
            raise BuildError(f"[{name}] make {target} failed: "
                             f"{(errors or ['see ' + str(log)])[0]}")
        stamp = {**tree.stamp, "tree": name, "key": key, "parent": tree.key,
                 "derived": {"from": tree.name, "change": what, "target": target,
                             "recipe": RECIPE},
                 "head": git(src, "rev-parse", "HEAD").stdout.strip(),
                 "source_tree": git(src, "rev-parse", "HEAD^{tree}").stdout.strip(),
                 "libraries": library_files(src),
                 "seconds": {"total": round(time.monotonic() - t0, 1)}}
        (tmp / "stamp.json").write_text(json.dumps(stamp, indent=1) + "\n")


def commit_id(tree: Tree, subject: str) -> str:
    """The one commit of the tree's history with this subject."""
    shas = git(tree.src, "log", "--format=%H", "--fixed-strings", f"--grep={subject}").stdout.split()
    if len(shas) != 1:
        raise BuildError(f"{tree.name}: {len(shas)} commits with the subject {subject!r}, "
                         "expected one")
    return shas[0]


def without_commit(tree: Tree, label: str, subject: str, target: str = "ffmpeg") -> Tree:
    """`tree` with the commit of this subject undone by `git revert`."""
    sha = commit_id(tree, subject)
    return derive(tree, label, f"git revert {sha}",
                  lambda src: git(src, "revert", "--no-edit", sha), target)


def edited(tree: Tree, label: str, path: str, edit: Callable[[str], str],
           target: str = "ffmpeg") -> Tree:
    """`tree` with one file's text replaced by `edit(text)`; keyed by the result's sha256."""
    text = edit((tree.src / path).read_text())
    sha = hashlib.sha256(text.encode()).hexdigest()
    return derive(tree, label, f"{path} sha256 {sha}",
                  lambda src: (src / path).write_text(text), target)
