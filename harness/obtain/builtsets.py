"""The backend sets whose trees are built: what a command uses when the user names
none (no --backend, no FFDNN_BACKENDS), so that `python -m harness run` after `make`
finds the trees `make` built instead of starting a cold build of another set.

A set counts when every tree the command needs is in the cache under the key this
checkout computes for it (so a tree of an older recipe does not), and every backend
it was built with is installed as its stamp says (so nothing is fetched to find out).
"""

import json
import os

from harness.errors import HarnessError
from harness.paths import cache_root


def _stamps() -> list:
    out = []
    for f in sorted((cache_root() / "trees").glob("*/stamp.json")):
        try:
            out.append(json.loads(f.read_text()))
        except (OSError, ValueError):
            continue
    return out


def _installed_versions() -> list:
    out = []
    for f in (cache_root() / "backends").glob("*/backend.json"):
        try:
            out.append(json.loads(f.read_text()).get("versions"))
        except (OSError, ValueError):
            continue
    return out


def candidates(names) -> list:
    """Backend sets (sorted tuples) some tree of `names` was built with, no sanitizer,
    whose backends are all installed as built; largest first."""
    have = _installed_versions()
    sets = set()
    for s in _stamps():
        if s.get("tree") not in names or s.get("sanitizer"):
            continue
        if all(b.get("versions") in have for b in s.get("backends", [])):
            sets.add(tuple(sorted(b["name"] for b in s["backends"])))
    return sorted(sets, key=lambda t: (-len(t), t))


def choose(need: set, names, layout) -> str | None:
    """The largest built set covering `need` whose trees `names` (of `layout`) are all
    current."""
    from harness.obtain.trees import Plan
    for combo in candidates(names):
        if not set(need) <= set(combo):
            continue
        try:
            plan = Plan(",".join(combo), layout)
            if all((plan.path(n) / "stamp.json").is_file() for n in names):
                return ",".join(combo)
        except HarnessError:
            continue
    return None


def backend_set(given, need: set, names, layout) -> str:
    """--backend if given, else FFDNN_BACKENDS, else the built set that covers `need`,
    else the smallest set that does (whose trees are then built, as Plan.get says)."""
    if given:
        return given
    if os.environ.get("FFDNN_BACKENDS"):
        return os.environ["FFDNN_BACKENDS"]
    found = choose(need, names, layout)
    if found:
        return found
    # nothing built covers it: the smallest set that does; Plan.get says so on stderr
    # before it starts the cold build
    return ",".join(sorted(need)) if set(need) - {"onnx"} else "default"
