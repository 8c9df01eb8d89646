"""The example CI workflows (ci/*.yml): they parse, their jobs are whole, and every
`make` target, `python -m harness` sub-command and option, and pytest `-m` marker they
call exists in this repository."""

import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.obtain import backends
from harness import cli
from harness.errors import ExitStatus, HarnessError

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / "ci").glob("*.yml"))
# the actions each forge runs, at the major versions its runners have: a Forgejo runner
# takes checkout and cache from its mirror at v4, and GitHub's upload-artifact v4+
# refuses any server but GitHub's, so Forgejo's own is used there
ACTIONS = {
    "github-actions.yml": {"actions/checkout": None, "actions/cache": None,
                           "actions/cache/restore": None,
                           "actions/upload-artifact": None, "actions/download-artifact": None},
    "forgejo-actions.yml": {"actions/checkout": "v4", "actions/cache": "v4",
                            "actions/cache/restore": "v4",
                            "https://code.forgejo.org/forgejo/upload-artifact": "v4",
                            "https://code.forgejo.org/forgejo/download-artifact": "v4"},
}
# what changes a cache entry: the harness (trees' recipe, backends, cffi modules), the
# injectors, the model generators (models/), the patches and build scripts,
# the Python deps; harness/ holds the cases too, so a case's change is a new key (never a
# stale entry)
CACHE_INPUTS = ("builds", "harness", "injectors", "models", "pyproject.toml", "Makefile")
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
PLACEHOLDER = "PLACEHOLDER"
# each forge's context name (Forgejo's `forge`, of which `github` is an alias)
CTX = {"github-actions.yml": "github", "forgejo-actions.yml": "forge"}

pytestmark = pytest.mark.unit


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


# the backend job's matrix: the registry's shards as backend-sets prints them, none in an
# FFmpeg repository (act reads a skipped job's matrix, and an unrun job's output as its
# raw text: fromJSON of it stopped the whole run)
SHARDS = ("${{ fromJSON(!endsWith(%s.repository, '/ffmpeg') && "
          "needs.backend-sets.outputs.shards || '[]') }}")
RELEASES = ("${{ fromJSON(!endsWith(%s.repository, '/ffmpeg') && "
            "needs.backend-sets.outputs.releases || '[]') }}")


