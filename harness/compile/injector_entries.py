"""The cache's injectors-<hash> entries as `harness cache` sees them
(harness/compile/injector_build.py): the one of these injector sources is named, an older
one is not; and each one's check (its manifest)."""

from pathlib import Path

from harness.compile import injector_build
from harness.paths import Entry

KIND = "injectors"


def entries(root: Path) -> list:
    """Every injectors entry of the cache at `root`."""
    current = f"injectors-{injector_build._digest(injector_build.SRC_DIR, injector_build.CC)}"
    return [Entry(d, KIND, "these injector sources" if d.name == current else "",
                  "" if d.name == current else "older injector sources")
            for d in sorted(root.glob("injectors-*"))]


def verify(path: Path) -> None:
    """Each file of an injectors entry is the one its manifest records (an entry from
    before manifests is loaded, and left without one): a cache error if not."""
    injector_build.check(path, record=False)
