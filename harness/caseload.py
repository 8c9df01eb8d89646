"""Cases by name: the engine loads a case (harness/cases/<name>.py, data about one patch series)
the way FATE's runner reads a test's definition, knowing it only by its name; the default
is the one harness/cases/__init__.py names, read when it is asked for."""

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


class CaseLacks(HarnessError, AttributeError):
    """A command asked a case for a part it does not claim."""


class Case:
    """A loaded case: its module's names; one it lacks is bad input for the command that
    needs it (a case of fixes has no PR tables to print)."""

    def __init__(self, name: str):
        self.name = name
        self.module = importlib.import_module(f"harness.cases.{name}")

    def __getattr__(self, part: str):
        try:
            return getattr(self.module, part)
        except AttributeError:
            raise CaseLacks(f"case '{self.name}' has no {part} for this command "
                            f"(it has: {', '.join(self.parts())})") from None

    def parts(self) -> list:
        return sorted(n for n in vars(self.module) if n.isupper() and not n.startswith("_"))


def load(name: str | None = None) -> Case:
    """The case `name` (None: the default); an unknown name is bad input."""
    name = default() if name is None else name
    if name not in names():
        raise HarnessError(f"unknown case '{name}' (known: {', '.join(names())})")
    return Case(name)
