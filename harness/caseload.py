"""Cases by name: the engine loads a case (harness/cases/<name>.py, data about one patch series)
the way FATE's runner reads a test's definition, knowing it only by its name: its module's
one `CASE` (harness/case.py's Case); the default is the one harness/cases/__init__.py
names, read when it is asked for."""

import importlib

from harness.errors import HarnessError
from harness.paths import PROJECT


def default() -> str:
    """The case a command judges against when --case names none (harness/cases/__init__.py)."""
    return importlib.import_module("harness.cases").DEFAULT


def names() -> list:
    """The cases: each a module (harness/cases/<name>.py) or a package (harness/cases/<name>/)."""
    here = PROJECT / "harness" / "cases"
    return sorted({p.stem for p in here.glob("*.py") if p.stem != "__init__"}
                  | {p.parent.name for p in here.glob("*/__init__.py")})


def load(name: str | None = None):
    """The case `name` (None: the default): its module's CASE, a harness.case.Case; an
    unknown name is bad input."""
    name = default() if name is None else name
    if name not in names():
        raise HarnessError(f"unknown case '{name}' (known: {', '.join(names())})")
    case = getattr(importlib.import_module(f"harness.cases.{name}"), "CASE", None)
    if case is None or case.name != name:
        raise HarnessError(f"case '{name}': its module defines no CASE = Case('{name}', ...)")
    return case
