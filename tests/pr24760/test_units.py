"""Unit tests of the pure-Python parts: errno parsing, faults, expectations, rendering."""

import errno
import re

import pytest

from harness.cases import pr24760 as expected
from harness import errnos
from harness.run import faults
from harness.judge import report
from harness.errors import ScenarioError, first_error
from harness.run.outcome import Outcome
from harness.run.record import RunRecord
from harness.run.runner import Result
from harness.run.scenario import Scenario

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("name, value", [("EAGAIN", errno.EAGAIN), ("einval", errno.EINVAL),
                                         ("EPERM", errno.EPERM), ("ENOMEM", errno.ENOMEM)])
def test_errno_parse(name, value):
    assert errnos.parse(name) == value


@pytest.mark.parametrize("bad", ["EFOO", "", "11", "AGAIN", "errorcode"])
def test_errno_parse_unknown(bad):
    with pytest.raises(ScenarioError, match="unknown errno name"):
        errnos.parse(bad)


def test_averror_tags_match_ffmpeg():
    assert errnos.AVERROR_EXTERNAL == -542398533
    assert errnos.AVERROR_EOF == -541478725
    assert errnos.describe(-22) == "AVERROR(EINVAL) (-22)"
    assert errnos.describe(errnos.AVERROR_EOF) == "AVERROR_EOF"


@pytest.mark.parametrize("spec", ["pthread_create=EAGAIN", "flush=AVERROR(EAGAIN)", "none",
                                  "pthread_create=EPERM"])
def test_fault_round_trip(spec):
    assert faults.parse(faults.parse(spec).spec) == faults.parse(spec)


@pytest.mark.parametrize("bad, says", [
    ("pthread_create", "bad fault spec"), ("flush=EAGAIN", "bad fault spec"),
    ("wrap:ff_dnn_execute_model=1*return(AVERROR(EINVAL))",
     "ff_dnn_execute_model is not in the wrap family (known: ff_proc_from_dnn_to_frame"),
    ("wrap:ff_proc_from_dnn_to_frame=return(0)", "a failed call cannot fail with 0"),
    ("pthread_create=EFOO", "unknown errno name 'EFOO'"),
    # a value no call of the function can fail with: not in its fault profile
    ("pthread_create=ENOMEM", "ENOMEM is not in pthread_create's fault profile (the errors "
                              "it can fail with: EAGAIN, EINVAL, EPERM)"),
    ("malloc=1*return(EAGAIN)", "EAGAIN is not in malloc's fault profile"),
    ("pthread_create=1*return(12)", "12 is not in pthread_create's fault profile"),
    ("flush=AVERROR_EOF", "the stand-in flush can only always return one AVERROR(ENAME)")])
def test_fault_parse_errors(bad, says):
    with pytest.raises(ScenarioError, match=re.escape(says)):
        faults.parse(bad)


@pytest.mark.parametrize("text, skip, count, spec", [
    ("pthread_create=EAGAIN", 0, 1, "pthread_create=EAGAIN"),
    ("pthread_create=1*return(EAGAIN)", 0, 1, "pthread_create=EAGAIN"),
    ("pthread_create=2*off->1*return(EINVAL)", 2, 1, "pthread_create=2*off->1*return(EINVAL)"),
    ("pthread_create=return(EPERM)", 0, 2**32 - 1, "pthread_create=return(EPERM)")])
def test_fault_windows(text, skip, count, spec):
    f = faults.parse(text)
    assert (f.skip, f.count, f.spec) == (skip, count, spec)
    assert faults.parse(f.spec) == f
    assert (expected.lookup("after", f) is None) == ((skip, count) != (0, 1))


def test_expectation_rule():
    eagain = faults.parse("pthread_create=EAGAIN")
    eperm = faults.parse("pthread_create=1*return(EPERM)")
    assert expected.lookup("before", eagain).activate == errno.EAGAIN
    assert expected.lookup("after", eagain).activate == errnos.AVERROR_EXTERNAL
    assert expected.lookup("after", eperm).sink == (-errno.EPERM, errnos.AVERROR_EOF)
    assert "Operation not permitted" in expected.lookup("after", eperm).log_has
    flush = faults.parse("flush=AVERROR(EAGAIN)")
    assert expected.lookup("before", flush).activate == expected.lookup("after", flush).activate
    assert expected.lookup("base", eagain) is None


def test_every_claim_cites_the_pr():
    from harness.paths import PROJECT
    mail = (PROJECT.parent / "shared/seed/pr-24760.txt")
    if not mail.is_file():
        pytest.skip("the PR mail is not beside the clone")
    words = " ".join(mail.read_text().split())
    for c in (*expected.CLAIMS, *expected.COMMIT_CLAIMS):
        if c.cites.startswith(("control", "measured here")):
            continue
        for sentence in c.cites.split("; "):
            assert " ".join(sentence.split()) in words, (c.id, sentence)