def registry_releases() -> list:
    """What `python3 -m harness.obtain.releases` prints (the releases job's matrix), run
    as backend-sets runs it: the system's Python, no virtualenv."""
    r = subprocess.run(["python3", "-m", "harness.obtain.releases"], cwd=ROOT,
                       capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def matrix_rows(job: dict) -> list:
    """Every combination the job's matrix strategy runs (one empty row without one); a
    matrix of the registry's shards (the backend-sets job's output) is what the registry
    gives."""
    m = dict((job.get("strategy") or {}).get("matrix") or {})
    include = m.pop("include", [])
    if isinstance(include, str):  # a registry's matrix, as backend-sets reads it
        assert "backend-sets" in job.get("needs", ()), include
        if include in {RELEASES % c for c in CTX.values()}:
            include = registry_releases()
        else:
            assert include in {SHARDS % c for c in CTX.values()}, include
            include = backends.shards()
    m.pop("exclude", None)
    keys = sorted(m)
    rows = [dict(zip(keys, vals)) for vals in itertools.product(*(m[k] for k in keys))]
    if not keys:
        rows = []
    rows += include
    return rows or [{}]


def substitute(text: str, row: dict) -> str:
    """${{ matrix.x }} -> the row's value; any other expression -> a placeholder."""
    def one(m):
        name = m.group(1)
        if name.startswith("matrix.") and name[7:] in row:
            return str(row[name[7:]])
        return PLACEHOLDER
    return EXPR.sub(one, text)


def commands(script: str) -> list:
    """A `run:` script as simple commands (lists of words): continuation lines joined,
    split on ;, &&, ||, |, redirections and their targets dropped."""
    script = script.replace("\\\n", " ")
    out = []
    for line in script.splitlines():
        lex = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
        lex.whitespace_split = True
        lex.commenters = "#"
        words, skip = [], False
        for tok in lex:
            if skip:
                skip = False
            elif tok in (">", ">>", "<", "2>", ">&"):
                skip = True
            elif tok in (";", "&&", "||", "|", "&", "(", ")", "{", "}"):
                out.append(words)
                words = []
            else:
                words.append(tok)
        out.append(words)
    return [w for w in out if w]


def calls(path: Path):
    """(job name, step name, words) for every simple command of every run step, once per
    matrix row."""
    for name, job in load(path)["jobs"].items():
        for row in matrix_rows(job):
            for step in job.get("steps", []):
                if "run" in step:
                    for words in commands(substitute(step["run"], row)):
                        yield name, step.get("name", ""), words


def after(words: list, *prefix: str) -> list | None:
    """The words after `python -m <module>` (any python), or None."""
    for i, w in enumerate(words):
        if Path(w).name.startswith("python") and words[i + 1:i + 1 + len(prefix)] == list(prefix):
            return words[i + 1 + len(prefix):]
    return None


def makefile_targets() -> set:
    targets = set()
    for line in (ROOT / "Makefile").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.%$()/-][^:=#]*?)\s*:(?!=)", line)
        if m and not line.startswith("\t"):
            targets.update(m.group(1).split())
    return targets


def pyproject_markers() -> set:
    text = (ROOT / "pyproject.toml").read_text()
    try:
        import tomllib
        lines = tomllib.loads(text)["tool"]["pytest"]["ini_options"]["markers"]
    except ImportError:  # Python 3.10: the markers list, read plainly
        block = re.search(r"^markers\s*=\s*\[(.*?)^\]", text, re.S | re.M).group(1)
        lines = re.findall(r'"([^"]*)"', block)
    return {line.split(":")[0].split("(")[0].strip() for line in lines}


def registered_markers() -> set:
    """pyproject.toml's markers and a marker a backend for each entry of the registry
    (harness/obtain/backends/; tests/conftest.py registers them)."""
    return pyproject_markers() | {b.marker for b in backends.BACKENDS.values()}


def marker_names(expr: str) -> set:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", expr)) - {"and", "or", "not"}


@pytest.fixture(params=WORKFLOWS, ids=lambda p: p.name)
def workflow(request):
    return request.param


def test_both_workflows_exist():
    assert {p.name for p in WORKFLOWS} >= {"forgejo-actions.yml", "github-actions.yml"}


def test_jobs_have_runs_on_and_steps(workflow):
    doc = load(workflow)
    assert doc.get("on", doc.get(True)), "no triggers (`on:`)"  # YAML 1.1 reads on as True
    assert doc.get("jobs"), "no jobs"
    for name, job in doc["jobs"].items():
        assert job.get("runs-on"), f"job {name}: no runs-on"
        assert job.get("steps"), f"job {name}: no steps"
        for step in job["steps"]:
            assert ("run" in step) != ("uses" in step), f"job {name}: step {step} needs run or uses"



def tool(name: str) -> str:
    """A command the test extra installs (check-jsonschema, actionlint, shellcheck): from
    this Python's virtualenv, else PATH."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.is_file() else shutil.which(name)
    if not found:
        pytest.skip(f"{name} is not installed (the test extra: pip install -e '.[test]')")
    return found


def test_valid_for_the_workflow_schema(workflow):
    """check-jsonschema against the GitHub workflow schema it carries (schemastore's,
    vendored: nothing fetched)."""
    r = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                        str(workflow)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


# Forgejo's file as actionlint (GitHub's rules) reads it: Forgejo's `forge` context is
# GitHub's `github` (an alias there), its actions by URL are owner/repo ones, its runner
# label is declared, and GitHub's deprecation of node20 (checkout@v4, cache@v4) is not
# Forgejo's (its runner runs JavaScript actions with the container's node)
FORGEJO_AS_GITHUB = (("forge.", "github."), ("https://code.forgejo.org/", ""))
ACTIONLINT_CONFIG = "self-hosted-runner:\n  labels: [linux-amd64]\n"


def actionlint(text: str, name: str, tmp_path: Path, *extra: str):
    config = tmp_path / "actionlint.yaml"
    config.write_text(ACTIONLINT_CONFIG)
    return subprocess.run([tool("actionlint"), "-oneline", "-no-color", "-config-file",
                           str(config), "-shellcheck", tool("shellcheck"), "-pyflakes", "",
                           *extra, "-stdin-filename", name, "-"],
                          input=text, capture_output=True, text=True)


def test_actionlint(workflow, tmp_path):
    """actionlint, with shellcheck over every run: script: expressions, contexts, needs
    and outputs, matrix properties, action inputs, runner labels, the shell's quoting."""
    text, extra = workflow.read_text(), []
    if workflow.name == "forgejo-actions.yml":
        for a, b in FORGEJO_AS_GITHUB:
            text = text.replace(a, b)
        extra = ["-ignore", 'runtime "node20" is deprecated']
    r = actionlint(text, f"ci/{workflow.name}", tmp_path, *extra)
    assert r.returncode == 0, r.stdout + r.stderr


def test_actionlint_runs_shellcheck(tmp_path):
    """The lint above checks the shell of each run: step (shellcheck is found): a broken
    workflow's unquoted revision and unknown job are reported."""
    text = ("on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    needs: nope\n"
            "    steps:\n      - run: git rev-parse ${{ github.sha }}^{tree}\n")
    r = actionlint(text, "broken.yml", tmp_path)
    assert r.returncode == 1
    assert "SC1083" in r.stdout and "[shellcheck]" in r.stdout, r.stdout + r.stderr
    assert '"nope" which does not exist' in r.stdout


def test_step_names_are_whole(workflow):
    """A plain YAML scalar ends at ` #` (a comment): a name with a `#` in it is quoted, or
    the forge shows it cut (`PR #24760 tables` shown as `PR`)."""
    cut = [line.strip() for line in workflow.read_text().splitlines()
           if re.match(r"\s*(- )?name: [^\"'].* #", line)]
    assert not cut, f"names cut by a comment: {cut}"


def test_no_glob_in_a_redirection(workflow):
    """sh does not expand a glob after < or > (`< patches/0009-*.patch` opens no file):
    the tables step once compared against an empty patch id and never ran."""
    for name, job in load(workflow)["jobs"].items():
        for step in job["steps"]:
            for line in step.get("run", "").replace("\\\n", " ").splitlines():
                lex = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
                lex.whitespace_split, lex.commenters = True, "#"
                words = list(lex)
                for op, target in zip(words, words[1:]):
                    assert not (op in ("<", ">", ">>") and re.search(r"[*?[]", target)), \
                        f"{name} / {step.get('name')}: {op} {target}"

def test_only_well_known_actions_at_major_versions(workflow):
    known = ACTIONS[workflow.name]
    for name, job in load(workflow)["jobs"].items():
        for step in job["steps"]:
            if "uses" in step:
                action, _, version = step["uses"].rpartition("@")
                assert action in known, f"job {name}: {step['uses']} is not one of {set(known)}"
                assert re.fullmatch(r"v\d+", version), f"job {name}: {step['uses']}: not @vN"
                assert known[action] in (None, version), \
                    f"job {name}: {step['uses']}: this forge's runners have @{known[action]}"


def test_every_job_runs_in_a_debian_container(workflow):
    """The apt route (ONNX Runtime's header, LibTorch) is Debian's: an Ubuntu runner's
    own apt is not, so every job runs in a Debian image (the node images are Debian)."""
    for name, job in load(workflow)["jobs"].items():
        image = job.get("container")
        image = image.get("image") if isinstance(image, dict) else image
        assert image, f"job {name}: no container"
        for row in matrix_rows(job):
            tag = substitute(image, row)
            assert re.fullmatch(r"(debian:(bookworm|trixie)|node:\d+-(bookworm|trixie))", tag), \
                f"job {name}: {tag} is not a Debian image"


def makefile_variables() -> set:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*)\s*[?:+]?=", text, re.M))


