"""Cases: what a patch series claims, as data the engine loads.

A case is one module here (e.g. pr24760: FFmpeg PR #24760 on the series #24702) with its
patches under builds/patches/. It holds the rows a run is judged against, the tables the
`table` command runs, the hangs it expects, the reverted commits and the sanitizer
claims, each quoting the sentence it comes from. The engine (harness/) imports no case:
the command line loads one and hands the runner what to expect (harness.run.runner.Expect).
"""

import importlib
import pkgutil

from harness.errors import HarnessError

DEFAULT = "pr24760"


def names() -> list:
    return sorted(m.name for m in pkgutil.iter_modules(__path__))


def load(name: str = DEFAULT):
    """The case module `name`; an unknown name is bad input."""
    if name not in names():
        raise HarnessError(f"unknown case '{name}' (known: {', '.join(names())})")
    return importlib.import_module(f"{__name__}.{name}")
