"""Cases by name: the engine loads a case (cases/<name>.py, data about one patch series)
the way FATE's runner reads a test's definition, knowing it only by its name."""

import importlib

from harness.errors import HarnessError
from harness.paths import PROJECT

DEFAULT = "pr24760"


def names() -> list:
    return sorted(p.stem for p in (PROJECT / "cases").glob("*.py") if p.stem != "__init__")


def load(name: str = DEFAULT):
    """The case module `name`; an unknown name is bad input."""
    if name not in names():
        raise HarnessError(f"unknown case '{name}' (known: {', '.join(names())})")
    return importlib.import_module(f"cases.{name}")
