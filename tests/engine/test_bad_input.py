"""Bad input, as a user types it, across the sub-commands: each is refused before any
work with one `error:` line and exit status 2, nothing on stdout, nothing new in the
cache, in the time it takes to start Python (no tree is built, fetched or copied)."""

import os
import subprocess
import sys
import time

import pytest

from harness.paths import PROJECT

FILE = str(PROJECT / "README.md")  # a file that is no directory, clone, model or patch
TAKES = 15.0  # seconds: an interpreter's start and the checks, never a build


def P(*args, says, id):
    return pytest.param(list(args), says, id=id)


# {empty}, {binary}, {tmp} and {clone} are filled in by the test
CASES = [
    # paths: a clone that is not there, not a directory, not a clone
    P("run", "--git-dir", "/nonexistent", says="--git-dir /nonexistent: no such directory",
      id="run-git-dir-missing"),
    P("table", "--git-dir", "/nonexistent", says="no such directory", id="table-git-dir-missing"),
    P("build", "--git-dir", "/nonexistent", says="no such directory", id="build-git-dir-missing"),
    P("probe", "--git-dir", "/nonexistent", says="no such directory", id="probe-git-dir-missing"),
    P("run", "--git-dir", FILE, says="not a directory", id="run-git-dir-file"),
    P("table", "--git-dir", FILE, says="not a directory", id="table-git-dir-file"),
    P("build", "--git-dir", FILE, says="not a directory", id="build-git-dir-file"),
    P("probe", "--git-dir", FILE, says="not a directory", id="probe-git-dir-file"),
    P("run", "--git-dir", "{tmp}", says="not a git clone", id="run-git-dir-not-clone"),
    # refs of a clone
    P("run", "--git-dir", "{clone}", "--before-ref", "no-such-ref",
      says="--from-ref 'no-such-ref': no such commit", id="run-bad-before-ref-alias"),
    P("build", "--git-dir", "{clone}", "--after-ref", "", says="--to-ref: an empty ref",
      id="build-empty-after-ref-alias"),
    P("diff", "--git-dir", "{clone}", "--to-ref", "nope~99", says="no such commit",
      id="diff-bad-to-ref"),
    P("run", "--git-dir", "{clone}", "--release", "8.1.2", says="two ways to get a tree",
      id="git-dir-and-release"),
    P("build", "--git-dir", "{clone}", "--sanitizer", "asan", says="--sanitizer builds base",
      id="git-dir-and-sanitizer"),
    P("diff", "--git-dir", "{clone}", "--from", "before", says="with --git-dir, name refs",
      id="diff-git-dir-and-tree"),
    P("diff", "--from-ref", "HEAD", says="give --git-dir", id="diff-ref-without-clone"),
    # numbers and their ranges
    P("run", "--backend-name", "openvino", "--timeout", "inf", says="--timeout: seconds must be",
      id="timeout-inf"),
    P("run", "--timeout", "-1", says="--timeout: seconds must be above 0", id="timeout-negative"),
    P("run", "--timeout", "0", says="--timeout: seconds must be above 0", id="timeout-zero"),
    P("run", "--timeout", "nan", says="--timeout: seconds must be", id="timeout-nan"),
    P("run", "--timeout", "soon", says="not a number of seconds: 'soon'", id="timeout-text"),
    P("table", "--timeout", "-1", says="--timeout: seconds must be", id="table-timeout-negative"),
    P("run", "--frames", "0", says="frames must be at least 1", id="frames-zero"),
    P("run", "--frames", "-5", says="frames must be at least 1", id="frames-negative"),
    P("run", "--frames", "100000", says="frames must be at least 1 and at most",
      id="frames-huge"),
    P("run", "--jobs", "0", says="jobs must be at least 1", id="jobs-zero"),
    P("run", "--jobs", "-1", says="jobs must be at least 1", id="jobs-negative"),
    P("run", "--jobs", "1000", says="jobs must be at least 1 and at most", id="jobs-huge"),
    P("table", "-j", "0", says="jobs must be at least 1", id="table-jobs-zero"),
    P("sweep", "--jobs", "1000", says="jobs must be", id="sweep-jobs-huge"),
    P("diff", "--jobs", "0", says="jobs must be", id="diff-jobs-zero"),
    P("diff", "--confirm", "-1", says="confirmation runs must be at least 0", id="confirm-negative"),
    P("diff", "--confirm", "1000", says="confirmation runs must be", id="confirm-huge"),
    P("sweep", "--limit", "-1", says="--limit: the sites failed must be at least 1",
      id="limit-negative"),
    P("sweep", "--limit", "0", says="must be at least 1", id="limit-zero"),
    P("claims", "--commit", "0", says="a commit number must be at least 1", id="commit-zero"),
    P("claims", "--commit", "99", says="no claims for commit 99", id="commit-unknown"),
    # names: backends, filters, trees, releases, cases, faults, routes
    P("sweep", "--backend-name", "nosuch", says="unknown backend 'nosuch'", id="sweep-backend"),
    P("sweep", "--backend-name", "onnx", "--filter", "dnn_detect",
      says="no graph for dnn_detect on onnx", id="sweep-no-graph"),
    P("sweep", "--backend-name", "tf", "--filter", "dnn_detect.yolo",
      says="no graph for dnn_detect.yolo on tf", id="sweep-no-other-graph"),
    P("run", "--backend-name", "nosuch", says="unknown backend 'nosuch'", id="run-backend"),
    P("run", "--filter", "dnn_foo", says="unknown filter 'dnn_foo'", id="run-filter"),
    P("run", "--backend-name", "onnx", "--filter", "dnn_detect", says="no graph for dnn_detect",
      id="run-no-graph"),
    P("run", "--backend-name", "onnx,tf", says="takes one --backend-name", id="run-two-backends"),
    P("diff", "--backend-name", "coreml", says="unknown backend 'coreml'", id="diff-backend"),
    P("diff", "--filter", ",", says="an empty name", id="diff-empty-filter"),
    P("run", "--build", ",", says="--build ',': an empty tree name", id="run-build-comma"),
    P("run", "--build", "before,", says="an empty tree name", id="run-build-trailing-comma"),
    P("run", "--build", "nosuch", says="unknown tree 'nosuch'", id="run-build-unknown"),
    P("run", "--build", "/nonexistent/tree", says="not a built tree", id="run-build-path"),
    P("probe", "--build", "", says="an empty tree name", id="probe-build-empty"),
    P("unchanged", "--build", ",", says="an empty tree name", id="unchanged-build-comma"),
    P("diff", "--from", "nosuch", says="unknown tree 'nosuch'", id="diff-from-unknown"),
    P("build", "--tree", "nosuch", says="--tree: unknown tree 'nosuch'", id="build-tree"),
    P("build", "--release", "", says="--release: an empty value", id="release-empty"),
    P("build", "--release", "7.0", says="unknown FFmpeg release '7.0'", id="release-unknown"),
    P("build", "--backend", "caffe", says="unknown backend 'caffe'", id="build-backend"),
    P("build", "--backend", "", says="--backend: an empty value", id="build-backend-empty"),
    P("build", "--sanitizer", "msan", says="invalid choice: 'msan'", id="sanitizer-unknown"),
    P("build", "--source", "/nonexistent.tar.xz", says="--source /nonexistent.tar.xz: no such "
      "file", id="source-missing"),
    P("build", "--source", "{empty}", says="an empty file", id="source-empty"),
    P("run", "--case", "pr1", says="unknown case 'pr1'", id="case-unknown"),
    P("run", "--case", "", says="--case: an empty value", id="case-empty"),
    P("run", "--fault", "pthread_create=EFOO", says="unknown errno name 'EFOO'", id="fault-errno"),
    P("run", "--fault", "read=EIO", says="bad fault spec 'read=EIO'", id="fault-site"),
    P("run", "--injector", "wrap", "--fault", "malloc=1*return(ENOMEM)",
      says="--injector wrap links only the pthread_create wrapper", id="wrap-and-malloc"),
    P("sweep", "--fault", "read", says="bad sweep family 'read'", id="sweep-family"),
    P("sweep", "--route", "sideways", says="unknown sweep route 'sideways'", id="sweep-route"),
    P("diff", "--route", "sideways", says="unknown sweep route", id="diff-route"),
    P("diff", "--fault", "nosuch", says="bad sweep family 'nosuch'", id="diff-family"),
    # models
    P("run", "--model", FILE, says="not an ONNX model", id="model-text-onnx"),
    P("run", "--backend-name", "tf", "--model", FILE, says="not a TensorFlow GraphDef",
      id="model-text-tf"),
    P("run", "--backend-name", "torch", "--model", FILE, says="not a TorchScript archive",
      id="model-text-torch"),
    P("run", "--backend-name", "openvino", "--model", FILE, says="not an ONNX model",
      id="model-text-openvino"),
    P("run", "--model", "/nonexistent.onnx", says="--model /nonexistent.onnx: no such file",
      id="model-missing"),
    P("run", "--model", "{empty}", says="an empty file", id="model-empty"),
    # report files that cannot be written
    P("run", "--json", "/nonexistent/x.json", says="--json /nonexistent/x.json: no such "
      "directory", id="json-no-dir"),
    P("run", "--json", "{tmp}", says="is a directory", id="json-dir"),
    P("run", "--junit", "/proc/x.xml", says="cannot write in /proc", id="junit-proc"),
    P("table", "--markdown", "/nonexistent/x.md", says="no such directory", id="table-markdown"),
    P("table", "--json", "", says="--json: an empty file name", id="table-json-empty"),
    P("diff", "--html", "{tmp}", says="--html", id="diff-html-dir"),
    P("diff", "--json", "/proc/x.json", says="cannot write in /proc", id="diff-json-proc"),
    P("claims", "--json", "/nonexistent/c.json", says="no such directory", id="claims-json"),
    P("sweep", "--json", "{tmp}", says="is a directory", id="sweep-json-dir"),
    P("run", "--results", FILE, says="--results", id="results-file"),
    # patches
    P("diff", "--patch", "/nonexistent.patch", says="/nonexistent.patch: no such file", id="patch-missing"),
    P("diff", "--patch", "{empty}", says="an empty file", id="patch-empty"),
    P("diff", "--patch", "{binary}", says="a binary file", id="patch-binary"),
    P("diff", "--patch", FILE, says="not a patch", id="patch-not-a-diff"),
    P("diff", "--patch", "/dev/null", says="/dev/null: not a file", id="patch-device"),
    # diff's shards and their merge
    P("diff", "--shard", "0/2", "--json", "{tmp}/d.json", says="bad --shard '0/2'",
      id="shard-zero"),
    P("diff", "--shard", "3/2", "--json", "{tmp}/d.json", says="bad --shard '3/2'",
      id="shard-beyond"),
    P("sweep", "--shard", "2/1", "--json", "{tmp}/s.json", says="bad --shard '2/1'",
      id="sweep-shard-beyond"),
    P("sweep", "--shard", "1/2", says="--shard needs --json FILE", id="sweep-shard-no-json"),
    P("merge", "/nonexistent.json", says="/nonexistent.json: no such file", id="merge-missing"),
    P("merge", FILE, "--json", "{tmp}", says="--json", id="merge-json-dir"),
    # coverage and mutate (issue 38)
    P("coverage", "--tree", "during", says="--tree: unknown tree 'during'", id="coverage-tree"),
    P("coverage", "--route", "sideways", says="unknown sweep route 'sideways'",
      id="coverage-route"),
    P("coverage", "--unreachable", "/nonexistent", says="--unreachable /nonexistent: no such file",
      id="coverage-unreachable-missing"),
    P("coverage", "--patch", "{empty}", says="an empty file", id="coverage-patch-empty"),
    P("coverage", "--backend-name", "caffe", says="unknown backend", id="coverage-backend-name"),
    P("mutate", says="which files to mutate", id="mutate-no-files"),
    P("mutate", "--file", "x.c", "--operator", "nope", says="unknown operator 'nope'",
      id="mutate-operator"),
    P("mutate", "--file", "x.c", "--values", "sometimes", says="bad --values 'sometimes'",
      id="mutate-values"),
    P("mutate", "--file", "x.c", "--limit", "0", says="at least 1", id="mutate-limit-zero"),
    P("mutate", "--file", "x.c", "--equivalent", "{tmp}", says="--equivalent", id="mutate-equivalent-dir"),
    P("mutate", "--from", "during", "--all", says="--from: unknown tree 'during'",
      id="mutate-from"),
    P("mutate", "--file", "x.c", "--lines", FILE, says="--lines", id="mutate-lines-not-json"),
    P("mutate", "--file", "x.c", "--lines", str(PROJECT / "docs/schema/diff.json"),
      says="not a coverage report", id="mutate-lines-not-coverage"),
    # the parser's own refusals, one line too
    P("run", "--bogus", says="unrecognized arguments: --bogus", id="unknown-option"),
    P(says="the following arguments are required: command", id="no-command"),
    P("frobnicate", says="invalid choice: 'frobnicate'", id="unknown-command"),
    P("run", "--expect", "during", says="--expect: unknown tree 'during'", id="expect-choice"),
    P("run", "--route", "sideways", says="invalid choice: 'sideways'", id="run-route-choice"),
    P("run", "--timeout", says="expected one argument", id="option-without-value"),
]


