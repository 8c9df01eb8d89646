"""A change made on purpose to a built tree's source, for the tests that show what the gate
does with it: a clone of the tree's git repository with some lines rewritten and committed,
and that commit as a git am-able patch."""

import os
import subprocess

from harness.obtain.recipe import GIT_ID


def commit(tree, tmp_path, path: str, old: str, new: str, subject: str):
    """A clone of `tree`'s source (sharing its objects) with `old` (which must stand once
    in `path`) rewritten as `new` and committed: the clone's directory."""
    repo = tmp_path / "ffmpeg"
    subprocess.run(["git", "clone", "-q", "--shared", str(tree.src), str(repo)], check=True)
    text = (repo / path).read_text()
    assert text.count(old) == 1, f"{tree.name} has the lines once in {path}: {old}"
    (repo / path).write_text(text.replace(old, new))
    subprocess.run(["git", "-C", str(repo), "commit", "-qam", subject], check=True,
                   env={**os.environ, **GIT_ID})
    return repo


def patch(tree, tmp_path, path: str, old: str, new: str, subject: str) -> str:
    """commit()'s change as a patch file (git format-patch): its path."""
    repo = commit(tree, tmp_path, path, old, new, subject)
    out = subprocess.run(["git", "-C", str(repo), "format-patch", "-1", "-o", str(tmp_path)],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, **GIT_ID})
    return out.stdout.strip()
