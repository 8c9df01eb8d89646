"""A Debian suite's tree (`--release debian:SUITE`, harness/obtain/debian.py): the
release it ships, its source package's patches applied in the series' order, and the
pins that name them. The real packages are fetched and built by the opt-in release
tests (tests/pr24760/test_gate_release.py)."""

import subprocess

import pytest

from harness.errors import BuildError, SourceError
from harness.obtain import debian, releases, sourcetext
from harness.paths import file_sha256

pytestmark = pytest.mark.unit


def test_a_series_is_read_as_quilt_reads_it():
    text = "# Debian's\n0001-a.patch\n\n0002-b.patch -p0  # old style\n 0003-c.patch\n"
    assert debian.series(text) == [("0001-a.patch", 1), ("0002-b.patch", 0),
                                   ("0003-c.patch", 1)]
    assert debian.series("") == []


@pytest.mark.parametrize("suite, version, debian_version", [
    ("bookworm", "5.1.9", "7:5.1.9-0+deb12u1"),
    ("trixie", "7.1.5", "7:7.1.5-0+deb13u1"),
    ("sid", "8.1.2", "7:8.1.2-2"),
])
def test_a_suite_names_its_release_and_package(suite, version, debian_version):
    rel = releases.get(f"debian:{suite}")
    upstream = releases.get(version)
    assert (rel.version, rel.sha256) == (version, upstream.sha256)  # the same orig tarball
    assert (rel.debian_suite, rel.packaging.version) == (suite, debian_version)
    assert rel.debian_spec == upstream.debian_spec
    assert rel.name == f"debian:{suite}" and upstream.name == version
    assert rel.describe() == f"FFmpeg {version} as Debian {suite} patches it ({debian_version})"
    assert rel.packaging.name == f"ffmpeg_{debian_version[2:]}.debian.tar.xz"
    # a distribution's tree: every patch tried with git am -3, even of a series adapted to
    # its release
    assert not releases.strict(rel, version) and releases.strict(upstream, version)
    assert releases.find(f"debian:{suite}") == rel
    assert releases.find("debian:hamm") is None and releases.find("4.3.7") is None


def _package(tmp_path, patches: dict, series: str | None):
    """A debian tarball holding `patches` and (unless None) a series, and its pin."""
    d = tmp_path / "pkg" / "debian" / "patches"
    d.mkdir(parents=True)
    for name, text in patches.items():
        (d / name).write_text(text)
    if series is not None:
        (d / "series").write_text(series)
    tarball = tmp_path / "ffmpeg_1.0-1.debian.tar.xz"
    subprocess.run(["tar", "-cJf", str(tarball), "-C", str(tmp_path / "pkg"), "debian"],
                   check=True)
    return tarball, debian.Packaging("sid", "7:1.0-1", file_sha256(tarball),
                                     tarball.stat().st_size)


def _tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.c").write_text("int a;\nint b;\n")
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "orig"]):
        subprocess.run(["git", *args], cwd=src, check=True)
    return src


PATCH = """From: someone
Subject: change b

---
--- a/a.c
+++ b/a.c
@@ -1,2 +1,2 @@
 int a;
-int b;
+int b = 1;
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FFDNN_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_patches_are_applied_in_order(tmp_path, cache):
    tarball, pkg = _package(tmp_path, {"0001-b.patch": PATCH}, "0001-b.patch\n")
    (cache / "src").mkdir(parents=True)
    (cache / "src" / pkg.name).write_bytes(tarball.read_bytes())
    src = _tree(tmp_path)
    assert debian.apply(pkg, src) == ["0001-b.patch"]
    assert (src / "a.c").read_text() == "int a;\nint b = 1;\n"
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=src,
                            capture_output=True, text=True).stdout
    assert staged == "a.c\n"  # in the index, for the tree's own commit


def test_a_package_without_patches_changes_nothing(tmp_path, cache):
    tarball, pkg = _package(tmp_path, {}, None)
    (cache / "src").mkdir(parents=True)
    (cache / "src" / pkg.name).write_bytes(tarball.read_bytes())
    src = _tree(tmp_path)
    assert debian.apply(pkg, src) == []
    assert (src / "a.c").read_text() == "int a;\nint b;\n"


def test_a_patch_that_does_not_apply_is_named(tmp_path, cache):
    bad = PATCH.replace("-int b;", "-int c;")
    tarball, pkg = _package(tmp_path, {"0001-b.patch": bad}, "0001-b.patch\n")
    (cache / "src").mkdir(parents=True)
    (cache / "src" / pkg.name).write_bytes(tarball.read_bytes())
    with pytest.raises(BuildError, match=r"Debian's patch 0001-b.patch \(7:1.0-1\) does not "
                                         "apply to the orig tarball"):
        debian.apply(pkg, _tree(tmp_path))


def test_a_debian_tarball_is_checked_against_its_pin(tmp_path, cache):
    tarball, pkg = _package(tmp_path, {}, None)
    (cache / "src").mkdir(parents=True)
    (cache / "src" / pkg.name).write_bytes(tarball.read_bytes() + b"x")
    with pytest.raises(SourceError, match=f"is not the pinned {pkg.sha256} of Debian's "
                                          r"ffmpeg 7:1.0-1 \(sid\)"):
        debian.fetch(pkg)


@pytest.mark.parametrize("header, want", [
    ("struct AVFilterContext {\n const AVClass *av_class;\n unsigned ready;\n int x;\n};", True),
    ("struct AVFilterContext {\n /** Ready status */\n unsigned int ready;\n};", True),
    ("struct AVFilterContext {\n const AVClass *av_class;\n int x;\n};\n"
     "typedef struct FFFilterContext {\n unsigned ready;\n} FFFilterContext;", False),
    ("", False),
])
def test_a_public_ready_is_read_from_avfilter_h(header, want):
    assert sourcetext.has_context_ready(header) is want
