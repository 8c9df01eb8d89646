"""Keep a pull request's trees in the CI cache: remove every tree built from a clone's
commit (`--git-dir`) other than the commits given.

    python ci/keep-trees.py COMMIT...      (the cache: FFDNN_CACHE, as the harness finds it)

`python -m harness cache gc` keeps the trees of a user's clone (any commit, built by this
recipe): on a developer's machine they are the user's own. In the pull-request jobs
(ci/README.md) a cache entry restored from another pull request carries that one's base
and head; run this first, then `cache gc` collects their modules. Trees of a release
(the cases' trees) are left to gc. Prints one line a tree removed; exit 2 on bad input.
"""

import json
import re
import shutil
import sys

from harness.errors import ExitStatus
from harness.paths import cache_root

COMMIT = re.compile(r"[0-9a-f]{40}")


def main(argv: list) -> int:
    keep = set(argv)
    if not keep or not all(COMMIT.fullmatch(c) for c in keep):
        print("error: give the commits to keep, each as 40 hex digits", file=sys.stderr)
        return ExitStatus.BAD_INPUT
    trees = cache_root() / "trees"
    removed = 0
    for d in sorted(trees.glob("*")) if trees.is_dir() else ():
        if d.name.startswith(".tmp-") or not d.is_dir():
            continue
        try:
            source = json.loads((d / "stamp.json").read_text()).get("source", {})
        except (OSError, ValueError):
            continue  # not a tree this can read: gc's to judge
        if source.get("kind") == "git" and source.get("commit") not in keep:
            print(f"remove trees/{d.name}: built from commit {source.get('commit')}")
            shutil.rmtree(d)
            removed += 1
    print(f"kept the trees of {', '.join(sorted(c[:12] for c in keep))}; removed {removed}")
    return ExitStatus.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
