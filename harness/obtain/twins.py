"""Twins: a built tree whose sources and configuration are those of the tree to build
(a clone's ref that is the series' before, a `--patch` that makes what another ref
made), found in the cache by its stamp, and whose objects the new tree adopts instead
of compiling its own.
"""

import json
import shutil
from pathlib import Path

from harness.obtain.build import copy_tree, git
from harness.obtain.tree import Tree, check_stamp
from harness.errors import BuildError, StampError
from harness.paths import cache_root


TWIN_FIELDS = ("recipe", "sanitizer", "configure", "compiler", "backends", "source_tree")


def find_twin(want: dict):
    """A built tree of the cache whose TWIN_FIELDS are `want`'s: the same sources,
    configured and compiled the same way, so the same objects (and the same cffi
    module). Trees with one change made for a test (harness/obtain/derived.py) build one
    target only, a twin is a copy, and a change's tree has objects built with gcov's
    instrumentation (coverage): none of them is ever a twin."""
    want = json.loads(json.dumps(want))  # as a stamp reads back
    for stamp_file in sorted((cache_root() / "trees").glob("*/stamp.json")):
        try:
            stamp = json.loads(stamp_file.read_text())
        except (OSError, ValueError):
            continue
        if "derived" in stamp or "twin" in stamp or "coverage" in stamp \
                or any(stamp.get(f) != want[f] for f in TWIN_FIELDS):
            continue
        tree = Tree(stamp["tree"], stamp_file.parent, stamp)
        try:
            check_stamp(tree)
        except StampError:
            continue
        return tree
    return None


def adopt(twin: Tree, src: Path) -> None:
    """Make `src` (its own git history, the twin's sources) the twin's build: the
    twin's files, objects and configuration, under `src`'s own .git."""
    own_git = src.parent / "own.git"
    (src / ".git").rename(own_git)
    shutil.rmtree(src)
    copy_tree(twin.src, src)
    shutil.rmtree(src / ".git")
    own_git.rename(src / ".git")
    git(src, "update-index", "-q", "--refresh", check=False)
    if git(src, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        raise BuildError(f"{twin.path}: its sources are not what its stamp says "
                         "(remove the entry to build it again)")
