"""The mutation operators of `harness mutate` (harness/judge/mutants.py) on a C snippet
written as FFmpeg writes its backends: what each operator makes, where it makes none, and
that a mutant is a patch git applies (and the mutated file still compiles)."""

import shutil
import subprocess
import textwrap

import pytest

from harness.judge import mutants

pytestmark = pytest.mark.unit

CODE = textwrap.dedent("""\
    static int run(Model *m, Request *req)
    {
        int ret = 0;
        Status *status = NULL;
        void *buf;

        buf = av_malloc(16);
        if (!buf) {
            av_log(m->ctx, AV_LOG_ERROR, "no memory\\n");
            return AVERROR(ENOMEM);
        }
        ret = fill(m, buf);
        if (ret < 0)
            goto err;
        status = api_run(m->session);
        if (status != NULL) {
            api_release_status(status);
            ret = DNN_GENERIC_ERROR;
            goto err;
        }
        if (ret == AVERROR(EAGAIN))
            return ret;
        av_free(buf);
        return 0;
    err:
        complete_task(req, ret);
        av_log(m->ctx, AV_LOG_ERROR, "failed\\n");
        av_free(buf);
        return ret;
    }
    """)


def made(operator):
    return [(m.line, mutants.squeeze(m.before), mutants.squeeze(m.after))
            for m in mutants.mutants(CODE, "libavfilter/dnn/x.c", (operator,))]


def test_check_removed_makes_each_error_check_false_and_keeps_its_evaluation():
    assert made("check-removed") == [
        (8, "!buf", "(!buf) && 0"), (13, "ret < 0", "(ret < 0) && 0"),
        (16, "status != NULL", "(status != NULL) && 0")]  # not `ret == AVERROR(EAGAIN)`


def test_return_zero_replaces_an_error_branch_returned_error():
    assert made("return-zero") == [(10, "AVERROR(ENOMEM)", "0")]


def test_averror_dropped_leaves_a_positive_errno_where_one_is_returned_or_set():
    assert made("averror-dropped") == [(10, "AVERROR(ENOMEM)", "(ENOMEM)")]  # not in a comparison


def test_result_ignored_drops_the_assignment_a_check_reads():
    # `ret` and `status` were set before (their declarations); `buf` is checked for NULL
    # but its assignment is its first: dropping it would read an uninitialised pointer
    assert made("result-ignored") == [(12, "ret =", ""), (15, "status =", "")]


def test_cleanup_deleted_takes_out_the_calls_of_error_paths_not_their_logging():
    assert made("cleanup-deleted") == [
        (17, "api_release_status(status);", ";"), (26, "complete_task(req, ret);", ";"),
        (28, "av_free(buf);", ";")]  # not the success path's av_free(buf) at 23


def test_each_mutant_is_a_mail_git_applies_and_compiles(tmp_path):
    if not shutil.which("git"):
        pytest.skip("no git")
    repo = tmp_path / "r"
    (repo / "libavfilter/dnn").mkdir(parents=True)
    (repo / "libavfilter/dnn/x.c").write_text(CODE)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    header = ("#include <stddef.h>\n#define AVERROR(e) (-(e))\n#define ENOMEM 12\n"
              "#define EAGAIN 11\n#define AV_LOG_ERROR 16\n#define DNN_GENERIC_ERROR -1\n"
              "typedef struct { void *ctx; void *session; } Model;\ntypedef int Request;\n"
              "typedef int Status;\nvoid *av_malloc(size_t); void av_free(void *);\n"
              "void av_log(void *, int, const char *, ...);\nint fill(Model *, void *);\n"
              "Status *api_run(void *); void api_release_status(Status *);\n"
              "void complete_task(Request *, int);\n")
    ms = mutants.mutants(CODE, "libavfilter/dnn/x.c")
    assert len(ms) == 10
    for m in ms:
        mail = tmp_path / f"{m.name}.patch"
        mail.write_text(m.mail(CODE))
        r = subprocess.run(git + ["apply", "--check", str(mail)], capture_output=True, text=True)
        assert r.returncode == 0, (m, r.stderr)
        (tmp_path / "m.c").write_text(header + m.apply(CODE) + "int main(void) { return 0; }\n")
        r = subprocess.run(["cc", "-fsyntax-only", "-Wno-unused", str(tmp_path / "m.c")],
                           capture_output=True, text=True)
        assert r.returncode == 0, (m, r.stderr)


def test_a_mutant_knows_the_text_it_was_made_from():
    m = mutants.mutants(CODE, "x.c", ("return-zero",))[0]
    assert m.key == "x.c :: run :: return-zero :: return AVERROR(ENOMEM);"
    with pytest.raises(AssertionError):
        m.apply(CODE.replace("ENOMEM", "EINVAL"))