def _result(build, spec, activate, sink, outcome=Outcome.PASS):
    sc = Scenario(build, "/x", "onnx", "dnn_processing", faults.parse(spec), "/m.onnx")
    return Result(sc, outcome, RunRecord(activate_at_eof=activate, sink=sink))


def test_markdown_table_like_the_pr():
    rs = [_result("before", "pthread_create=EAGAIN", 11, [errnos.AVERROR_EOF]),
          _result("after", "pthread_create=EAGAIN", errnos.AVERROR_EXTERNAL,
                  [errnos.AVERROR_EXTERNAL, errnos.AVERROR_EOF]),
          _result("after", "pthread_create=EINVAL", -22, [-22, errnos.AVERROR_EOF],
                  Outcome.FAIL)]
    md = report.markdown(rs)
    lines = md.splitlines()
    assert lines[0] == ("| injected `pthread_create()` error | before: `activate()` at EOF | "
                        "before: sink | after: `activate()` at EOF | after: sink |")
    assert lines[2] == ("| `EAGAIN` (11) | **11** | `AVERROR_EOF` | `AVERROR_EXTERNAL` | "
                        "`AVERROR_EXTERNAL`, then `AVERROR_EOF` |")
    assert "`AVERROR(EINVAL)` (-22) ✗" in lines[3]
    assert "3 runs: 2 PASS, 1 FAIL" in md


def test_junit_counts_failures():
    rs = [_result("after", "pthread_create=EAGAIN", 0, [], Outcome.FAIL),
          _result("after", "none", 0, [], Outcome.PASS)]
    xml = report.junit(rs)
    assert 'tests="2"' in xml and 'failures="1"' in xml


@pytest.mark.unit
def test_families_are_their_stanzas():
    """Every family is a stanza (injectors/<name>.fi): its sites are the spec's, a
    preloaded one is an injector the build compiles into libfi_<name>.so, and a sweep of
    each site fails every call with the first value of its profile."""
    from harness.compile import families, injector_build
    from harness.run import specparse
    assert families.FAMILIES and set(families.FAMILIES) == {
        p.stem for p in injector_build.SRC_DIR.glob("*.fi")}
    for name, fam in families.FAMILIES.items():
        assert injector_build.stanza(name).is_file()
        for site in fam.sites():
            first = fam.declared(site.partition(":")[2] or None)[0]
            assert families.sweep_fault(site) == f"{site}=1*return({first})"
            assert specparse.parse(families.sweep_fault(site)).site == site
        assert (name in injector_build.PRELOADS) == ("preload" in fam.stanza.variants)
        assert (name in specparse.SITES) != fam.per_function


@pytest.mark.parametrize("text, line", [
    # apt-get: its E: line, not the W: or Err: lines around it
    ("Hit:1 http://deb.example sid InRelease\nW: Some index files failed\n"
     "E: Unable to locate package ffdnn-nosuch\n", "E: Unable to locate package ffdnn-nosuch"),
    ("E:Conflicting values set for option Signed-By\nE: The list of sources could not "
     "be read.\n", "E:Conflicting values set for option Signed-By"),
    # dpkg-deb, git, configure, the compiler
    ("dpkg-deb: error: 'x.deb' is not a Debian format archive\n",
     "dpkg-deb: error: 'x.deb' is not a Debian format archive"),
    ("fatal: not a git repository (or any of the parent directories): .git\n",
     "fatal: not a git repository (or any of the parent directories): .git"),
    ("ERROR: onnxruntime not found using pkg-config\n\nIf you think configure made a mistake",
     "ERROR: onnxruntime not found using pkg-config"),
    ("a.c: In function 'f':\na.c:3:5: error: 'x' undeclared\n", "a.c:3:5: error: 'x' undeclared"),
    # no error line: the last line; nothing: the caller's words
    ("first\nlast\n", "last"),
    ("\n  \n", "no output"),
])
def test_first_error_is_the_one_error_line(text, line):
    assert first_error(text) == line


@pytest.mark.unit
def test_the_wheel_holds_every_package():
    """pyproject.toml lists its packages by hand: every folder with an __init__.py is one
    of them, so an installed harness has every module the checkout has."""
    from harness.paths import PROJECT
    text = (PROJECT / "pyproject.toml").read_text()  # tomllib is 3.11's; the harness runs on 3.10
    listed = set(re.findall(r'"([\w.]+)"', re.search(r"^packages = \[(.*?)\]", text,
                                                       re.M | re.S).group(1)))
    found = {str(p.parent.relative_to(PROJECT)).replace("/", ".")
             for p in (PROJECT / "harness").rglob("__init__.py")}
    # and the data directories, each mapped from the checkout's top (harness/paths.py)
    from harness.paths import DATA_DIRS
    data = {f"harness._data.{d}" for d in DATA_DIRS}
    assert found | data == listed
    for d, where in DATA_DIRS.items():
        assert f'"harness._data.{d}" = "{where}"' in text
