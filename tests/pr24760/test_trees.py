"""The trees are what they claim: before - base is exactly patches 1-8, after - before
exactly patch 9, every source file on disk is the committed one, and stamps check."""

import dataclasses
import json
import re
import subprocess

import pytest

from harness.cases import pr24760 as expected
from harness.cases.pr24760 import LAYOUT
from harness.compile import ffi_build, ffi_load
from harness.judge import warnclaims
from harness.obtain import build, recipe, releases, twins
from harness.obtain.tree import Tree
from harness.errors import BuildError, StampError
from harness.paths import PATCHES, digest

pytestmark = pytest.mark.trees


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True, env={**recipe.GIT_ID, "PATH": "/usr/bin:/bin"}).stdout


def clone(tree, dest):
    git(dest.parent, "clone", "-q", "--shared", str(tree.src), str(dest))
    return dest


@pytest.mark.parametrize("child, patches", [("before", 8), ("after", 1)])
def test_source_difference_is_exactly_the_series(tree, tmp_path, child, patches):
    """The parent's committed sources with the child's patches applied, in an index of
    a clone of the parent (no checkout), are the child's sources."""
    parent, t = tree(LAYOUT.parent(child)), tree(child)
    work = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--shared", "--no-checkout", str(parent.src), str(work))
    git(work, "read-tree", "HEAD")
    new = t.stamp["series"][len(parent.stamp["series"]):]
    assert len(new) == patches
    for name in new:
        git(work, "apply", "--cached", str(PATCHES / name))
    assert git(work, "write-tree").strip() == t.stamp["source_tree"]


@pytest.mark.parametrize("name", LAYOUT.names)
def test_sources_on_disk_are_the_committed_ones(tree, name):
    t = tree(name)
    changed = git(t.src, "status", "--porcelain", "--untracked-files=no")
    assert changed == "", f"{name}: files differ from its commit: {changed[:200]}"
    assert git(t.src, "rev-parse", "HEAD^{tree}").strip() == t.stamp["source_tree"]


@pytest.mark.parametrize("name", LAYOUT.names)
def test_stamp_describes_the_build(tree, plan, name):
    s = tree(name).stamp
    assert s["source"]["sha256"] == releases.get(LAYOUT.release).sha256
    assert tuple(b["name"] for b in s["backends"]) == plan.backend_names
    assert "--enable-libonnxruntime" in s["configure"]


WARNING_LINE = re.compile(r"^\S+:\d+:(\d+:)? warning: ")
COMPILED = re.compile(r"^(?:CC|CXX|AS|HOSTCC)\t(\S+)$")


def log_warnings(tree) -> tuple[set, list]:
    """From the tree's own build.log, not its stamp: (objects it compiled, its warning lines)."""
    text = (tree.path / "build.log").read_text(errors="replace").splitlines()
    return ({m[1] for line in text if (m := COMPILED.match(line))},
            sorted(line.rstrip() for line in text if WARNING_LINE.match(line)))


@pytest.mark.parametrize("name", LAYOUT.names)
def test_stamp_warnings_are_the_build_logs(tree, name):
    """The stamp's warning lines are the compiler's, as the build log has them: a tree's
    own, plus its parent's for the objects it did not compile again."""
    t = tree(name)
    compiled, own = log_warnings(t)
    donor = {}
    if "twin" in t.stamp:  # a copy of the objects of a tree built before it
        donor = json.loads((t.path.parent / t.stamp["twin"]["entry"] / "stamp.json")
                           .read_text())["warnings"]
    elif LAYOUT.parent(name):
        donor = tree(LAYOUT.parent(name)).stamp["warnings"]
    assert compiled or "twin" in t.stamp, "the build log names the objects it compiled"
    inherited = [line for obj, ls in donor.items() if obj not in compiled for line in ls]
    assert warnclaims.lines(t.stamp) == sorted(own + inherited)
    assert t.stamp["warning_count"] == len(own) + len(inherited)


def test_warning_claims_hold_in_the_stamps(tree):
    """The PR's "no warnings in dnn_backend_common.c" and "the same warning lines in both
    builds" (expected.WARNING_CLAIMS), from before's and after's stamps; a stamp with a
    warning in that file, or one line more, fails them."""
    before, after = tree("before").stamp, tree("after").stamp
    assert warnclaims.check(expected.WARNING_CLAIMS, before, after) == \
        {c.id: [] for c in expected.WARNING_CLAIMS}
    line = "libavfilter/dnn/dnn_backend_common.c:182:9: warning: unused variable 'x'"
    extra = {**after, "warnings": {**after["warnings"],
                                   "libavfilter/dnn/dnn_backend_common.o": [line]}}
    got = warnclaims.check(expected.WARNING_CLAIMS, before, extra)
    assert all(got[c.id] for c in expected.WARNING_CLAIMS), got


def test_children_recompile_only_what_changed(tree):
    assert tree("after").stamp["objects_compiled"] < tree("base").stamp["objects_compiled"] / 10


def test_module_stamp_is_checked(tree, monkeypatch):
    t = tree("base")
    real = ffi_build.build(t)
    ffi_load.load(t)  # the matching module loads
    forged = dataclasses.replace(t, stamp={**t.stamp, "key": "0" * 64})
    monkeypatch.setattr(ffi_build, "ext_path", lambda *a: real)
    with pytest.raises(StampError, match="does not match build"):
        ffi_load.load(forged)