def test_two_mutants_alike_in_a_function_have_keys_of_their_own(tmp_path):
    """Two checks written the same in one function (`if (status != OK) {` twice): the
    second's key ends in #2, so the data file of equivalent mutants can explain one and
    not the other (it named both at once)."""
    from harness.judge import mutate
    code = ("int f(int a, int b)\n{\n    int status;\n    status = g(a);\n"
            "    if (status != 0) {\n        return AVERROR(EIO);\n    }\n"
            "    status = g(b);\n    if (status != 0) {\n        return AVERROR(EIO);\n"
            "    }\n    return 0;\n}\n")
    checks = mutants.mutants(code, "x.c", ("check-removed",))
    assert [m.key for m in checks] == ["x.c :: f :: check-removed :: if (status != 0) {",
                                       "x.c :: f :: check-removed :: if (status != 0) { #2"]
    data = tmp_path / "equivalent.txt"
    data.write_text(f"{checks[1].key} :: the second is said harmless\n")
    equivalent = mutate.read_equivalent(data)
    assert [m.key in equivalent for m in checks] == [False, True]


def test_a_mutant_inside_a_branch_no_fault_can_reach_is_equivalent():
    """A branch the data file of unreachable branches names: every mutant of it (its check
    made false, its return, its cleanup) changes code that never runs."""
    from harness.judge import mutate
    why = {"libavfilter/dnn/x.c :: run :: if !buf": "av_malloc(16) is said never to fail here"}
    spans = mutate.in_unreachable(CODE, "libavfilter/dnn/x.c", why)
    inside = [m for m in mutants.mutants(CODE, "libavfilter/dnn/x.c")
              if any(a <= m.start and m.end <= z for a, z, _ in spans)]
    assert [(m.line, m.operator) for m in inside] == [
        (8, "check-removed"), (10, "return-zero"), (10, "averror-dropped")]
    assert spans[0][2] == "av_malloc(16) is said never to fail here"
    # one only another input reaches is no excuse: the gate is blind to its mutants
    why = {"libavfilter/dnn/x.c :: run :: if !buf": "input: a model of 2 GB"}
    assert mutate.in_unreachable(CODE, "libavfilter/dnn/x.c", why) == []


def test_a_mutant_of_a_run_of_its_own_is_a_tree_of_its_own():
    """A mutate run that removes its trees once judged names each mutant's mail after
    itself, so its tree's key (the patch's sha256) is no other run's: a run never removes
    a tree another run is building or using. Kept (--keep), the mail is the cache's."""
    import hashlib
    text = CODE
    m = mutants.mutants(text, "libavfilter/dnn/x.c")[0]
    shared, mine, theirs = m.mail(text), m.mail(text, "101-1"), m.mail(text, "202-1")
    assert len({hashlib.sha256(t.encode()).hexdigest() for t in (shared, mine, theirs)}) == 3
    assert "mutate run 101-1" in mine and "mutate run" not in shared
    assert mine.split("---\n", 1)[1] == shared.split("---\n", 1)[1]  # the same change


def test_a_check_made_false_needs_its_branch_taken():
    """A check made false changes a run only where its branch was taken: it names its
    branch's first line (what the coverage report's count says ran), unless the branch's
    code starts on the condition's line; the other operators need their own line."""
    needs = {(m.line, m.operator): m.needs for m in mutants.mutants(CODE, "libavfilter/dnn/x.c")}
    assert [needs[(n, "check-removed")] for n in (8, 13, 16)] == [9, 14, 17]
    assert {v for (n, op), v in needs.items() if op != "check-removed"} == {0}
    inline = "static int f(void)\n{\n    int ret = g();\n    if (ret < 0) return ret;\n    return 0;\n}\n"
    (m,) = mutants.mutants(inline, "x.c", ("check-removed",))
    assert (m.line, m.needs) == (4, 0)


def test_a_check_whose_branch_no_fault_took_is_blind_without_a_run():
    """With the coverage report's lines no fault ran: a check made false whose branch's
    first line is among them is blind, not built; one whose branch ran is built."""
    from harness.judge import mutate
    (m,) = [m for m in mutants.mutants(CODE, "libavfilter/dnn/x.c", ("check-removed",))
            if m.line == 8]
    f = mutate.without_run(m, None, {}, [], {9})
    assert (f.fate, f.seconds) == (mutate.BLIND, 0) and "took its branch (line 9" in f.why
    assert mutate.without_run(m, None, {}, [], {10, 14}) is None


def _diff(status, judged=0, executed=(), regressions=(), errors=()):
    """What the judge reads of one part's diff (harness/judge/diff.py Diff): `errors`, each
    group's census errors, (the tree's, the mutant's)."""
    from collections import Counter
    from types import SimpleNamespace

    from harness.judge.diff import Change
    pairs = [SimpleNamespace(change=Change.REGRESSION, group=SimpleNamespace(key=k), where="w",
                             value="", sites=[SimpleNamespace(cls=SimpleNamespace(value=a)),
                                              SimpleNamespace(cls=SimpleNamespace(value=b))])
             for k, a, b in regressions]
    cov = {"files": {"x.c": {"executed": list(executed)}}, "changed": 2, "executed": len(executed)}
    groups = [SimpleNamespace(key=f"g{i}", errors=list(e)) for i, e in enumerate(errors)]
    return SimpleNamespace(exit_status=status, pairs=pairs, coverage=cov, groups=groups,
                           census_errors=[e for g in groups for e in g.errors if e],
                           count=lambda: Counter(p.change for p in pairs), runs=3,
                           tally=lambda: {"touched": {"judged": judged, "blind": 1,
                                                      "total": judged + 1}})


