"""What a change touches in FFmpeg's code: the files and functions that differ between two
trees' sources (read with git from the trees' own repositories, C and C++ hunks named by
git's own `cpp` function-name rule), and whether a site's stack, a census's
`f (file.c:12) < g (file.c:34)`, runs through one of them.

A diff uses it to say which sites could show the change at all, and which of those are
blind (harness/judge/diff.py)."""

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass

_FILE = re.compile(r"^diff --git a/(\S+) b/(\S+)$")
_HUNK = re.compile(r"^@@ [^@]* @@ ?(.*)$")
_RANGE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_LINED = re.compile(r"([^\s()<]+) \(([^():]+):(\d+)\)")
_CALL = re.compile(r"([A-Za-z_][\w:~]*)\s*\(")
_FRAME = re.compile(r"([^\s()<]+) \(([^():]+)(?::\d+)?\)")
NOT_NAMES = frozenset({"if", "for", "while", "switch", "return", "sizeof", "defined",
                       "av_unused", "attribute_deprecated", "__attribute__"})
# a function's definition: a line that starts at column 0 with an identifier (its type),
# as git's cpp rule reads it
_DEFINITION = re.compile(r"^[A-Za-z_][\w\s\*:<>,]*?\b([A-Za-z_][\w:~]*)\s*\([^;]*$")
CODE = (".c", ".h", ".cpp", ".cc", ".hpp", ".m", ".S", ".asm")


@dataclass(frozen=True)
class Touched:
    """The change between two trees: the repository paths it changes, their file names
    (what a stack shows) and the functions whose code it changes, each as (file name,
    function), since static functions of the same name live in many files (activate(),
    flush_frame()). `known` False: the change could not be read (a tree with no git
    repository); nothing is marked then."""
    paths: tuple = ()
    functions: frozenset = frozenset()
    known: bool = True
    lines: tuple = ()  # ((path, (line, ...)), ...): the to-tree's changed lines of each code
                       # file (a removal: the line after it, where the code went on)
    hunks: tuple = ()  # ((file name, ((from start, count, to start, count), ...)), ...)

    def map_line(self, file: str, line: int) -> int | None:
        """A line of the from-tree's `file` (a file name, as a stack names it) in the
        to-tree: moved by the hunks before it, None when the change rewrote it."""
        shift = 0
        for a, b, c, d in dict(self.hunks).get(file, ()):
            if (line <= a) if b == 0 else (line < a):
                break
            if b and line < a + b:
                return None
            shift += d - b
        return line + shift

    def map_where(self, where: str) -> str | None:
        """A census's `f (file.c:12) < g (...)` of the from-tree with its line numbers as
        the to-tree has them; None when the change rewrote one of its lines."""
        out, pos = [], 0
        for m in _LINED.finditer(where or ""):
            n = self.map_line(m.group(2), int(m.group(3)))
            if n is None:
                return None
            out += [where[pos:m.start(3)], str(n)]
            pos = m.end(3)
        return "".join(out) + (where or "")[pos:]

    def changed(self) -> dict:
        """path -> the to-tree's changed lines in it."""
        return {path: set(ls) for path, ls in self.lines}

    @property
    def files(self) -> frozenset:
        return frozenset(os.path.basename(p) for p in self.paths)

    def mark(self, where: str) -> str:
        """'function' when the stack runs through a function the change touches, 'file'
        when only through a file it touches, '' when through neither."""
        frames = _FRAME.findall(where or "")
        if any((file, f.split("::")[-1]) in self.functions for f, file in frames):
            return "function"
        if any(file in self.files for _, file in frames):
            return "file"
        return ""

    def to_json(self) -> dict:
        return {"known": self.known, "paths": list(self.paths),
                "functions": [f"{name} ({file})" for file, name in sorted(self.functions)],
                "lines": {path: sorted(ls) for path, ls in self.lines}}

    def names(self) -> list:
        """`function (file)` for each function touched, sorted."""
        return [f"{name} ({file})" for file, name in sorted(self.functions)]


UNKNOWN = Touched(known=False)


def _name(line: str) -> str | None:
    """The function a hunk header or a changed line defines: the last identifier called
    before its first parenthesis that is not a keyword."""
    names = [n for n in _CALL.findall(line.split("=")[0]) if n not in NOT_NAMES]
    return names[0].split("::")[-1] if names else None


def parse(diff_text: str) -> Touched:
    """The paths and functions of a `git diff -U0` (C and C++ hunk headers name the
    enclosing function; a changed line that defines one names it too)."""
    paths, functions, code, file, lines, hunks = [], set(), False, "", {}, {}
    for line in diff_text.splitlines():
        m = _FILE.match(line)
        if m:
            path = m.group(2)
            paths.append(path)
            code, file = path.endswith(CODE), os.path.basename(path)
            continue
        if not code:
            continue
        r = _RANGE.match(line)
        if r:
            a, b, c, d = (int(g) if g is not None else 1 for g in r.groups())
            lines.setdefault(paths[-1], set()).update(range(c, c + d) if d else (c + 1,))
            hunks.setdefault(file, []).append((a, b, c, d))
        m = _HUNK.match(line)
        if m:
            name = _name(m.group(1)) if "(" in m.group(1) else None
            if name:
                functions.add((file, name))
            continue
        if line[:1] in "+-" and not line.startswith(("+++", "---")):
            body = line[1:]
            d = _DEFINITION.match(body)
            if d and not body.rstrip().endswith(";") and d.group(1) not in NOT_NAMES:
                functions.add((file, d.group(1).split("::")[-1]))
    return Touched(tuple(dict.fromkeys(paths)), frozenset(functions),
                   lines=tuple((p, tuple(sorted(ls))) for p, ls in lines.items()),
                   hunks=tuple((f, tuple(h)) for f, h in hunks.items()))


def _tree_id(tree) -> str | None:
    tid = tree.stamp.get("source_tree")
    if tid:
        return tid
    r = subprocess.run(["git", "-C", str(tree.src), "rev-parse", "HEAD^{tree}"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def same_source(a, b) -> bool:
    """Whether two built trees have the same sources (their stamps' tree ids)."""
    ta, tb = _tree_id(a), _tree_id(b)
    return ta is not None and ta == tb


def between(a, b) -> Touched:
    """What changes from tree `a` to tree `b` (harness.obtain.tree.Tree): their sources'
    git trees compared in b's repository, with a's objects lent to it (nothing written)."""
    ta, tb = _tree_id(a), _tree_id(b)
    if not ta or not tb or not (a.src / ".git").is_dir() or not (b.src / ".git").is_dir():
        return UNKNOWN
    if ta == tb:
        return Touched()
    with tempfile.NamedTemporaryFile("w", prefix="ffdnn-attributes-") as attrs:
        attrs.write("".join(f"*{ext} diff=cpp\n" for ext in CODE))
        attrs.flush()
        env = dict(os.environ, GIT_ALTERNATE_OBJECT_DIRECTORIES=str(a.src / ".git" / "objects"))
        r = subprocess.run(["git", "-c", f"core.attributesFile={attrs.name}", "-C", str(b.src),
                            "diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames",
                            ta, tb], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return UNKNOWN
    return parse(r.stdout)