def files(tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    binary = tmp_path / "binary.patch"
    binary.write_bytes(b"diff --git a/x b/x\n\0\1\2\n@@ -1 +1 @@\n")
    return {"empty": str(empty), "binary": str(binary), "tmp": str(tmp_path),
            "clone": str(PROJECT)}


def refused(args, says, cache, env=None):
    """The command, run as a user would: one error line, exit 2, nothing on stdout,
    nothing written in `cache`, quickly."""
    before = sorted(p.relative_to(cache) for p in cache.rglob("*"))
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "harness", *args], cwd=PROJECT,
                       capture_output=True, text=True,
                       env={**os.environ, "FFDNN_CACHE": str(cache), **(env or {})})
    took = time.monotonic() - t0
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr[-2000:]
    assert says in lines[0], lines[0]
    assert "Traceback" not in r.stderr and r.stdout == "", r.stdout[-500:]
    assert sorted(p.relative_to(cache) for p in cache.rglob("*")) == before, \
        "something was written to the cache"
    assert took < TAKES, f"{took:.1f} s: work was done before the input was refused"
    return lines[0]


@pytest.mark.unit
@pytest.mark.parametrize("args, says", CASES)
def test_bad_input_is_one_line_and_no_work(args, says, tmp_path):
    fill = files(tmp_path)
    args = [a.format(**fill) if "{" in a else a for a in args]
    cache = tmp_path / "cache"
    cache.mkdir()
    # a check that let the input through would go on to fetch FFmpeg into the empty
    # cache: FFDNN_SOURCE names no tarball, so it stops there, with another error line
    refused(args, says, cache, {"FFDNN_BACKENDS": "all",
                                "FFDNN_SOURCE": str(tmp_path / "no-ffmpeg.tar.xz")})


