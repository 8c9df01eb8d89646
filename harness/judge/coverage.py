"""Which of a change's lines ran under a fault: the change's tree has its own objects built
with gcov's instrumentation (harness/obtain/trees.py, a patched tree's `coverage`), each
of its site runs writes the counters of what ran from the fault's arm to its end into one
directory (GCOV_PREFIX, merged by gcov's runtime), and gcov reads them back for the files
the change touches: each changed line that is code, executed under a fault or not, and
the branches on it taken or not."""

import json
import os
import shutil
import subprocess
from pathlib import Path


def request(tree, directory: Path) -> dict | None:
    """What a site run on `tree` is given to write its counters into `directory` (the
    build's absolute paths stripped to the tree's own), None for a tree built without
    instrumentation."""
    cov = tree.stamp.get("coverage")
    if not cov:
        return None
    return {"dir": str(directory), "strip": len(Path(cov["build_src"]).parts) - 1}


def read(tree, directory: Path, paths) -> dict:
    """path -> {line: (count, branches taken, branches)} of every line gcov knows in each
    of `paths` (repository paths of the tree's sources) whose object was instrumented;
    a path whose object was not, or that no run reached, is left out."""
    out = {}
    for path, lines in gcov_lines(tree, directory, paths).items():
        out[path] = {n: (line.get("count", 0),
                         sum(b.get("count", 0) > 0 for b in line.get("branches", [])),
                         len(line.get("branches", [])))
                     for n, line in lines.items()}
    return out


def gcov_lines(tree, directory: Path, paths, unrun: bool = False) -> dict:
    """path -> {line: gcov's JSON record of the line} for each of `paths` whose object
    was instrumented; with `unrun`, also those no run reached (gcov reads the .gcno
    alone: every line 0)."""
    out = {}
    gcov = shutil.which("gcov")
    if gcov is None:
        return out
    for path in paths:
        stem = Path(path).with_suffix("")
        gcno, gcda = tree.src / f"{stem}.gcno", directory / f"{stem}.gcda"
        if not gcno.is_file() or not (gcda.is_file() or unrun):
            continue
        gcda.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(gcno, gcda.with_suffix(".gcno"))
        r = subprocess.run([gcov, "--json-format", "--stdout", "--branch-probabilities",
                            "--object-directory", str(gcda.parent), str(gcda)],
                           cwd=tree.src, capture_output=True, text=True)
        if r.returncode != 0:
            continue
        for doc in r.stdout.splitlines():
            try:
                data = json.loads(doc)
            except ValueError:
                continue
            for f in data.get("files", []):
                if os.path.normpath(f.get("file", "")) != os.path.normpath(path):
                    continue
                lines = out.setdefault(path, {})
                for line in f.get("lines", []):
                    lines[line["line_number"]] = line
    return out


def changed_lines(touched, lines: dict) -> dict:
    """The report of the change's lines: per file, the changed lines that are code (gcov
    knows them), those executed under a fault, and the branches on changed lines taken
    and not; the totals. {} when nothing was instrumented."""
    files = {}
    for path, changed in touched.changed().items():
        known = lines.get(path)
        if known is None:
            continue
        code = sorted(n for n in changed if n in known)
        files[path] = {
            "changed": code,
            "executed": [n for n in code if known[n][0] > 0],
            "branches": sum(known[n][2] for n in code),
            "branches_taken": sum(known[n][1] for n in code),
            "not_taken": [n for n in code if known[n][1] < known[n][2]],
        }
    if not files:
        return {}
    return {"files": files,
            "changed": sum(len(f["changed"]) for f in files.values()),
            "executed": sum(len(f["executed"]) for f in files.values()),
            "branches": sum(f["branches"] for f in files.values()),
            "branches_taken": sum(f["branches_taken"] for f in files.values())}