def test_make_targets_exist(workflow):
    targets, variables, seen = makefile_targets(), makefile_variables(), 0
    for job, step, words in calls(workflow):
        if words[0] != "make":
            continue
        args, skip = [], False
        for w in words[1:]:
            if skip:
                skip = False
            elif w in ("-C", "-f", "-j", "--directory", "--file"):
                skip = True
            elif "=" in w and not w.startswith("-"):
                var = w.split("=")[0]
                assert var in variables, f"{job} / {step}: make {w}: no such Makefile variable"
            elif not w.startswith("-"):
                args.append(w)
        for t in args:
            seen += 1
            assert t in targets, f"{job} / {step}: make {t}: no such target in the Makefile"
    assert seen, "the workflow calls no make target"


def test_harness_commands_parse(workflow):
    ap, seen = cli.parser(), set()
    for job, step, words in calls(workflow):
        args = after(words, "-m", "harness")
        if args is None:
            continue
        try:
            ns = ap.parse_args(args)
        except (SystemExit, HarnessError):
            pytest.fail(f"{job} / {step}: python -m harness {shlex.join(args)}: not accepted "
                        "by harness.cli.parser()")
        seen.add(ns.command)
        if getattr(ns, "backend", None):
            backends.parse(ns.backend)  # a backend name the harness knows
    assert "run" in seen, "the workflow never calls python -m harness run"


def test_pytest_markers_are_registered(workflow):
    registered, used = registered_markers(), set()
    for job, step, words in calls(workflow):
        args = after(words, "-m", "pytest")
        if args is None:
            continue
        for i, w in enumerate(args[:-1]):
            if w == "-m":
                used |= marker_names(args[i + 1])
    assert used, "the workflow runs no pytest -m selection"
    missing = sorted(used - registered)
    assert not missing, (f"markers used but not registered in pyproject.toml "
                         f"[tool.pytest.ini_options] markers or by a backend's entry: "
                         f"{', '.join(missing)}")


def test_backend_markers_are_the_registrys(pytestconfig):
    """Each backend's marker is registered from its entry (tests/conftest.py), and in that
    one place: pyproject.toml names none of them."""
    registered = {line.split(":")[0].strip() for line in pytestconfig.getini("markers")}
    mine = {b.marker for b in backends.BACKENDS.values()}
    assert mine <= registered
    assert not mine & pyproject_markers(), "a backend's marker is also in pyproject.toml"


