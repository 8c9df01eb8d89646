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
from dataclasses import dataclass, replace
from pathlib import Path

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
PARSED = (".c", ".h", ".cpp", ".cc", ".hpp")  # what harness.judge.csource reads


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
    loose: frozenset | None = None  # the file names with a change in no function (a
                                    # declaration, a macro, a table): placed(); None: not
                                    # read from the sources, so every file it touches

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

    @property
    def outside(self) -> frozenset:
        """The file names a stack through which is marked "file": those changed outside
        their functions (`loose`), or, not read from the sources, every one."""
        return self.files if self.loose is None else self.loose

    def mark(self, where: str) -> str:
        """'function' when the stack runs through a function the change touches, 'file'
        when only through a file it changes outside its functions, '' otherwise."""
        frames = _FRAME.findall(where or "")
        if any((file, _function(f)) in self.functions for f, file in frames):
            return "function"
        if any(file in self.outside for _, file in frames):
            return "file"
        return ""

    def code_paths(self) -> dict:
        """file name -> the repository paths of that name the change touches: those whose
        code could run through a function or a declaration it changes."""
        files = {file for file, _ in self.functions} | self.outside
        out = {}
        for path in self.paths:
            if os.path.basename(path) in files:
                out.setdefault(os.path.basename(path), []).append(path)
        return out

    def to_json(self) -> dict:
        return {"known": self.known, "paths": list(self.paths),
                "functions": [f"{name} ({file})" for file, name in sorted(self.functions)],
                "outside_functions": sorted(self.outside),
                "lines": {path: sorted(ls) for path, ls in self.lines}}

    def names(self) -> list:
        """`function (file)` for each function touched, sorted."""
        return [f"{name} ({file})" for file, name in sorted(self.functions)]


UNKNOWN = Touched(known=False)


def _function(frame: str) -> str:
    """A frame's function as its source names it: a C++ name without its scope, a copy
    the compiler made without its suffix (`separate_output_names.constprop.0`, `.isra.0`,
    `.part.0`, `.cold`)."""
    return frame.split("::")[-1].split(".")[0]


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


def placed(t: Touched, old_root: Path, new_root: Path) -> Touched:
    """`t` with its functions read from both trees' sources (harness.judge.csource): the
    function each changed line is in, a removed line's in the from-tree (under
    `old_root`), an added one's in the to-tree (under `new_root`), its signature included;
    and the files with a changed line in none (`loose`: a declaration, a macro, a table, a
    file the parser does not read), which any stack through them may show; a file that
    defines no function (a header of declarations and macros) is on no stack, so marks
    none. A blank line or a comment changes nothing. A file neither tree has keeps the
    names git's hunks gave."""
    from harness.judge import csource
    functions, loose = set(), set()
    hunks = dict(t.hunks)
    for path in t.paths:
        if not path.endswith(CODE):
            continue
        file = os.path.basename(path)
        texts = [_text(root / path) for root in (old_root, new_root)]
        if not path.endswith(PARSED) or texts == [None, None]:
            loose.add(file)
            functions |= {f for f in t.functions if f[0] == file}
            continue
        for text, pick in zip(texts, (lambda h: (h[0], h[1]), lambda h: (h[2], h[3]))):
            if text is None:
                continue
            spans, lines = csource.spans(text), text.splitlines()
            if not spans:
                continue
            code = csource.blank(text).splitlines()
            for first, count in map(pick, hunks.get(file, ())):
                for n in range(first, first + count):
                    if n > len(lines) or not _code(lines, code, n):
                        continue
                    name = next((f for f, a, z in spans if a <= n <= z), None)
                    if name:
                        functions.add((file, _function(name)))
                    else:
                        loose.add(file)
    return replace(t, functions=frozenset(functions), loose=frozenset(loose))


def _code(lines: list, code: list, n: int) -> bool:
    """Whether line `n` holds code: not blank, not only a comment (a preprocessor line, or
    its continuation, is code)."""
    return bool(code[n - 1].strip() or lines[n - 1].lstrip().startswith("#")
                or (n > 1 and lines[n - 2].rstrip().endswith("\\")))


def _text(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


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
    return placed(parse(r.stdout), a.src, b.src)
