"""The patches are the mail's commits: same author, date and subject, and for the
commits that apply as written the same diff apart from whitespace and line numbers."""

import re

import pytest

from harness.paths import PATCHES, PROJECT
from harness.cases.pr24760 import LAYOUT

MAIL = PROJECT.parent / "shared" / "seed" / "pr-24760.txt"
AS_WRITTEN = (1, 4, 7, 8, 9)  # patches/README.md lists what differs in 2, 3, 5, 6

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def mail_commits():
    if not MAIL.is_file():
        pytest.skip(f"the PR mail is not at {MAIL}")
    text = MAIL.read_text()
    return re.split(r"^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$", text, flags=re.M)[1:]


def header(text, field):
    m = re.search(rf"^{field}: (.*(?:\n [^\n]*)*)", text, flags=re.M)
    return " ".join(m.group(1).split())


def message(text):
    """Subject, body and trailers, whitespace folded: the mail lost its blank lines and
    wrapped the subject, so only the words and their order can be compared."""
    start = text.index("\nSubject: ")
    return " ".join(text[start:text.index("\n---\n", start)].split())


def diff_body(text, end):
    body = text[text.index("\ndiff --git"):text.rindex(end)]
    body = re.sub(r"^index [0-9a-f]+\.\.[0-9a-f]+.*$", "", body, flags=re.M)
    body = re.sub(r"@@ -\d+(,\d+)? \+\d+(,\d+)? @@", "@@", body)
    return re.sub(r"\s+", "", body)


def test_nine_patches_in_series_order():
    names = [p.name for p in LAYOUT.patch_files()]
    assert names == sorted(names) and len(names) == 9
    assert all((PATCHES / n).is_file() for n in names)


@pytest.mark.parametrize("n", range(1, 10))
def test_headers_match_the_mail(mail_commits, n):
    patch = LAYOUT.patch_files()[n - 1].read_text()
    mail = mail_commits[n - 1]
    assert header(patch, "From") == header(mail, "From")
    assert header(patch, "Date") == header(mail, "Date")
    assert message(patch) == message(mail)
    assert header(patch, "Subject").startswith(f"[PATCH {n}/9] ")


@pytest.mark.parametrize("n", AS_WRITTEN)
def test_diff_matches_the_mail_apart_from_whitespace(mail_commits, n):
    patch = LAYOUT.patch_files()[n - 1].read_text()
    assert diff_body(patch, "\n-- \n") == diff_body(mail_commits[n - 1], "\n--\n")