def make_recipe(target: str) -> str:
    """A Makefile target's recipe as its shell runs it: prefixes (@, -) dropped,
    continuation lines joined, $(PY) the virtualenv's python, $$ a $."""
    out, inside = [], False
    for line in (ROOT / "Makefile").read_text().splitlines():
        if not line.startswith("\t") and re.match(rf"^{re.escape(target)}\s*:(?!=)", line):
            inside = True
        elif inside and line.startswith("\t"):
            out.append(line[1:].lstrip("@-"))
        elif inside and line.strip():
            break
    text = "\n".join(out).replace("\\\n", " ")
    return text.replace("$(PY)", ".venv/bin/python").replace("$$", "$")


def with_make_recipes(words_of: list) -> list:
    """The commands, and for each `make` call the commands of its targets' recipes (a
    target that runs pytest, as `make releases`, selects tests too)."""
    out = []
    for w in words_of:
        out.append(w)
        if w[0] == "make":
            for t in [a for a in w[1:] if not a.startswith("-") and "=" not in a]:
                out += commands(make_recipe(t))
    return out


def pytest_selections(workflow) -> list:
    """(job, -m expression, builds FFmpeg?) of every pytest run, once per matrix row; a
    `make` target's own pytest runs count."""
    out = []
    for name, job in load(workflow)["jobs"].items():
        for row in matrix_rows(job):
            words_of = [w for step in job["steps"] if "run" in step
                        for w in commands(substitute(step["run"], row))]
            builds = any(w[0] == "make" and ({"build", "sanitizers", "all", "run", "test",
                                              "release", "releases"} & set(w[1:]))
                         for w in words_of)
            for w in with_make_recipes(words_of):
                args = after(w, "-m", "pytest")
                if args is not None:
                    expr = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "-m"), "")
                    out.append((name, expr, builds))
    return out


def selects(expr: str, markers: set) -> bool:
    """Does pytest's -m `expr` select a test with `markers`? (and, or, not, parentheses)"""
    if not expr:
        return True
    code = re.sub(r"[A-Za-z_][A-Za-z0-9_]*",
                  lambda m: m.group(0) if m.group(0) in ("and", "or", "not")
                  else str(m.group(0) in markers), expr)
    return eval(code, {"__builtins__": {}})


def test_every_test_is_run_by_some_job(workflow):
    """Between them the jobs run the whole suite: a test with any one registered marker
    (or none), and the combinations the suite uses, is selected by some pytest run; a
    `unit` or `injectors` one by a job that builds no FFmpeg tree."""
    runs = pytest_selections(workflow)
    combos = [set()] + [{m} for m in registered_markers()] + [
        {"unit", "sanitizer"}, {"sanitizer", "commit1", "onnx"},
        {"sanitizer", "commit2", "tensorflow"}, {"dnn_classify", "openvino", "after"}]
    for markers in combos:
        assert any(selects(expr, markers) for _, expr, _ in runs), \
            f"no job runs a test marked {sorted(markers) or 'with no marker'}"
    for markers in ({"unit"}, {"injectors"}):
        assert any(selects(expr, markers) and not builds for _, expr, builds in runs), \
            f"no job without an FFmpeg build runs the {markers} tests"


def test_releases_job_runs_every_pinned_release(workflow):
    """One job a pinned release (harness/obtain/releases.py), each `make releases
    RELEASES=<it>`, weekly and by hand only; no other job runs the opt-in release tests
    (they build every release's trees)."""
    from harness.obtain import releases
    doc = load(workflow)
    triggers = doc.get("on", doc.get(True))
    assert "schedule" in triggers and "workflow_dispatch" in triggers
    assert all(re.fullmatch(r"[\d*/,-]+( [\d*/,-]+){4}", c["cron"]) for c in triggers["schedule"])
    job = doc["jobs"]["releases"]
    assert re.search(r"event_name == 'schedule' \|\| \w+\.event_name == 'workflow_dispatch'",
                     job["if"]), "the job runs on a push or pull request"
    assert job["strategy"].get("fail-fast") is False
    rows = matrix_rows(job)
    assert [r["release"] for r in rows] == releases.versions()
    for row in rows:
        makes = [w for step in job["steps"] if "run" in step
                 for w in commands(substitute(step["run"], row)) if w[0] == "make"]
        assert makes == [["make", "releases", f"RELEASES={row['release']}"]]
    for name, expr, _ in pytest_selections(workflow):
        assert (name == "releases") == selects(expr, {"other_release"}), \
            f"job {name}: -m {expr!r}"


def test_make_releases_runs_one_release_at_a_time():
    """`make releases` runs the opt-in tests of each release it is given (-k VERSION),
    and by default every pinned one (RELEASES from harness/obtain/releases.py)."""
    recipe = make_recipe("releases")
    runs = [after(w, "-m", "pytest") for w in commands(recipe) if after(w, "-m", "pytest")]
    assert len(runs) == 1 and "-m" in runs[0] and runs[0][runs[0].index("-m") + 1] == "other_release"
    assert runs[0][runs[0].index("-k") + 1] == "$r" and "for r in $(RELEASES)" in recipe
    assert "releases.versions()" in (ROOT / "Makefile").read_text()


