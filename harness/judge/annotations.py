"""What a forge's job shows of a diff besides its log, in CI (GITHUB_ACTIONS or
FORGEJO_ACTIONS set): one `::error file=...,line=...::` workflow command per regression,
at the FFmpeg source line of its first frame (the innermost frame of the site's stack in
the to-tree whose file is FFmpeg's, the path as the repository has it), so the forge marks
that line of the change; and the Markdown report appended to the job's summary
($GITHUB_STEP_SUMMARY, when set)."""

import os
import re
import subprocess
from pathlib import Path

from harness.judge.diff import Change
from harness.judge.leaknote import leak_note

CI_VARIABLES = ("GITHUB_ACTIONS", "FORGEJO_ACTIONS")
_FRAME = re.compile(r"([^\s()<]+) \(([^():]+):(\d+)\)")


def in_ci(environ=os.environ) -> bool:
    return any(environ.get(v) for v in CI_VARIABLES)


def frames(where: str) -> list:
    """(function, file name, line) of each frame of `f (file.c:12) < g (file.c:34)`,
    innermost first; frames without a line are left out."""
    return [(f, file, int(line)) for f, file, line in _FRAME.findall(where or "")]


def _ls_files(repo) -> list:
    if not repo or not Path(repo).is_absolute() or not (Path(repo) / ".git").exists():
        return []
    r = subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True)
    return r.stdout.splitlines() if r.returncode == 0 else []


def source_paths(d, environ=os.environ) -> dict:
    """file name -> repository path: the paths the change touches, else a file of the
    to-tree's source or of the job's checkout (GITHUB_WORKSPACE: the FFmpeg clone a
    workflow runs in; git ls-files of each, where it is on this machine: a merge job may
    have neither tree). A name two files of those share, and the change touches
    neither, is left out."""
    out, twice = {}, set()
    for path in _ls_files(d.sides[1].tree.src) + _ls_files(environ.get("GITHUB_WORKSPACE")):
        name = os.path.basename(path)
        if out.get(name, path) != path:
            twice.add(name)
        out[name] = path
    for name in twice:
        del out[name]
    for path in d.touched.paths:
        out[os.path.basename(path)] = path
    return out


def place(where: str, paths: dict):
    """(repository path, line) of the first frame whose file is one of `paths`, else None."""
    for _, file, line in frames(where):
        if file in paths:
            return paths[file], line
    return None


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def lines(d, environ=os.environ) -> list:
    """One `::error` workflow command per regression of Diff `d`."""
    regressions = [p for p in d.pairs if p.change is Change.REGRESSION]
    paths = source_paths(d, environ) if regressions else {}
    out = []
    for p in regressions:
        a, b = p.sites
        where = (b.where if b is not None and b.where else p.where)
        at = place(where, paths)
        title = f"fault regression: {p.group.key}"
        classes = " -> ".join(s.cls.value if s is not None else "none" for s in p.sites)
        value = f" with {p.value}" if p.value else ""
        leak = leak_note(p, d.sides[0].label, d.sides[1].label)
        message = (f"{classes} when this call fails{value} ({d.sides[0].label} -> "
                   f"{d.sides[1].label})"
                   f": {where}\n{leak + chr(10) if leak else ''}reproduce: {(b or a).command}")
        props = [f"file={_escape(at[0], True)}", f"line={at[1]}"] if at else []
        props.append(f"title={_escape(title, True)}")
        out.append(f"::error {','.join(props)}::{_escape(message)}")
    return out


def publish(d, markdown: str, environ=os.environ, out=None) -> None:
    """In CI, the annotations on `out` (stdout); the report appended to the job's summary
    file when the forge names one (GITHUB_STEP_SUMMARY)."""
    import sys

    from harness.errors import HarnessError
    if in_ci(environ):
        for line in lines(d, environ):
            print(line, file=out or sys.stdout, flush=True)
    summary = environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a") as f:
                f.write(markdown.rstrip("\n") + "\n")
        except OSError as e:
            raise HarnessError(f"GITHUB_STEP_SUMMARY {summary}: cannot be written "
                               f"({e.strerror})") from None
