"""A tree the user derives from another with patches of their own (`diff --patch FILE`).

The tree starts as a copy of the named tree's cache entry, objects included, gets the
patches with `git am`, and is built in place: the way after is built from before
(harness/obtain/trees.py), so only the files the patches touch compile again. Its key is
the parent's key and the patches' sha256, so the same patches on the same tree are
built once.
"""

import os
import re
import subprocess
import tempfile
from pathlib import Path

from harness import inputs
from harness.errors import HarnessError, first_error
from harness.obtain.trees import Plan


def tree_name(on: str, patches: list) -> str:
    """after+drop-check for one patch, after+4-patches for several: a directory name."""
    if len(patches) == 1:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(patches[0]).stem)[:40].strip("-.")
        return f"{on}+{stem or 'patch'}"
    return f"{on}+{len(patches)}-patches"


def check_file(p: str) -> Path:
    """A patch file the user names: there, not empty, text, and a diff; else bad input."""
    path = inputs.input_file("--patch", p)  # there, a regular file, not empty
    data = path.read_bytes()
    if not data.strip():
        raise HarnessError(f"--patch {p}: an empty file")
    if b"\0" in data:
        raise HarnessError(f"--patch {p}: a binary file, not a patch")
    if not re.search(rb"^(diff --git |--- )", data, re.M) or not re.search(rb"^@@ ", data, re.M):
        raise HarnessError(f"--patch {p}: not a patch (no diff in it)")
    return path


def patch_files(paths: list) -> list:
    """The user's patch files, resolved; a missing, empty or binary one is bad input."""
    return [check_file(p) for p in paths]


def check_applies(src: Path, patches: list, on: str) -> None:
    """`git apply --check` of the patches in turn against the source of a built tree, in
    a temporary index and object directory (nothing is written to the tree's entry), so
    a patch that does not apply is refused before the tree is copied."""
    env = {**os.environ}
    with tempfile.TemporaryDirectory(prefix="ffdnn-apply-") as tmp:
        env.update(GIT_INDEX_FILE=str(Path(tmp) / "index"),
                   GIT_OBJECT_DIRECTORY=str(Path(tmp) / "objects"),
                   GIT_ALTERNATE_OBJECT_DIRECTORIES=str(src / ".git" / "objects"))
        (Path(tmp) / "objects").mkdir()
        git = ["git", "-C", str(src)]
        r = subprocess.run(git + ["read-tree", "HEAD"], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise HarnessError(f"{src}: cannot read its source ({first_error(r.stderr)})")
        for p in patches:
            r = subprocess.run(git + ["apply", "--cached", str(Path(p).resolve())], env=env,
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise HarnessError(f"--patch {p}: does not apply to {on} "
                                   f"({first_error(r.stderr)})")


class PatchedPlan(Plan):
    """A Plan with one more tree: `on` (a tree of the plan) plus the user's patches."""

    def __init__(self, *args, on: str, patches: list, **kw):
        super().__init__(*args, **kw)
        if on not in super().names:
            raise HarnessError(f"unknown tree '{on}' to patch (known: "
                               f"{', '.join(super().names)})")
        self.on = on
        self.user_patches = patch_files(patches)
        if not self.user_patches:
            raise HarnessError("no patch to apply")
        self.patched = tree_name(on, self.user_patches)

    @property
    def names(self) -> tuple:
        return super().names + (self.patched,)

    def parent(self, name: str):
        return self.on if name == self.patched else super().parent(name)

    def patches(self, name: str) -> list:
        return list(self.user_patches) if name == self.patched else super().patches(name)

    def coverage(self, name: str) -> bool:
        """The patched tree's own objects count the lines they run (a diff's changed lines
        executed under a fault)."""
        return name == self.patched

    def get(self, name: str, build=True):
        """The patched tree: its patches are checked against the tree they go on
        (built first when it is not) before that tree is copied."""
        if name == self.patched and build and not (self.path(name) / "stamp.json").is_file():
            check_applies(super().get(self.on).src, self.user_patches, self.on)
        return super().get(name, build)

    def check_if_built(self) -> None:
        """check_applies() now when the tree the patches go on is in the cache."""
        if (self.path(self.on) / "stamp.json").is_file() and \
                not (self.path(self.patched) / "stamp.json").is_file():
            check_applies(super().get(self.on, build=False).src, self.user_patches, self.on)

    def _origin(self, name: str) -> dict:
        """Not `git`: the build applies self.patches() with `git am` (change_source,
        harness/obtain/build.py)."""
        if name == self.patched:
            return {"kind": "patches", "on": super()._origin(self.on),
                    "patches": [p.name for p in self.user_patches]}
        return super()._origin(name)


class OnTree(PatchedPlan):
    """Patches on a tree already built (any tree of the cache: a change's own tree, after
    + the follow-ups), as one tree more, built from that tree's objects as PatchedPlan
    builds its tree (`harness mutate`: a mutant on its from-tree, one object compiled
    again). Its key is the tree's key and the patches' sha256."""

    def __init__(self, tree, patches: list, layout, **kw):
        Plan.__init__(self, ",".join(sorted(tree.backends)), layout, **kw)
        self.base, self.on = tree, tree.name
        self.user_patches = patch_files(patches)
        if not self.user_patches:
            raise HarnessError("no patch to apply")
        self.patched = tree_name(tree.name, self.user_patches)

    @property
    def names(self) -> tuple:
        return (self.on, self.patched)

    def parent(self, name: str):
        return self.on if name == self.patched else None

    def key(self, name: str) -> str:
        return self.base.key if name == self.on else super().key(name)

    def get(self, name: str, build=True):
        if name == self.on:
            return self.base
        if name == self.patched and build and not (self.path(name) / "stamp.json").is_file():
            check_applies(self.base.src, self.user_patches, self.on)
        return Plan.get(self, name, build)

    def _origin(self, name: str) -> dict:
        if name == self.patched:
            return {"kind": "patches", "on": {"tree": self.base.key},
                    "patches": [p.name for p in self.user_patches]}
        return self.base.source
