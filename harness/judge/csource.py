"""The text of a C or C++ file as the error-branch reader (harness/judge/branches.py) sees
it: comments, strings and preprocessor lines blanked (offsets and lines kept), the later
parts of a conditional balanced as the compiler sees one part, its lines, its brackets and
words, and its functions' bodies, found at the top level.
"""

import bisect
import re

CONTROL = {"if", "for", "while", "switch", "do", "return", "sizeof", "catch"}
IDENT = re.compile(r"[A-Za-z_]\w*")


def blank(text: str) -> str:
    """The text with comments, string and character literals and preprocessor lines
    (continuations included) turned into spaces: the same length, the same lines."""
    out, i, n, line_start = list(text), 0, len(text), True
    while i < n:
        ch = text[i]
        if ch == "\n":
            line_start = True
            i += 1
            continue
        if line_start and ch == "#":
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                out[i] = " "
                i += 1
            continue
        if not ch.isspace():
            line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                if text[k] != "\n":
                    out[k] = " "
            i = end
        elif ch in "\"'":
            k = i + 1
            while k < n and text[k] != ch and text[k] != "\n":
                k += 2 if text[k] == "\\" else 1
            for j in range(i, min(k + 1, n)):
                out[j] = " "
            i = k + 1
        else:
            i += 1
    return "".join(out)


DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", re.M)


def balanced_alternatives(text: str, blanked: str) -> str:
    """`blanked` with each `#else` or `#elif` part of a conditional made to open and close
    as many braces as it would alone: the braces it leaves open or closes past its start
    blanked. The compiler sees one part of `#if A ... { #else ... { #endif ... }`; a reader
    that sees both would count a brace too many and run the function into the next ones
    (ctags' rule: each alternative starts at the depth its `#if` had, and the first goes
    on)."""
    out = list(blanked)
    spans, stack = [], []  # the later parts: (start, end); stack: per open #if, its part's start
    for m in DIRECTIVE.finditer(text):
        kind, at = m.group(1), m.start()
        if kind.startswith("if"):
            stack.append(None)
        elif not stack:
            continue
        elif kind in ("elif", "else"):
            if stack[-1] is not None:
                spans.append((stack[-1], at))
            eol = text.find("\n", at)
            stack[-1] = eol if eol >= 0 else len(text)
        else:  # endif
            start = stack.pop()
            if start is not None:
                spans.append((start, at))
    for a, z in spans:
        opened = []
        for i in range(a, z):
            ch = out[i]
            if ch == "{":
                opened.append(i)
            elif ch == "}":
                if opened:
                    opened.pop()
                else:
                    out[i] = " "   # closes what was opened before the part
        for i in opened:           # left open past the part
            out[i] = " "
    return "".join(out)


def squeeze(s: str) -> str:
    return " ".join(s.split())



class Source:
    """The blanked text of one file: its lines, brackets, words and functions."""

    def __init__(self, text: str, path: str = ""):
        self.text, self.path, self.c = text, path, balanced_alternatives(text, blank(text))
        self.n = len(self.c)
        self.lines = [0] + [m.end() for m in re.finditer("\n", self.c)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.lines, offset)

    def ws(self, i: int) -> int:
        while i < self.n and self.c[i].isspace():
            i += 1
        return i

    def close(self, i: int) -> int:
        """The offset after the bracket matching the one at i."""
        pairs = {"(": ")", "[": "]", "{": "}"}
        stack = []
        while i < self.n:
            ch = self.c[i]
            if ch in pairs:
                stack.append(pairs[ch])
            elif ch in ")]}":
                if stack and stack[-1] == ch:
                    stack.pop()
                if not stack:
                    return i + 1
            i += 1
        return self.n

    def word(self, i: int) -> str:
        m = IDENT.match(self.c, i)
        return m.group(0) if m and (i == 0 or not (self.c[i - 1].isalnum() or self.c[i - 1] == "_")) \
            else ""

    def word_before(self, i: int) -> tuple:
        """(the identifier that ends just before i, ignoring spaces, its start)."""
        j = i - 1
        while j >= 0 and self.c[j].isspace():
            j -= 1
        k = j
        while k >= 0 and (self.c[k].isalnum() or self.c[k] == "_"):
            k -= 1
        return self.c[k + 1:j + 1], k + 1

    def open_before(self, j: int) -> int:
        """The offset of the `(` matching the `)` at j."""
        depth = 0
        while j >= 0:
            if self.c[j] == ")":
                depth += 1
            elif self.c[j] == "(":
                depth -= 1
                if depth == 0:
                    return j
            j -= 1
        return 0

    # -- the top level: function bodies ---------------------------------------------------
    def functions(self):
        """(name, offset of its body's `{`, offset after its `}`) of every function."""
        for name, _, i, end in self.definitions():
            yield name, i, end

    def definitions(self):
        """(name, offset of the name, offset of its body's `{`, offset after its `}`) of
        every function."""
        i = 0
        while i < self.n:
            if self.c[i] != "{":
                i += 1
                continue
            j = i - 1
            while j >= 0 and self.c[j].isspace():
                j -= 1
            w, ws = self.word_before(j + 1)
            if w in ("const", "noexcept", "override"):  # C++: `) const {`
                j = ws - 1
                while j >= 0 and self.c[j].isspace():
                    j -= 1
            if j >= 0 and self.c[j] == ")":
                name, at = self.word_before(self.open_before(j))
                end = self.close(i)
                if name and name not in CONTROL:
                    yield name, at, i, end
                i = end
                continue
            before = self.c[max(0, i - 80):i].split()
            if before and (before[-1] == "extern" or "namespace" in before[-2:]):
                i += 1  # extern "C" { ... }, a namespace: their functions are at the top
                continue
            i = self.close(i)  # a struct, an initialiser


def functions(text: str) -> list:
    """(name, first line, last line) of every function of the file."""
    src = Source(text)
    return [(name, src.line(a), src.line(b - 1)) for name, a, b in src.functions()]


def spans(text: str) -> list:
    """(name, the line of its name, its last line) of every function of the file: the lines
    a change to the function, its signature included, is on."""
    src = Source(text)
    return [(name, src.line(at), src.line(b - 1)) for name, at, _, b in src.definitions()]