def test_shards_cover_every_backend(workflow):
    """The backend shards' sets cover the four backends, TensorFlow and OpenVINO share
    one (dnn_classify needs both), and each shard runs all its set can run (its -m does
    not narrow to one backend's marker)."""
    job = load(workflow)["jobs"]["backend"]
    rows = matrix_rows(job)
    sets = [set(backends.parse(r["backends"])) for r in rows]
    assert set().union(*sets) == set(backends.BACKENDS)
    assert any({"openvino", "tf"} <= s for s in sets), "no shard with TensorFlow and OpenVINO"
    assert job["strategy"].get("fail-fast") is False
    for _, expr, _ in [r for r in pytest_selections(workflow) if r[0] == "backend"]:
        for marker in [b.marker for b in backends.BACKENDS.values()] + ["dnn_classify"]:
            assert selects(expr, {marker}), f"-m {expr!r} leaves out the {marker} tests"


def is_cache(step: dict, restore_only=None) -> bool:
    """Is the step actions/cache (restores, and saves in its post step) or, with
    restore_only None, also actions/cache/restore?"""
    action = step.get("uses", "").rpartition("@")[0]
    return action == "actions/cache" if restore_only is False else \
        action == "actions/cache/restore" if restore_only else \
        action in ("actions/cache", "actions/cache/restore")


def cache_steps(workflow):
    for name, job in load(workflow)["jobs"].items():
        for step in job["steps"]:
            if is_cache(step):
                yield name, step


def test_cache_keyed_on_the_build(workflow):
    """The key hashes every input that changes a cache entry, and names the image."""
    doc = load(workflow)
    cache_dir = doc["env"]["FFDNN_CACHE"]
    steps = list(cache_steps(workflow))
    assert {name for name, _ in steps} >= {"backend", "sanitizers", "pr-trees", "pr-shard"}
    for name, step in steps:
        key = step["with"]["key"]
        m = re.search(r"hashFiles\((.*?)\)", key)
        assert m, f"{name}: the cache key hashes no file"
        patterns = re.findall(r"'([^']+)'", m.group(1))
        prefix = ".ffdnn/" if name.startswith("pr-") else ""
        for part in CACHE_INPUTS:
            want = {f"{prefix}{part}/**", f"{prefix}{part}"}
            assert want & set(patterns), f"{name}: the cache key does not hash {part}"
            assert (ROOT / part).exists(), f"{part}: no such path in the repository"
        assert re.search(r"bookworm|trixie", key), f"{name}: the key does not name the image"
        assert step["with"]["path"] in (cache_dir, "${{ env.FFDNN_CACHE }}")


def test_cache_inputs_are_every_input():
    """Every tracked file the harness reads to make a cache entry lies under one of
    CACHE_INPUTS: a new top-level directory of code would have to be added to the keys."""
    import subprocess
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    outside = {"tests", "ci", "bench", "docs", "README.md", ".gitignore", "LICENSE",
               "results"}
    for f in files:
        top = f.split("/")[0]
        assert top in CACHE_INPUTS or top in outside or top.startswith("."), \
            f"{f}: not in the cache keys' inputs ({', '.join(CACHE_INPUTS)}) nor known as outside"


def harness_calls(job: dict) -> list:
    """(step, parsed arguments) of every `python -m harness` call of a job."""
    ap, out = cli.parser(), []
    for step in job["steps"]:
        for words in commands(substitute(step.get("run", ""), {"shard": 1})):
            args = after(words, "-m", "harness")
            if args is not None:
                out.append((step, ap.parse_args(args)))
    return out


def test_pr_trees_job_builds_the_pull_requests_refs(workflow):
    job = load(workflow)["jobs"]["pr-trees"]
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert "--git-dir ." in runs
    for opt, ref in (("--from-ref", "base"), ("--to-ref", "head")):
        pattern = rf"{opt} \$\{{\{{ (github|forge)\.event\.pull_request\.{ref}\.sha \}}\}}"
        assert re.search(pattern, runs), f"{opt} is not the pull request's {ref} commit"
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert re.fullmatch(r"\$\{\{ (github|forge)\.event\.pull_request\.head\.sha \}\}",
                        checkout["with"]["ref"])
    assert re.search(r"git fetch --no-tags --depth 1 origin "
                     r"\"\$\{\{ (github|forge)\.event\.pull_request\.base\.sha \}\}\"", runs), \
        "the base commit is fetched (that commit alone)"
    builds = [ns for _, ns in harness_calls(job) if ns.command == "build"]
    assert builds and builds[0].git_dir == ".", "the trees are built once, here"


