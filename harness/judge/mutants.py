"""Mutants of FFmpeg's error handling, made with the operators real mistakes take (after
Mull's and Dextool's: a decision forced, a statement deleted, a value replaced), on the
error branches harness/judge/branches.py reads from the source:

- check-removed: an error check's condition made false, its evaluation kept
  (`if (ret < 0)` -> `if ((ret < 0) && 0)`);
- return-zero: an error branch returns 0 where it returned an error (`return ret` ->
  `return 0`);
- averror-dropped: the AVERROR() wrapper dropped from a value returned or assigned, so a
  positive errno goes out (`AVERROR(ENOMEM)` -> `(ENOMEM)`);
- result-ignored: the status a call returns not stored, the check after it reading what
  the variable held before (`ret = f(x);` -> `f(x);`);
- cleanup-deleted: a call on an error path deleted (in an error branch, or after an
  error label): a free, a release, a task completed, a request put back.

Each is a change of one span of the file's text; as a patch (a git am-able mail) it is a
to-tree of its own (harness/experiments/mutate.py).
"""

import difflib
import re
from collections import Counter
from dataclasses import dataclass, replace

from harness.judge import branches as parse
from harness.judge import errorpath

OPERATORS = ("check-removed", "return-zero", "averror-dropped", "result-ignored",
             "cleanup-deleted")
# calls on an error path that only say what happened: deleting one is no mistake of
# error handling
LOGGING = re.compile(r"^(av_log|avpriv_report_missing_feature|avpriv_request_sample|"
                     r"av_assert\d?|printf|fprintf)\b")


@dataclass(frozen=True)
class Mutant:
    path: str
    function: str
    line: int
    operator: str
    start: int          # the span of the file's text it replaces
    end: int
    before: str         # that text, as written
    after: str          # what replaces it
    line_text: str = ""  # the mutated line as written, squeezed (what the data file names)
    needs: int = 0       # the line a run must have run for the mutant to change it (0: its
                         # own): a check made false changes only the runs that took its branch
    nth: int = 1         # its order among the mutants of its function by the same operator
                         # on a line written the same (two `if (status != OK) {`)

    @property
    def key(self) -> str:
        """What names it across trees whose line numbers differ: the n-th alike in its
        function keyed `#n`, as harness/judge/branchcov.py keys its branches."""
        return (f"{self.path} :: {self.function} :: {self.operator} :: {self.line_text}"
                + (f" #{self.nth}" if self.nth > 1 else ""))

    @property
    def name(self) -> str:
        stem = self.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        return f"{stem}-{self.line}-{self.operator}"

    def apply(self, text: str) -> str:
        assert text[self.start:self.end] == self.before, "not the text it was made from"
        return text[:self.start] + self.after + text[self.end:]

    def mail(self, text: str, run: str = "") -> str:
        """The mutant as a mail `git am` applies: one hunk in its file. `run` names the
        mutate run whose tree it is alone (its message, so its key, differs from any other
        run's: a run removes its trees once judged, never one another run is using)."""
        new = self.apply(text)
        hunks = "".join(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                             f"a/{self.path}", f"b/{self.path}", n=3))
        return ("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
                "From: ffdnn <ffdnn@localhost>\nDate: Sat, 1 Jan 2000 00:00:00 +0000\n"
                f"Subject: [PATCH] mutant: {self.path}:{self.line} {self.operator}\n\n"
                f"{self.function}(): {squeeze(self.before)} -> {squeeze(self.after) or '(deleted)'}\n"
                + (f"\nThe tree of mutate run {run} alone.\n" if run else "")
                + f"---\ndiff --git a/{self.path} b/{self.path}\n{hunks}-- \n2.0\n\n")


def squeeze(s: str) -> str:
    return " ".join(s.split())


