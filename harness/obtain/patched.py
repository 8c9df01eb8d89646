"""A tree the user derives from another with patches of their own (`diff --patch FILE`).

The tree starts as a copy of the named tree's cache entry, objects included, gets the
patches with `git am`, and is built in place: the way after is built from before
(harness/obtain/trees.py), so only the files the patches touch compile again. Its key is
the parent's key and the patches' sha256, so the same patches on the same tree are
built once.
"""

import re
from pathlib import Path

from harness.errors import HarnessError
from harness.obtain.trees import Plan


def tree_name(on: str, patches: list) -> str:
    """after+drop-check for one patch, after+4-patches for several: a directory name."""
    if len(patches) == 1:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(patches[0]).stem)[:40].strip("-.")
        return f"{on}+{stem or 'patch'}"
    return f"{on}+{len(patches)}-patches"


def patch_files(paths: list) -> list:
    """The user's patch files, resolved; a missing one is bad input."""
    out = []
    for p in paths:
        path = Path(p).expanduser().resolve()
        if not path.is_file():
            raise HarnessError(f"{p}: patch file not found")
        out.append(path)
    return out


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

    def _origin(self, name: str) -> dict:
        """Not `git`: the build applies self.patches() with `git am` (Plan._change_source)."""
        if name == self.patched:
            return {"kind": "patches", "on": super()._origin(self.on),
                    "patches": [p.name for p in self.user_patches]}
        return super()._origin(name)
