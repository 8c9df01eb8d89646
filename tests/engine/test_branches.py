"""The error-branch classifier (harness/judge/branches.py, on csource.py's text) on C and
C++ snippets written as FFmpeg writes them, and how gcov's records of a line say a branch
ran (harness/judge/branchcov.py): each rule once with a snippet it must find and one it
must not."""

import textwrap

import pytest

from harness.judge import branchcov, branches, csource

pytestmark = pytest.mark.unit


def found(code: str) -> list:
    return branches.branches(textwrap.dedent(code), "x.c")


def one(code: str) -> branches.Branch:
    (b,) = found(code)
    return b


def test_a_logged_error_return_is_a_branch_and_its_first_line_is_the_log():
    b = one("""\
        static int f(void *ctx, int *p)
        {
            if (!p) {
                av_log(ctx, AV_LOG_ERROR, "no p\\n");
                return AVERROR(EINVAL);
            }
            return 0;
        }
        """)
    assert (b.function, b.kind, b.condition, b.line, b.first, b.last) == ("f", "if", "!p", 3, 4, 6)
    assert b.why == ("AV_LOG_ERROR", "return AVERROR(EINVAL);")
    assert not b.inline and b.jumps and b.next_line == 7


@pytest.mark.parametrize("cond, body, is_error", [
    ("ret < 0", "return ret;", True),          # the variable the condition tests
    ("ret != 0", "return ret;", True),
    ("ret == 0", "return ret;", False),        # returns 0
    ("!ret", "return ret;", False),
    ("ret == AVERROR(EAGAIN)", "return ret;", False),   # passes "try again" on
    ("ret < 0", "goto err;", True),            # an error label
    ("ret < 0", "goto fail;", True),
    ("ret < 0", "goto end;", False),           # end is where success goes too
    ("x", "return AVERROR(ENOMEM);", True),
    ("x", "return AVERROR_EXTERNAL;", True),
    ("x", "return AVERROR_EOF;", False),       # the end of the stream is no error
    ("x", "return AVERROR(EAGAIN);", False),   # nor is "try again"
    ("x", "return DNN_GENERIC_ERROR;", True),
    ("x", "return DAST_FAIL;", True),
    ("x", "return -1;", True),
    ("x", "return 1;", False),
    ("x", "ret = AVERROR(ENOMEM);", True),     # sets the error the function returns
    ("x", "ret = 0;", False),
    ("!p", "return NULL;", True),              # a pointer function's failure
    ("!q || q->length == 0", "return NULL;", False),   # an empty queue is no error
    ("x", "continue;", False),
])
def test_what_makes_an_if_an_error_branch(cond, body, is_error):
    code = f"int f(int x, int ret, void *p, Q *q)\n{{\n    if ({cond})\n        {body}\n    return 0;\n}}\n"
    assert bool(found(code)) is is_error


def test_comments_and_strings_are_not_code():
    assert not found("""\
        int f(int x)
        {
            if (x) {
                /* goto err; return AVERROR(EINVAL); */
                av_log(NULL, AV_LOG_INFO, "return AVERROR(EINVAL); goto err;\\n");
            }
            return 0;
        }
        """)


def test_a_conditionals_alternatives_do_not_run_a_function_into_the_next():
    """`#if A ... if (x) { #else ... if (y) { #endif ... }`, as dnn_backend_openvino.c's
    get_output_ov() writes it: the compiler sees one `{`; read with both, the function ran
    on to the file's later functions (their mutants and changed lines were get_output_ov()'s).
    Each alternative now starts at the depth its #if had."""
    code = textwrap.dedent("""\
        static int first(int x)
        {
        #if HAVE_NEW
            if (x > 1) {
        #elif HAVE_MID
            if (x > 2) {
        #else
            if (x > 3) {
        #endif
                if (!x)
                    return AVERROR(EINVAL);
            }
            return 0;
        }

        static int second(void *p)
        {
            if (!p)
                return AVERROR(ENOMEM);
            return 0;
        }
        """)
    src = csource.Source(code)
    assert [(name, src.line(a), src.line(z)) for name, a, z in src.functions()] == [
        ("first", 2, 14), ("second", 17, 21)]
    assert [b.function for b in found(code)] == ["first", "second"]


