"""`python -m harness.obtain.backends WHAT [BACKENDS]`: what the Makefile, builds/deps.sh
and the CI workflows read of the registry, with no virtualenv (the standard library only).

    names [SET]      the backends (of SET: all, default or a list), comma-separated
    libs SET         the system libraries SET's links need: `library package` a line
    shards           the CI shards as a JSON list of {"backends", "shard"}
"""

import json
import sys

from harness.errors import ExitStatus, HarnessError
from harness.obtain import backends


def main(argv: list) -> int:
    what, *rest = argv or ["names"]
    try:
        if what == "names":
            print(",".join(backends.parse(rest[0] if rest else "all")))
        elif what == "libs":
            for lib, package in backends.system_libs(backends.parse(rest[0] if rest else "all")):
                print(lib, package)
        elif what == "shards":
            print(json.dumps(backends.shards()))
        else:
            raise HarnessError(f"unknown question '{what}' (names, libs SET, shards)")
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return ExitStatus.BAD_INPUT
    return ExitStatus.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
