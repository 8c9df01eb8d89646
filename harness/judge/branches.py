"""The error branches of FFmpeg's C and C++ source, read from its text: every branch (an
`if`'s or an `else`'s body, a `case` of a `switch`, a C++ `catch`, the call of a macro
whose body is such an `if`) whose own statements return an error (AVERROR(...), an
AVERROR_ code, a `*_ERROR`/`*_FAIL` constant, a negative number, NULL after a NULL test,
the variable its condition tested), jump to an error label (`goto err`, `goto fail`),
set an error code (`ret = AVERROR(ENOMEM)`) or log at AV_LOG_ERROR
(harness/judge/errorpath.py).

Enough of C is parsed for that, and no more: on the file's blanked text, with its function
bodies found at the top level (harness/judge/csource.py), the statements of each are read
recursively (blocks, if/else, loops, switch with its labels, try/catch, labels, simple
statements up to their `;`). Each branch keeps where its first line of code is, which is
what gcov's counts say ran (harness/judge/branchcov.py), and its own statements with their
offsets, which is what the mutation operators change (harness/judge/mutants.py).
"""

import re
from dataclasses import dataclass, field, replace

from harness.judge.csource import Source, squeeze
from harness.judge.errorpath import actions


@dataclass(frozen=True)
class Stmt:
    """One statement of a function body: its kind (simple, block, if, loop, switch, try,
    label, case), its offsets in the text (the end after its `;` or `}`) and, for a
    compound one, the statements it holds directly."""
    kind: str
    start: int
    end: int
    text: str = ""                                   # a simple statement's code, squeezed
    children: tuple = ()
    label: str = ""                                  # a label's name, a case's `case X`


@dataclass(frozen=True)
class Branch:
    path: str
    function: str
    line: int          # where it starts: its `if`, `else`, `case`, `catch`, or the macro call
    kind: str          # if, else, case, catch, macro
    condition: str     # its condition as written (squeezed); `else` of one, a case's label
    first: int         # its first line of code: gcov's count of it says the branch ran
    last: int          # its last line
    inline: bool       # its code starts on the line its condition ends on
    why: tuple         # what makes it an error branch, each as written
    cond_span: tuple = (0, 0)   # an if's condition, offsets inside its parentheses
    cond_line: int = 0          # the line its condition ends on
    next_line: int = 0          # an if's: the line of the statement after it in its block
                                # (0: the block ends there)
    jumps: bool = False         # its last own statement leaves (return, goto, break, continue)
    prev_line: int = 0          # an if's: the line of the simple statement before it in its
                                # block, which runs into its condition (0: none)
    own: tuple = field(default=(), compare=False)   # its own statements (Stmt)
    offset: int = field(default=0, compare=False)   # where it starts in the text

    @property
    def key(self) -> str:
        """What names it across trees whose line numbers differ: file, function, kind and
        condition (with the branch's order among those alike, when several are alike)."""
        return f"{self.path} :: {self.function} :: {self.kind} {self.condition}"