def test_pr_jobs_judge_the_pull_request_in_shards(workflow):
    """The FFmpeg-side jobs are the regression gate for any pull request (issues 24, 25):
    pr-shard diffs base -> head, a quarter of the sites each (strategy.matrix), from the
    trees pr-trees built (its cache key, never built again); pr-gate merges the shards,
    fails on a regression (1), lets a blind diff (3) through only as such, and writes
    JUnit (the merge itself writes the report to the job summary); #24760's tables run only when the pull request's diff is
    #24760's patch."""
    jobs = load(workflow)["jobs"]
    trees, shards, gate = jobs["pr-trees"], jobs["pr-shard"], jobs["pr-gate"]
    n = len(matrix_rows(shards))
    assert n == 4 and sorted(r["shard"] for r in matrix_rows(shards)) == [1, 2, 3, 4]
    assert shards["needs"] == "pr-trees" and "pr-shard" in gate["needs"]
    (step, ns), = [(s, ns) for s, ns in harness_calls(shards) if ns.command == "diff"]
    assert ns.git_dir == "." and ns.from_ref == ns.to_ref == PLACEHOLDER
    assert re.search(r"--from-ref \$\{\{ (github|forge)\.event\.pull_request\.base\.sha",
                     step["run"]) and re.search(
        r"--to-ref \$\{\{ (github|forge)\.event\.pull_request\.head\.sha", step["run"])
    assert "--shard ${{ matrix.shard }}/4" in step["run"] and ns.json
    key = lambda job: next(s["with"]["key"] for s in job["steps"] if is_cache(s))
    assert key(shards) == key(trees), "the shards restore the trees pr-trees built"
    restore, = [s for s in shards["steps"] if is_cache(s)]
    assert is_cache(restore, restore_only=True), "a shard restores the trees, never saves"
    assert restore["with"].get("fail-on-cache-miss") is True
    assert not [ns for _, ns in harness_calls(shards) if ns.command == "build"]
    (step, ns), = [(s, ns) for s, ns in harness_calls(gate) if ns.command == "merge"]
    assert ns.json and ns.markdown and ns.html and ns.junit, "the reports are uploaded"
    assert "[ $status = 0 ] || [ $status = 3 ]" in step["run"], "1 fails the job, 3 is said"
    assert "GITHUB_STEP_SUMMARY" not in step["run"], \
        "the merge writes the job summary itself (harness/judge/annotations.py): not twice"
    tables = [(s, ns) for s, ns in harness_calls(trees) if ns.command in ("run", "table")]
    assert tables, "the case's tables are still there for #24760 itself"
    step, _ = tables[0]
    assert "git patch-id" in step["run"] and "exit 0" in step["run"], \
        "the tables run only for the case's own patch"



def fetch_commands(job: dict) -> list:
    """Every `git clone` and `git fetch` of the job's run steps, as words."""
    return [w for s in job["steps"] for w in commands(s.get("run", ""))
            if w[0] == "git" and {"clone", "fetch"} & set(w)]


def test_one_harness_commit_for_every_job(workflow):
    """pr-trees resolves FFDNN_HARNESS_REF once and hands the commit on: the shards and
    the gate fetch that commit, never the branch (a push to it during the run would give
    the shards another harness: another cache key, a miss, a verdict of mixed code)."""
    jobs = load(workflow)["jobs"]
    trees = jobs["pr-trees"]
    step = next(s for s in trees["steps"] if s.get("id") == "harness")
    assert 'echo "commit=$(git -C .ffdnn rev-parse HEAD)" >> "$GITHUB_OUTPUT"' in step["run"]
    assert trees["outputs"]["harness"] == "${{ steps.harness.outputs.commit }}"
    (fetch,) = [w for w in fetch_commands(trees) if ".ffdnn" in w]
    assert fetch[-1] == "$FFDNN_HARNESS_REF"
    for name in ("pr-shard", "pr-gate"):
        job = jobs[name]
        needs = job["needs"] if isinstance(job["needs"], list) else [job["needs"]]
        assert "pr-trees" in needs, f"{name} cannot read pr-trees' outputs"
        runs = "\n".join(s.get("run", "") for s in job["steps"])
        assert "FFDNN_HARNESS_REF" not in runs and "FFDNN_HARNESS_REF" not in job["env"]
        fetches = [w for w in fetch_commands(job) if ".ffdnn" in w]
        assert fetches and all(w[-1] == "${{ needs.pr-trees.outputs.harness }}"
                               for w in fetches), f"{name}: {fetches}"


def test_fetches_are_shallow(workflow):
    """No job fetches a history: every checkout at its default depth (one commit), every
    other fetch of one commit (--depth 1); FFmpeg's history is not needed for a diff."""
    for name, job in load(workflow)["jobs"].items():
        for s in job["steps"]:
            if s.get("uses", "").startswith("actions/checkout@"):
                assert (s.get("with") or {}).get("fetch-depth", 1) == 1, name
        for w in fetch_commands(job):
            assert "--depth" in w and w[w.index("--depth") + 1] == "1", \
                f"{name}: {shlex.join(w)}"