@pytest.mark.unit
def test_enough_bad_inputs():
    assert len(CASES) >= 60


@pytest.mark.trees
def test_a_patch_that_does_not_apply_is_refused_before_the_copy(tree, tmp_path):
    """--patch on a built tree: `git apply --check` against its source, in a temporary
    index, before the 255 MB copy: no new entry, nothing written in the tree's own."""
    from tests.conftest import BACKENDS
    after = tree("after")
    cache = tmp_path / "cache"
    (cache / "trees").mkdir(parents=True)
    for part in ("src", "backends", "apt", "packages", "models"):
        os.symlink(after.path.parent.parent / part, cache / part)
    for t in after.path.parent.iterdir():  # every entry, so after's key finds its own
        if not t.name.startswith(".tmp-"):
            os.symlink(t, cache / "trees" / t.name)
    objects = sorted(os.listdir(after.src / ".git" / "objects"))
    patch = tmp_path / "no.patch"
    patch.write_text("diff --git a/libavfilter/nosuch.c b/libavfilter/nosuch.c\n"
                     "--- a/libavfilter/nosuch.c\n+++ b/libavfilter/nosuch.c\n"
                     "@@ -1 +1 @@\n-int a;\n+int b;\n")
    line = refused(["diff", "--from", "after", "--patch", str(patch), "--backend", BACKENDS],
                   "does not apply to after", cache, {"FFDNN_BACKENDS": BACKENDS})
    assert "libavfilter/nosuch.c" in line
    assert sorted(os.listdir(after.src / ".git" / "objects")) == objects