def test_a_mutant_diffed_in_parts_is_judged_over_them_all():
    """Its parts' diffs, together: killed by any part's regression; else survived when a
    part judged a site through it, blind when none did; the changed lines executed under
    a fault counted once over every part."""
    from types import SimpleNamespace

    from harness.errors import ExitStatus
    from harness.judge import mutate
    m = mutants.mutants(CODE, "libavfilter/dnn/x.c")[0]
    groups = [SimpleNamespace(key="a"), SimpleNamespace(key="b")]
    blind, ok = _diff(ExitStatus.BLIND, 0, [8]), _diff(ExitStatus.OK, 2, [8, 9])
    f = mutate.of_diffs(m, [blind, ok], groups, 5.0)
    assert (f.fate, f.groups, f.runs) == (mutate.SURVIVED, ["a", "b"], 6)
    assert f.why == "2 judged, 2 blind of 4 sites; changed lines executed under a fault: 2 of 2"
    assert mutate.of_diffs(m, [blind, blind], groups, 5.0).fate == mutate.BLIND
    killed = _diff(ExitStatus.FAIL, 1, [8], [("b", "SURFACED", "CRASH")])
    f = mutate.of_diffs(m, [ok, killed], groups, 5.0)
    assert (f.fate, f.regressions) == (mutate.KILLED, ["b: w: SURFACED -> CRASH"])
    assert mutate.of_diffs(m, [blind, _diff(ExitStatus.FAIL, 1)], groups, 5.0).fate == mutate.ERROR


def test_a_mutant_whose_own_run_fails_without_a_fault_is_killed():
    """The diff fails a change whose tree's census (its run with no fault) fails where the
    tree's did not: the gate refuses it, so the mutant is killed; a census of the tree
    itself that fails is an error of the run, not a kill."""
    from types import SimpleNamespace

    from harness.errors import ExitStatus
    from harness.judge import mutate
    m, groups = mutants.mutants(CODE, "libavfilter/dnn/x.c")[0], [SimpleNamespace(key="a")]
    f = mutate.of_diff(m, _diff(ExitStatus.FAIL, errors=[("", "FAIL: exit 1")]), groups, 1.0)
    assert (f.fate, f.regressions) == (mutate.KILLED, ["g0: its census: FAIL: exit 1"])
    for errors in ([("CRASH: x", "FAIL: exit 1")], [("CRASH: x", "")],
                   [("", "FAIL: exit 1"), ("CRASH: x", "")]):
        assert mutate.of_diff(m, _diff(ExitStatus.FAIL, errors=errors), groups, 1.0).fate == \
            mutate.ERROR, errors


def test_a_sample_is_drawn_alike_every_time_and_keeps_the_order():
    from harness.judge import mutate
    items = list(range(950))
    a = mutate.draw(items, 40, seed=1)
    assert a == mutate.draw(items, 40, seed=1) and len(set(a)) == 40
    assert a == sorted(a) and set(a) <= set(items)
    assert mutate.draw(items, 40, seed=2) != a
    assert mutate.draw(items, 950, seed=1) == items == mutate.draw(items, None, seed=1)


def test_a_samples_score_comes_with_its_interval():
    """Wilson's 95% interval of killed of scored: 8 of 10 killed -> 49.0-94.3%; none for
    the mutants all judged; the JSON carries it (docs/schema/mutate.json)."""
    from types import SimpleNamespace

    from harness.judge import mutate, mutatereport, schemas
    from harness.judge.envelope import envelope
    fates = [mutate.Fate(mutants.Mutant("libavfilter/dnn/x.c", "run", n + 1, "return-zero", 0, 0,
                                        "AVERROR(ENOMEM)", "0"),
                         mutate.KILLED if n < 8 else mutate.SURVIVED, "") for n in range(10)]
    tree = SimpleNamespace(name="after", key="k", path="/t")
    s = mutate.Score(tree, fates, 1.0, "equivalent.txt", 0, sample=(950, 1))
    assert s.interval() == (49.0, 94.3)
    assert "a random sample of 10 of 950 mutants (seed 1), the score of all of them within " \
           "49.0-94.3% (95%): **8 of 10 mutants killed (80.0%)**" in mutatereport.markdown(s)
    doc = {**envelope("mutate", [tree], 0), "values": "changed", "confirm": 2,
           "operators": ["return-zero"], "groups": [], **mutatereport.to_json(s)}
    assert doc["sample"] == {"of": 950, "seed": 1, "interval": [49.0, 94.3]}
    assert schemas.problem(doc) is None
    assert mutate.Score(tree, fates).interval() is None