def test_a_commit_runs_once(workflow):
    """A push runs on main only (a branch with a pull request runs as the pull request,
    not twice), and a pull request's newer push cancels its older run."""
    doc = load(workflow)
    triggers = doc.get("on", doc.get(True))
    assert triggers["push"] == {"branches": ["main"]} and "pull_request" in triggers
    group, cancel = doc["concurrency"]["group"], doc["concurrency"]["cancel-in-progress"]
    assert re.search(r"\$\{\{ (github|forge)\.workflow \}\}-\$\{\{ (github|forge)\.event\."
                     r"pull_request\.number \|\| (github|forge)\.ref \}\}$", group), group
    assert re.fullmatch(r"\$\{\{ (github|forge)\.event_name == 'pull_request' \}\}", cancel)


def test_cache_collected_before_it_is_saved(workflow):
    """Every job whose cache step saves (actions/cache: its post step, on success) ends its
    run steps with `python -m harness cache gc` (no `if:`, so it runs whenever the entry
    is saved): an entry restored from an older one keeps nothing this checkout no longer
    names. pr-trees first drops the trees of other pull requests' commits, which gc keeps
    as a user's (ci/keep-trees.py); the shards only restore."""
    saving = set()
    for name, job in load(workflow)["jobs"].items():
        steps = job["steps"]
        if not any(is_cache(s, restore_only=False) for s in steps):
            continue
        saving.add(name)
        last = [s for s in steps if "run" in s][-1]
        words = commands(last["run"])
        assert after(words[-1], "-m", "harness") == ["cache", "gc"], \
            f"{name}: the last run step is not the cache's collection"
        assert "if" not in last, f"{name}: the collection runs whenever the entry is saved"
        if name == "pr-trees":
            ctx = CTX[workflow.name]
            keep = (f".ffdnn/ci/keep-trees.py ${{{{ {ctx}.event.pull_request.base.sha }}}} "
                    f"${{{{ {ctx}.event.pull_request.head.sha }}}}\n")
            assert last["run"].startswith(f".ffdnn/.venv/bin/python {keep}"), last["run"]
            assert (ROOT / "ci" / "keep-trees.py").is_file()
    assert saving == {"backend", "sanitizers", "releases", "mutate", "pr-trees"}


def test_cache_compressed_with_zstd(workflow):
    """actions/cache compresses with zstd when the container has it (else gzip, larger and
    slower): every job with a cache step installs DEBIAN_PACKAGES, zstd among them, before
    it (a restore must see the compression its entry was saved with)."""
    doc = load(workflow)
    assert "zstd" in doc["env"]["DEBIAN_PACKAGES"].split()
    for name, job in doc["jobs"].items():
        for i, s in enumerate(job["steps"]):
            if is_cache(s):
                assert any("$DEBIAN_PACKAGES" in p.get("run", "") for p in job["steps"][:i]), \
                    f"{name}: the cache step runs before the Debian packages"


def test_keep_trees_keeps_the_commits_given(tmp_path):
    """ci/keep-trees.py removes the trees built from other commits of a clone, keeps the
    given commits' trees, a release's trees and an entry it cannot read; bad input is one
    error line and exit 2."""
    trees = tmp_path / "trees"
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    stamps = {"base-1": {"kind": "git", "commit": a}, "after-2": {"kind": "git", "commit": b},
              "after-3": {"kind": "git", "commit": c}, "base-4": {"kind": "release"}}
    for d, source in stamps.items():
        (trees / d).mkdir(parents=True)
        (trees / d / "stamp.json").write_text(json.dumps({"source": source}))
    (trees / "odd-5").mkdir()
    script = [sys.executable, str(ROOT / "ci" / "keep-trees.py")]
    env = {**os.environ, "FFDNN_CACHE": str(tmp_path), "PYTHONPATH": str(ROOT)}
    r = subprocess.run(script + [a, b], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in trees.iterdir()) == ["after-2", "base-1", "base-4", "odd-5"]
    assert f"remove trees/after-3: built from commit {c}" in r.stdout
    for bad in ([], ["main"]):
        r = subprocess.run(script + bad, capture_output=True, text=True, env=env)
        assert r.returncode == 2 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr
    assert sorted(p.name for p in trees.iterdir()) == ["after-2", "base-1", "base-4", "odd-5"]

def test_commands_splitter():
    got = commands("mkdir -p results\n.venv/bin/python -m harness run --json a.json "
                   "> results/t.md || status=$?\nmake -C .ffdnn venv deps && echo ok\n")
    assert got == [["mkdir", "-p", "results"],
                   [".venv/bin/python", "-m", "harness", "run", "--json", "a.json"],
                   ["status=$?"], ["make", "-C", ".ffdnn", "venv", "deps"], ["echo", "ok"]]


