"""Which trees a plan builds: each a name, the tree it starts from, and the patches of a
series it applies. The engine (harness/obtain/trees.py) builds whatever layout it is
given; a case (harness/cases/) declares its own (its layout), and two refs of a clone of your
own make a chain of their own (`Layout.chain`)."""

from dataclasses import dataclass
from pathlib import Path

from harness.errors import BuildError, HarnessError


@dataclass(frozen=True)
class TreeSpec:
    """One tree of a layout: built from `parent`'s entry (None: from the release itself)
    plus the patches numbered `patches` (1 is the series file's first line)."""

    name: str
    parent: str | None = None
    patches: tuple = ()


@dataclass(frozen=True)
class Layout:
    """The trees, parents first; the folder whose `series` file lists the patches the
    numbers count; the trees that are built again under a sanitizer toolchain (the one
    without the fix, the one with it), and the backend set each sanitizer's variant is
    built with (sanitizer -> backends: only what its claims need); the pinned release
    (harness/obtain/releases.py) the series was adapted to, which its trees start from
    unless a command names another (--release), and on which every patch must apply."""

    trees: tuple
    series_dir: Path | None = None
    sanitizer_trees: tuple = ()
    sanitizer_backends: tuple = ()   # ((sanitizer, backends), ...)
    filters: tuple = ()   # FFmpeg filters its claims run beyond the engine's (configure's
                          # --enable-filter), as a case's commit claims run derain and sr
    release: str | None = None   # a version pinned in releases.py; None: a clone's refs

    def __post_init__(self):
        seen = []
        for t in self.trees:
            if t.name in seen or (t.parent is not None and t.parent not in seen):
                raise HarnessError(f"layout: tree '{t.name}' is named twice or comes "
                                   f"before its parent '{t.parent}'")
            if t.patches and self.series_dir is None:
                raise HarnessError(f"layout: tree '{t.name}' applies patches of no series")
            seen.append(t.name)
        for name in self.sanitizer_trees:
            if name not in seen or (self.spec(name).parent not in (None, *self.sanitizer_trees)):
                raise HarnessError(f"layout: sanitizer tree '{name}' is not a tree of the "
                                   "layout, or its parent is not one")

    @classmethod
    def chain(cls, names, filters: tuple = ()) -> "Layout":
        """Trees that follow one another, each built from the one before, no patch."""
        names = list(names)
        return cls(tuple(TreeSpec(n, names[i - 1] if i else None) for i, n in enumerate(names)),
                   filters=tuple(filters))

    @property
    def names(self) -> tuple:
        return tuple(t.name for t in self.trees)

    def spec(self, name: str) -> TreeSpec:
        for t in self.trees:
            if t.name == name:
                return t
        raise HarnessError(f"unknown tree '{name}' (known: {', '.join(self.names)})")

    def parent(self, name: str) -> str | None:
        return self.spec(name).parent

    def patch_files(self) -> list[Path]:
        """Every patch of the series, in its order."""
        series = self.series_dir / "series"
        if not series.is_file():
            raise BuildError(f"{series}: missing (the list of the series' patches)")
        names = [l.strip() for l in series.read_text().splitlines() if l.strip()]
        return [self.series_dir / n for n in names]

    def patches(self, name: str) -> list[Path]:
        """The patch files `name` applies on its parent."""
        numbers = self.spec(name).patches
        if not numbers:
            return []
        files = self.patch_files()
        return [files[i - 1] for i in numbers]