class _Source(Source):
    """The blanked text of one file and the statements of its functions."""

    def __init__(self, text: str, path: str = ""):
        super().__init__(text, path)
        self.macros = error_macros(text)
        self.branches: list = []
        self.function, self.prev_line = "", 0

    def parse(self):
        self.bodies = []  # (function, its statements)
        for name, start, end in self.functions():
            self.function = name
            self.bodies.append((name, self.block(start + 1, end - 1)))
        return self.branches

    # -- statements ---------------------------------------------------------------------
    def block(self, i: int, end: int) -> tuple:
        out = []
        while True:
            i = self.ws(i)
            if out and out[-1].kind == "if":  # the statement after an if: its next_line
                self.follows(out[-1].start, self.line(i) if i < end else 0)
            if i >= end:
                return tuple(out)
            self.prev_line = self.line(out[-1].start) if out and out[-1].kind == "simple" \
                and not re.match(r"(return|goto|break|continue)\b", out[-1].text) else 0
            s = self.statement(i, end)
            out.append(s)
            i = s.end

    def follows(self, at: int, line: int) -> None:
        for n, b in enumerate(self.branches):
            if b.kind == "if" and b.offset == at:
                self.branches[n] = replace(b, next_line=line)

    def simple(self, i: int, end: int, kind="simple") -> Stmt:
        """A statement up to its `;` (brackets skipped: initialisers, calls)."""
        k = i
        while k < end and self.c[k] != ";":
            k = self.close(k) if self.c[k] in "([{" else k + 1
        return Stmt(kind, i, min(k + 1, end), squeeze(self.c[i:k + 1]))

    def statement(self, i: int, end: int) -> Stmt:
        c = self.c
        if c[i] == "{":
            j = self.close(i)
            return Stmt("block", i, j, children=self.block(i + 1, j - 1))
        if c[i] == ";":
            return Stmt("simple", i, i + 1, ";")
        w = self.word(i)
        if w == "if":
            return self.if_(i, end)
        if w in ("for", "while", "switch"):
            p = self.ws(i + len(w))
            q = self.close(p) if p < end and c[p] == "(" else p
            body = self.statement(self.ws(q), end)
            if w == "switch":
                self.cases(body)
            return Stmt("switch" if w == "switch" else "loop", i, body.end, children=(body,))
        if w == "do":
            body = self.statement(self.ws(i + 2), end)
            tail = self.simple(self.ws(body.end), end)
            return Stmt("loop", i, tail.end, children=(body,))
        if w == "try":
            body = self.statement(self.ws(i + 3), end)
            k, kids = body.end, [body]
            while self.word(self.ws(k)) == "catch":
                at = self.ws(k)
                p = self.ws(at + 5)
                q = self.close(p)
                handler = self.statement(self.ws(q), end)
                self.branch("catch", at, squeeze(c[p + 1:q - 1]), q, handler, (p + 1, q - 1))
                kids.append(handler)
                k = handler.end
            return Stmt("try", i, k, children=tuple(kids))
        if w in ("case", "default"):
            k = i + len(w)
            while k < end and not (c[k] == ":" and c[k + 1:k + 2] != ":" and c[k - 1] != ":"):
                k += 1
            return Stmt("case", i, k + 1, label=squeeze(c[i:k]))
        if w and w not in ("return", "goto", "break", "continue", "else"):
            k = self.ws(i + len(w))
            if k < end and c[k] == ":" and c[k + 1:k + 2] != ":":
                return Stmt("label", i, k + 1, label=w)
        s = self.simple(i, end)
        if w in self.macros:
            self.macro(s, w)
        return s

    def if_(self, i: int, end: int) -> Stmt:
        c, prev = self.c, self.prev_line
        p = self.ws(i + 2)
        q = self.close(p)
        cond = squeeze(c[p + 1:q - 1])
        body = self.statement(self.ws(q), end)
        self.branch("if", i, cond, q, body, (p + 1, q - 1), prev)
        kids, k = [body], body.end
        e = self.ws(k)
        if self.word(e) == "else":
            other = self.statement(self.ws(e + 4), end)
            if other.kind != "if":  # `else if`: that if is a branch of its own
                self.branch("else", e, f"else of ({cond})", e + 4, other)
            kids.append(other)
            k = other.end
        return Stmt("if", i, k, children=tuple(kids))

    def cases(self, body: Stmt) -> None:
        """Each `case`/`default` of a switch's block: the statements up to the next label."""
        stmts = body.children if body.kind == "block" else ()
        for n, s in enumerate(stmts):
            if s.kind != "case":
                continue
            own = []
            for t in stmts[n + 1:]:
                if t.kind == "case":
                    break
                own.append(t)
            if own:
                self.branch("case", s.start, s.label, s.end,
                            Stmt("block", own[0].start, own[-1].end, children=tuple(own)))

    def macro(self, s: Stmt, name: str) -> None:
        """The call of a macro whose body is an error branch: one, on the call's line."""
        line = self.line(s.start)
        self.branches.append(Branch(self.path, self.function, line, "macro", s.text.rstrip(";"),
                                    line, self.line(s.end - 1), True, (f"{name}()",),
                                    cond_line=line, offset=s.start))

    def branch(self, kind: str, at: int, cond: str, cond_end: int, body: Stmt,
               span=(0, 0), prev: int = 0) -> None:
        own = _own(body)
        why = actions(own, cond if kind == "if" else "")
        if not why:
            return
        first = self.line(own[0].start) if own else self.line(body.start)
        last = own[-1].text if own and own[-1].kind == "simple" else ""
        self.branches.append(Branch(
            self.path, self.function, self.line(at), kind, cond, first,
            self.line(max(body.end - 1, body.start)), first == self.line(cond_end - 1),
            why, span, self.line(cond_end - 1), 0,
            bool(re.match(r"(return|goto|break|continue)\b", last)), prev, tuple(own), at))


def _own(body: Stmt) -> list:
    """A branch's own statements: its block's, a nested plain block's included."""
    if body.kind != "block":
        return [body]
    out = []
    for s in body.children:
        out += _own(s) if s.kind == "block" else [s]
    return out


def error_macros(text: str) -> set:
    """Function-like macros of the file whose body is an error branch (an `if` whose
    block jumps to an error label, returns an error or logs one): ORT_ABORT_ON_ERROR."""
    out = set()
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)",
                         text, re.M):
        body = m.group(3).replace("\\\n", "\n")
        inner = _Source(body)
        if not re.search(r"\bif\s*\(", inner.c):
            continue
        stmts = inner.block(0, inner.n)
        found = []
        _walk_ifs(inner, stmts, found)
        if found:
            out.add(m.group(1))
    return out


def _walk_ifs(src: "_Source", stmts, found: list) -> None:
    for s in stmts:
        if s.kind == "if":
            body = s.children[0]
            if actions(_own(body)):
                found.append(s)
        _walk_ifs(src, s.children, found)


def branches(text: str, path: str = "") -> list:
    """Every error branch of a C or C++ file's text, in the order they start."""
    return sorted(_Source(text, path).parse(), key=lambda b: (b.line, b.kind))