def test_fresh_debian_script_parses_and_its_python_imports():
    """ci/fresh-debian.sh (root only, not run by the suite): sh accepts it, and each
    `python3 -c '...'` it runs against this checkout imports what exists."""
    import subprocess
    import sys
    script = ROOT / "ci" / "fresh-debian.sh"
    assert subprocess.run(["sh", "-n", str(script)]).returncode == 0
    snippets = re.findall(r"python3 -c '([^']+)'", script.read_text())
    assert snippets, "the script reads the mirror through the harness"
    for code in snippets:
        if "sys.argv" in code:
            continue  # needs a file argument (a backend.json of the chroot)
        r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True)
        assert "Traceback" not in r.stderr or "SourceError" in r.stderr, r.stderr


def test_sanitizer_job_fails_an_unmeasured_claim(workflow):
    """The sanitizer job runs `claims` for commits 1 and 2 and does not pass when the
    toolchain stopped them before they could be measured (claims' exit 4, said)."""
    job = load(workflow)["jobs"]["sanitizers"]
    calls = [(step, ns) for step, ns in harness_calls(job) if ns.command == "claims"]
    assert calls, "the sanitizer job runs no claims"
    step, ns = calls[0]
    assert sorted(ns.commit) == [1, 2] and ns.json
    run = step["run"]
    assert f'"$status" -eq {ExitStatus.NOT_MEASURED:d}' in run and "::error::" in run
    assert run.rstrip().endswith('exit "$status"'), "the step ends with claims' own status"
    assert "|| true" not in run and "continue-on-error" not in step


def test_backend_shards_come_from_the_registry(workflow):
    """The backend job's matrix is the registry's shards, as the backend-sets job prints
    them (python3 -m harness.obtain.backends shards): a backend module added is tested
    with no workflow edited."""
    import json
    jobs = load(workflow)["jobs"]
    assert jobs["backend"]["strategy"]["matrix"]["include"] == SHARDS % CTX[workflow.name]
    step = next(s for s in jobs["backend-sets"]["steps"] if s.get("id") == "shards")
    assert "python3 -m harness.obtain.backends shards" in step["run"]
    assert jobs["backend-sets"]["outputs"]["shards"] == "${{ steps.shards.outputs.shards }}"
    step = next(s for s in jobs["backend-sets"]["steps"] if s.get("id") == "releases")
    assert "python3 -m harness.obtain.releases" in step["run"]
    assert jobs["backend-sets"]["outputs"]["releases"] == "${{ steps.releases.outputs.releases }}"
    assert jobs["releases"]["strategy"]["matrix"]["include"] == RELEASES % CTX[workflow.name]
    r = subprocess.run([sys.executable, "-m", "harness.obtain.backends", "shards"], cwd=ROOT,
                       capture_output=True, text=True, check=True)
    assert json.loads(r.stdout) == backends.shards()
    assert {b for row in backends.shards() for b in row["backends"].split(",")} == \
        set(backends.BACKENDS)


def test_the_makefile_and_deps_read_the_registry():
    """The Makefile's sweeps name the registry's backends and builds/deps.sh asks it for
    the system libraries their links need: neither names a backend or a library itself."""
    make = (ROOT / "Makefile").read_text()
    assert "-m harness.obtain.backends names all" in make
    recipe = make[make.index("sweep: build"):make.index("bench: build")]
    assert not any(f"--backend-name {n}" in recipe for n in backends.BACKENDS)
    deps = (ROOT / "builds" / "deps.sh").read_text()
    assert "-m harness.obtain.backends libs" in deps
    assert "libz" not in deps and "zlib1g-dev" not in deps

def collected(*args) -> set:
    """The test ids pytest collects with `args` (run as `make test` runs it)."""
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                        "-p", "no:cacheprovider", *args], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode in (0, 5), r.stdout[-2000:] + r.stderr[-2000:]
    return {line for line in r.stdout.splitlines() if "::" in line}


def test_make_check_is_a_tier_by_marker():
    """`make check` (the fast tier) selects by its marker, not by a list of files: its
    pytest run names `-m check` (registered) and no test path; and the marker picks the
    unit tests (every one: tests/conftest.py) and the PR's table rows on the default
    backend, none of the other rows nor any other test."""
    recipe = make_recipe("check").replace("$(JOBS)", "2").replace("$(BACKENDS)", "all")
    runs = [after(w, "-m", "pytest") for w in commands(recipe)]
    (args,) = [a for a in runs if a is not None]
    assert args[args.index("-m") + 1] == "check" and "check" in pyproject_markers()
    assert not [a for a in args if a.startswith("tests") or a.endswith(".py")], args
    files = ("tests/engine/test_idle.py", "tests/pr24760/test_matrix.py")
    every, check = collected(*files), collected("-m", "check", *files)
    unit = collected("-m", "unit", *files)
    default = backends.BACKEND_SETS["default"]
    rows = {t for t in every if "::test_pr_table[" in t
            and t.split("[")[1].split("-")[1] in default}
    assert unit and rows and unit < every
    assert check == unit | rows
    assert any("::test_pr_table[" in t for t in every - check), "every row in the tier"
    assert any("::test_reverted_fix" in t for t in every - check), "an onnx test, not a row"