def test_else_case_default_and_catch_are_branches_else_if_is_not_twice():
    bs = found("""\
        int f(int t)
        {
            if (t == 1) {
                return 0;
            } else if (t == 2) {
                return AVERROR(ENOSYS);
            } else {
                av_log(NULL, AV_LOG_ERROR, "bad\\n");
                return AVERROR(EINVAL);
            }
            switch (t) {
            case 1:
                break;
            default:
                ret = AVERROR(ENOSYS);
                goto err;
            }
        err:
            return ret;
        }
        """)
    assert [(b.kind, b.condition) for b in bs] == [
        ("if", "t == 2"), ("else", "else of (t == 2)"), ("case", "default")]
    cpp = one("""\
        static int g(Model *m)
        {
            try {
                m->forward();
            } catch (const c10::Error &e) {
                av_log(NULL, AV_LOG_ERROR, "%s\\n", e.what());
                return DNN_GENERIC_ERROR;
            }
            return 0;
        }
        """)
    assert (cpp.kind, cpp.condition, cpp.first) == ("catch", "const c10::Error &e", 6)


def test_only_the_innermost_if_with_its_own_error_statement_is_one():
    b = one("""\
        int f(Task *t)
        {
            if (t->async) {
                ret = start(t);
                if (ret < 0)
                    goto err;
            }
            return 0;
        err:
            return ret;
        }
        """)
    assert (b.condition, b.line, b.first, b.next_line) == ("ret < 0", 5, 6, 0)


def test_a_macro_whose_body_is_an_error_branch_is_one_at_each_call():
    bs = found("""\
        #define CHECK(expr)                \\
            do {                           \\
                Status *s = (expr);        \\
                if (s) {                   \\
                    release(s);            \\
                    goto err;              \\
                }                          \\
            } while (0)
        #define LOG_IT() av_log(NULL, AV_LOG_INFO, "x\\n")

        int f(void)
        {
            CHECK(api_call());
            LOG_IT();
            return 0;
        err:
            return -1;
        }
        """)
    assert [(b.kind, b.line, b.inline) for b in bs] == [("macro", 13, True)]


def test_functions_are_found_however_their_brace_sits():
    text = textwrap.dedent("""\
        extern "C" {
        #include "x.h"
        }
        static const AVOption opts[] = { { NULL } };
        int ff_fill(Task *task, void *m) {
            if (task == NULL || m == NULL)
                return AVERROR(EINVAL);
            return 0;
        }
        static int h(void)
        {
            if (!g()) return AVERROR(ENOMEM);
            return 0;
        }
        """)
    assert [f[0] for f in csource.functions(text)] == ["ff_fill", "h"]
    bs = branches.branches(text, "x.c")
    assert [(b.function, b.line, b.first, b.inline) for b in bs] == [
        ("ff_fill", 6, 7, False), ("h", 12, 12, True)]


# gcov's JSON record of a line: its count, whether a block on it never ran, its arcs
def rec(count, unexecuted=False, arcs=()):
    return {"count": count, "unexecuted_block": unexecuted,
            "branches": [{"count": a} for a in arcs]}


BRACED = """\
    int f(int *p)
    {
        if (!p) {
            av_log(NULL, AV_LOG_ERROR, "x\\n");
            return AVERROR(EINVAL);
        }
        return 0;
    }
    """
FOLDED = """\
    int f(int ret)
    {
        if (ret < 0 || ret > 9)
            goto err;
        use(ret);
        return 0;
    err:
        return -1;
    }
    """
THREADED = """\
    int push(Queue *q, void *v)
    {
        Entry *e;
        e = create_entry(v);
        if (!e)
            return -1;
        link(q, e);
        return 0;
    }
    """
INLINE = """\
    int f(int *p)
    {
        if (!p) return AVERROR(ENOMEM);
        return 0;
    }
    """


@pytest.mark.parametrize("code, lines, want", [
    (BRACED, {3: rec(8, arcs=(1, 7)), 4: rec(1)}, branchcov.TAKEN),
    (BRACED, {3: rec(8, arcs=(0, 8)), 4: rec(0)}, branchcov.NOT_TAKEN),
    (BRACED, {}, branchcov.NO_CODE),  # compiled out (#if), or never compiled
    # the body folded into the jump: every arc of the condition taken ...
    (FOLDED, {3: rec(8, arcs=(1, 7, 2, 5)), 5: rec(5)}, branchcov.TAKEN),
    # ... or the condition evaluated more often than the statement after it ran
    (FOLDED, {3: rec(8, arcs=(3, 5, 0, 5)), 5: rec(5)}, branchcov.TAKEN),
    (FOLDED, {3: rec(8, arcs=(0, 8, 0, 8)), 5: rec(8)}, branchcov.NOT_TAKEN),
    # ... or the statement that runs into it (the compiler threaded a failure past the
    # if's own line, whose count is then only the successes')
    (THREADED, {4: rec(10), 5: rec(8), 7: rec(8)}, branchcov.TAKEN),
    (THREADED, {4: rec(10), 5: rec(10), 7: rec(10)}, branchcov.NOT_TAKEN),
    # on its condition's line: ran when every block of the line did
    (INLINE, {3: rec(8, unexecuted=False)}, branchcov.TAKEN),
    (INLINE, {3: rec(8, unexecuted=True)}, branchcov.NOT_TAKEN),
])
def test_what_gcov_says_about_a_branch(code, lines, want):
    b = one(code)
    assert branchcov.status(b, lines)[0] == want