def test_a_patch_that_does_not_apply_names_patch_and_file(tree, tmp_path):
    t = tree("after")
    work = clone(t, tmp_path / "clone")
    patch = PATCHES / t.stamp["series"][-1]
    with pytest.raises(BuildError, match=rf"patch {patch.name} does not apply: "
                                         r"libavfilter/dnn/dnn_backend_common.c"):
        build._apply_patch("after", work, patch)  # already applied: cannot apply twice


@pytest.mark.unit
def test_derived_tree_is_built_once_and_keyed_by_its_change(tmp_path, monkeypatch):
    """A derived tree (harness/obtain/derived.py: a built tree with one commit reverted or
    one file edited, one make target rebuilt) is a cache entry: the same change on the
    same tree is reused, not rebuilt; another change, or another parent, is its own entry."""
    from harness.obtain import derived
    monkeypatch.setenv("FFDNN_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "parent" / "src"
    src.mkdir(parents=True)
    makes = tmp_path / "makes"  # the Makefile writes a line there each time it runs
    (src / "Makefile").write_text(f"prog: a.c\n\tcat a.c > prog\n\techo built >> {makes}\n")
    (src / "a.c").write_text("one\n")
    git(src, "init", "-q")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "first")
    (src / "a.c").write_text("two\n")
    git(src, "commit", "-q", "-am", "second")
    parent = Tree("p", src.parent, {"key": "k1"})

    undone = derived.without_commit(parent, "without-2", "second", "prog")
    assert (undone.src / "prog").read_text() == "one\n"
    assert undone.name == "p-without-2" and undone.stamp["parent"] == "k1"
    again = derived.without_commit(parent, "without-2", "second", "prog")
    assert again == undone and makes.read_text().count("built") == 1, "reused, not rebuilt"
    edited = derived.edited(parent, "three", "a.c", lambda t: t.replace("two", "three"), "prog")
    assert (edited.src / "prog").read_text() == "three\n" and edited.path != undone.path
    other = derived.without_commit(Tree("p", src.parent, {"key": "k2"}), "without-2",
                                   "second", "prog")
    assert other.path != undone.path and makes.read_text().count("built") == 3
    assert (src / "a.c").read_text() == "two\n", "the parent is never touched"


@pytest.mark.unit
def test_a_twin_is_the_same_sources_configured_the_same_way(tmp_path, monkeypatch):
    """find_twin: a whole tree of the cache with the same sources, configure flags,
    compiler, backends and sanitizer; not a derived one (one target built), not a
    partial one, not one configured otherwise, not a twin itself. adopt: its files and objects under the
    new tree's own git history."""
    monkeypatch.setenv("FFDNN_CACHE", str(tmp_path / "cache"))
    entries = tmp_path / "cache" / "trees"

    def entry(name, **over):
        src = entries / name / "src"
        (src / "libavfilter").mkdir(parents=True)
        (src / "a.c").write_text("int a;\n")
        git(src, "init", "-q")
        git(src, "add", "-A")
        git(src, "commit", "-q", "-m", f"{name}'s own history")
        (src / "libavfilter" / "libavfilter.a").write_text("!<arch>\nobjects of " + name)
        stamp = {"tree": name, "recipe": recipe.RECIPE, "sanitizer": None,
                 "configure": ["--disable-everything"], "compiler": "cc 1", "backends": [],
                 "runtime_dirs": [], "key": name * 4, "warnings": {}, "source": {},
                 "series": [], "series_sha256": digest([]), "head": "",
                 "source_tree": git(src, "rev-parse", "HEAD^{tree}").strip(), **over}
        (entries / name / "stamp.json").write_text(json.dumps(stamp))
        return stamp

    want = {k: v for k, v in entry("a-derived", derived={"target": "ffmpeg"}).items()
            if k in twins.TWIN_FIELDS}
    entry("b-other-flags", configure=["--disable-everything", "--enable-gpl"])
    entry("c-partial")
    (entries / "c-partial" / "src" / "libavfilter" / "libavfilter.a").unlink()
    entry("c-a-twin", twin={"entry": "d-whole", "key": "d-whole" * 4})  # only originals
    assert twins.find_twin(want) is None
    entry("d-whole")
    twin = twins.find_twin(want)
    assert twin.name == "d-whole"
    assert twins.find_twin({**want, "compiler": "cc 2"}) is None
    assert twins.find_twin({**want, "source_tree": "0" * 40}) is None

    mine = tmp_path / "new" / "src"
    mine.mkdir(parents=True)
    (mine / "a.c").write_text("int a;\n")
    git(mine, "init", "-q")
    git(mine, "add", "-A")
    git(mine, "commit", "-q", "-m", "a clone's ref")
    twins.adopt(twin, mine)
    assert (mine / "libavfilter" / "libavfilter.a").read_text() == "!<arch>\nobjects of d-whole"
    assert git(mine, "log", "--format=%s").strip() == "a clone's ref"
    assert git(mine, "status", "--porcelain", "--untracked-files=no").strip() == ""
    assert (twin.src / ".git").is_dir(), "the twin is never touched"
