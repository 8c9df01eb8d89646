"""The cache's downloads as `harness cache` sees them: the verified source (src/), the
backends (backends/), the private apt state (apt/), the members of pinned wheels
(packages/), the models (models/) and the clips (clips/). Each is kept: nothing collects
a download."""

from pathlib import Path

from harness.paths import Entry

KIND = "download"
DOWNLOADS = ("src", "backends", "apt", "packages", "models", "clips")


def entries(root: Path) -> list:
    """Each download directory of the cache at `root` there is, named as kept."""
    return [Entry(root / part, KIND, "kept (downloads are not collected)")
            for part in DOWNLOADS if (root / part).exists()]
