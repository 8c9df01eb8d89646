"""What makes a branch of C code an error branch (harness/judge/branches.py): its own
statements return an error (AVERROR(...), an AVERROR_ code, a `*_ERROR`/`*_FAIL` constant,
a negative number, NULL after a NULL test, the variable its condition tested), jump to an
error label (`goto err`, `goto fail`), set an error code (`ret = AVERROR(ENOMEM)`) or log
at AV_LOG_ERROR. Read from each statement's squeezed text; the mutation operators
(harness/judge/mutants.py) ask the same questions of the statements they change.
"""

import re

from harness.judge.csource import IDENT

# a goto to a label so named is an error path (err, fail, error, err_free, free_fail)
ERROR_LABEL = re.compile(r"(^|_)(err|error|errors|fail|failed|failure)(_|\d|$)")
# errors that are not failures: the end of a stream and "try again" are control flow
NOT_ERRORS = ("AVERROR_EOF", "EAGAIN")


def error_value(expr: str, cond: str = "") -> bool:
    """Whether `expr`, returned or assigned, is an error: AVERROR(E...) or an AVERROR_
    code (not EOF, not EAGAIN), a *_ERROR or *_FAIL constant, a negative number, NULL
    after a NULL test, or the variable the condition tests (not for being 0)."""
    e = expr.strip()
    while e.startswith("(") and e.endswith(")"):
        e = e[1:-1].strip()
    if any(re.search(rf"\b{x}\b", e) for x in NOT_ERRORS):
        return False
    if re.fullmatch(r"AVERROR\s*\(.*\)|AVERROR_\w+|[A-Z][A-Z0-9_]*_(ERROR|FAIL)|-\s*\d+", e):
        return True
    if e == "NULL":  # a pointer function's failure: every term of the condition a NULL test
        terms = [t.strip() for t in cond.split("||")]
        return bool(cond) and all(re.fullmatch(r"!\s*[\w\->.\[\]]+|[\w\->.\[\]]+\s*==\s*NULL",
                                               t) for t in terms)
    if IDENT.fullmatch(e) and cond and re.search(rf"\b{e}\b", cond):
        return not re.search(rf"\b{e}\s*(==|>=|>)\s*0\b|!\s*{e}\b", cond) and \
            not any(re.search(rf"\b{x}\b", cond) for x in NOT_ERRORS)
    return False


def actions(own, cond: str = "") -> tuple:
    """What in these statements makes a branch an error branch, each as written."""
    out = []
    for s in own:
        if s.kind != "simple":
            continue
        t = s.text
        m = re.fullmatch(r"return\b\s*(.*?)\s*;", t)
        if m and m.group(1) and error_value(m.group(1), cond):
            out.append(t)
            continue
        m = re.fullmatch(r"goto\s+(\w+)\s*;", t)
        if m and ERROR_LABEL.search(m.group(1)):
            out.append(t)
            continue
        if re.search(r"\bAV_LOG_ERROR\b", t):
            out.append("AV_LOG_ERROR")
            continue
        m = re.fullmatch(r"([\w.\->\[\]*]+)\s*=(?!=)\s*(.*?)\s*;", t)
        if m and error_value(m.group(2)):
            out.append(t)
    return tuple(out)