def test_the_data_file_names_each_unreachable_branch_and_says_so_when_wrong(tmp_path):
    text = textwrap.dedent(BRACED)
    (b,) = branches.branches(text, "x.c")
    data = tmp_path / "unreachable.txt"
    data.write_text("# comment\n"
                    f"{b.key} :: no caller passes NULL\n"
                    "x.c :: gone :: if !q :: a branch this tree does not have\n"
                    "y.c :: other :: if !r :: another file's\n")
    why = branchcov.read_unreachable(data)
    seen, stale = branchcov.judge({"x.c": text}, {"x.c": {3: rec(8), 4: rec(0)}}, why)
    r = branchcov.Report(None, seen, stale)
    assert seen[0].unreachable == "no caller passes NULL" and not r.wrong
    assert stale == ["x.c :: gone :: if !q"]
    counts = {"total": 1, "taken": 0, "not_taken": 0, "input": 0, "unreachable": 1,
              "no_code": 0, "percent": 0.0, "percent_reachable": 100.0}
    assert r.totals() == {**counts, "armed": counts}
    seen, _ = branchcov.judge({"x.c": text}, {"x.c": {3: rec(8), 4: rec(2)}}, why)
    assert [s.key for s in branchcov.Report(None, seen).wrong] == [b.key]


def test_a_branch_only_another_input_reaches_is_counted_apart(tmp_path):
    """A why that begins `input:` (a model, an option the graphs do not use) is out of the
    figure of what a fault can reach, as one nothing reaches is, but counted as such, and
    wrong all the same when a fault takes it."""
    text = textwrap.dedent(BRACED)
    (b,) = branches.branches(text, "x.c")
    data = tmp_path / "unreachable.txt"
    data.write_text(f"{b.key} :: input: a model with two outputs\n")
    why = branchcov.read_unreachable(data)
    seen, _ = branchcov.judge({"x.c": text}, {"x.c": {3: rec(8), 4: rec(0)}}, why)
    assert seen[0].needs_input
    t = branchcov.Report(None, seen).totals()
    assert (t["input"], t["unreachable"], t["not_taken"], t["percent_reachable"]) == \
        (1, 0, 0, 100.0)
    seen, _ = branchcov.judge({"x.c": text}, {"x.c": {3: rec(8), 4: rec(2)}}, why)
    assert [s.key for s in branchcov.Report(None, seen).wrong] == [b.key]


def test_alike_branches_of_a_function_are_numbered():
    text = "int f(void)\n{\n    if (s != NULL)\n        goto err;\n    if (s != NULL)\n        goto err;\nerr:\n    return -1;\n}\n"
    assert [k for k, _ in branchcov.keyed(branches.branches(text, "x.c"))] == [
        "x.c :: f :: if s != NULL", "x.c :: f :: if s != NULL #2"]


def test_a_branch_of_a_function_that_never_ran_armed_is_counted_apart():
    """The counters start at the fault's arm: a function none of whose lines ran is set-up
    or teardown code (loading the model, configuring the filter), which no fault armed
    after set-up reaches; its branches count in the whole, not in the armed figure."""
    text = textwrap.dedent(BRACED) + textwrap.dedent(BRACED).replace("int f(", "int g(")
    lines = {3: rec(8, arcs=(1, 7)), 4: rec(1), 11: rec(0, arcs=(0, 0)), 12: rec(0)}
    seen, _ = branchcov.judge({"x.c": text}, {"x.c": lines}, {})
    assert [(s.branch.function, s.status, s.armed) for s in seen] == [
        ("f", branchcov.TAKEN, True), ("g", branchcov.NOT_TAKEN, False)]
    t = branchcov.Report(None, seen).totals()
    assert (t["taken"], t["total"], t["percent"]) == (1, 2, 50.0)
    assert (t["armed"]["taken"], t["armed"]["total"], t["armed"]["percent"]) == (1, 1, 100.0)