class _Maker:
    def __init__(self, text: str, path: str):
        self.src = parse._Source(text, path)
        self.found = self.src.parse()
        self.text, self.path, self.out = text, path, []
        self.lines = text.splitlines()

    def add(self, function: str, operator: str, start: int, end: int, after: str,
            needs: int = 0) -> None:
        line = self.src.line(start)
        self.out.append(Mutant(self.path, function, line, operator, start, end,
                               self.text[start:end], after, squeeze(self.lines[line - 1]),
                               needs))

    def make(self) -> list:
        for b in self.found:
            if b.kind == "if":
                a, z = b.cond_span
                # its condition still runs; it differs only where the branch was taken,
                # which its first line's count says unless that is the condition's line
                self.add(b.function, "check-removed", a, z, f"({self.text[a:z]}) && 0",
                         0 if b.inline else b.first)
            for s in b.own:
                self.return_zero(b, s)
                self.cleanup(b.function, s)
        for name, body in self.src.bodies:
            self.after_labels(name, body)
            self.ignored(name, body)
        for name, a, z in self.src.functions():
            self.averror(name, a, z)
        uniq = {(m.start, m.end, m.after): m for m in self.out}
        out, seen = [], Counter()
        for m in sorted(uniq.values(), key=lambda m: (m.start, OPERATORS.index(m.operator))):
            seen[m.key] += 1
            out.append(replace(m, nth=seen[m.key]))
        return out

    def return_zero(self, b, s) -> None:
        m = re.fullmatch(r"return\b\s*(.*?)\s*;", s.text)
        if not m or not m.group(1) or m.group(1) in ("NULL", "0"):
            return
        if not errorpath.error_value(m.group(1), b.condition if b.kind == "if" else ""):
            return
        k = self.src.c.index("return", s.start) + len("return")
        end = self.src.c.rindex(";", s.start, s.end)
        self.add(b.function, "return-zero", k, end, " 0")

    def cleanup(self, function: str, s) -> None:
        """A call of an error path, deleted (an empty statement left in its place)."""
        if s.kind != "simple" or LOGGING.match(s.text):
            return
        if re.fullmatch(r"[\w.\->\[\]()*&]+\s*\(.*\)\s*;", s.text) and \
                not re.match(r"(return|goto|if|while|for|switch|sizeof)\b", s.text):
            self.add(function, "cleanup-deleted", s.start, s.end, ";")

    def after_labels(self, function: str, stmts) -> None:
        """The calls after an error label, to the end of its block (inside the statements
        there too: a put-back whose own failure is checked)."""
        on_error = False
        for s in stmts:
            if s.kind == "label":
                on_error = bool(errorpath.ERROR_LABEL.search(s.label))
            elif on_error:
                for t in simple(s):
                    self.cleanup(function, t)
            elif s.kind == "block":
                self.after_labels(function, s.children)

    def ignored(self, function: str, stmts, prior: tuple = ()) -> None:
        """`V = call(...);` then an error branch testing V: the assignment dropped, where V
        was set by a statement before it at its level or an enclosing one (its
        declaration's initialiser included: so the check reads that earlier value, not
        an uninitialised one)."""
        checks = {b.offset: b for b in self.found if b.kind == "if"}
        seen = list(prior)
        for n, s in enumerate(stmts):
            t = stmts[n + 1] if n + 1 < len(stmts) else None
            if s.kind == "simple" and t is not None and t.kind == "if" and t.start in checks:
                m = re.fullmatch(r"([\w.\->\[\]]+)\s*=(?!=)\s*([\w.\->\[\]]+\s*\(.*\))\s*;", s.text)
                v = re.escape(m.group(1)) if m else None
                if m and re.search(rf"(?<![\w.>]){v}(?!\w)", checks[t.start].condition) and \
                        any(re.search(rf"(?<![\w.>]){v}\s*=(?!=)", p) for p in seen):
                    k = self.src.c.index("=", s.start) + 1
                    while self.src.c[k].isspace():
                        k += 1
                    self.add(function, "result-ignored", s.start, k, "")
            if s.kind == "simple":
                seen.append(s.text)
            elif s.kind == "block":
                self.ignored(function, s.children, tuple(seen))
            else:
                for kid in s.children:
                    self.ignored(function, kid.children if kid.kind == "block" else (kid,),
                                 tuple(seen))

    def averror(self, function: str, a: int, z: int) -> None:
        """AVERROR(x) in a return or an assignment (not a comparison) -> (x)."""
        c = self.src.c
        for m in re.finditer(r"\bAVERROR\s*\(", c[a:z]):
            at = a + m.start()
            stmt_start = max(c.rfind(";", a, at), c.rfind("{", a, at), c.rfind("}", a, at)) + 1
            head = c[stmt_start:at]
            if not re.match(r"\s*(return\b|[\w.\->\[\]]+\s*=(?!=))", head) or \
                    re.search(r"\b(if|while)\s*\(", head) or re.search(r"(==|!=|<=|>=|<|(?<!-)>)$",
                                                                 head.rstrip()):
                continue
            close = self.src.close(a + m.end() - 1)
            self.add(function, "averror-dropped", at, close,
                     self.text[a + m.end() - 1:close])


def simple(s) -> list:
    """The simple statements of a statement, those of the statements it holds included."""
    if s.kind == "simple":
        return [s]
    return [t for kid in s.children for t in simple(kid)]


def mutants(text: str, path: str, operators=OPERATORS) -> list:
    """Every mutant of a C or C++ file's error handling, by the operators given."""
    return [m for m in _Maker(text, path).make() if m.operator in operators]
