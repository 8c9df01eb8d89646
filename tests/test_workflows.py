"""The example CI workflows (ci/*.yml): they parse, their jobs are whole, and every
`make` target, `python -m harness` sub-command and option, and pytest `-m` marker they
call exists in this repository."""

import itertools
import re
import shlex
from pathlib import Path

import pytest

from harness import backends, cli

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / "ci").glob("*.yml"))
ACTIONS = {"actions/checkout", "actions/setup-python", "actions/cache", "actions/upload-artifact"}
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
PLACEHOLDER = "PLACEHOLDER"

pytestmark = pytest.mark.unit


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def matrix_rows(job: dict) -> list:
    """Every combination the job's matrix strategy runs (one empty row without one)."""
    m = dict((job.get("strategy") or {}).get("matrix") or {})
    include = m.pop("include", [])
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


def registered_markers() -> set:
    text = (ROOT / "pyproject.toml").read_text()
    try:
        import tomllib
        lines = tomllib.loads(text)["tool"]["pytest"]["ini_options"]["markers"]
    except ImportError:  # Python 3.10: the markers list, read plainly
        block = re.search(r"^markers\s*=\s*\[(.*?)^\]", text, re.S | re.M).group(1)
        lines = re.findall(r'"([^"]*)"', block)
    return {line.split(":")[0].split("(")[0].strip() for line in lines}


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


def test_only_well_known_actions_at_major_versions(workflow):
    for name, job in load(workflow)["jobs"].items():
        for step in job["steps"]:
            if "uses" in step:
                action, _, version = step["uses"].partition("@")
                assert action in ACTIONS, f"job {name}: {step['uses']} is not one of {ACTIONS}"
                assert re.fullmatch(r"v\d+", version), f"job {name}: {step['uses']}: not @vN"


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
        except SystemExit:
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
                         f"[tool.pytest.ini_options] markers: {', '.join(missing)}")


def test_shards_cover_every_backend(workflow):
    job = load(workflow)["jobs"]["backend"]
    rows = matrix_rows(job)
    assert {r["marker"] for r in rows} == {"onnx", "openvino", "tensorflow", "torch"}
    for r in rows:
        assert backends.parse(r["backend"]) == (r["backend"],)
    assert job["strategy"].get("fail-fast") is False


def test_cache_keyed_on_the_build(workflow):
    doc = load(workflow)
    cache_dir = doc["env"]["FFDNN_CACHE"]
    steps = [s for s in doc["jobs"]["backend"]["steps"]
             if s.get("uses", "").startswith("actions/cache@")]
    assert len(steps) == 1
    key = steps[0]["with"]["key"]
    for part in ("builds/patches/*", "harness/trees.py", "harness/backends.py"):
        assert f"'{part}'" in key, f"cache key does not hash {part}"
        assert list(ROOT.glob(part)), f"{part}: no such file in the repository"
    assert steps[0]["with"]["path"] in (cache_dir, "${{ env.FFDNN_CACHE }}")


def test_pr_refs_job_builds_the_pull_requests_refs(workflow):
    job = load(workflow)["jobs"]["pr-refs"]
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert "--git-dir ." in runs
    for opt, ref in (("--before-ref", "base"), ("--after-ref", "head")):
        pattern = rf"{opt} \$\{{\{{ (github|forge)\.event\.pull_request\.{ref}\.sha \}}\}}"
        assert re.search(pattern, runs), f"{opt} is not the pull request's {ref} commit"
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0, "both refs need the history"


def test_commands_splitter():
    got = commands("mkdir -p results\n.venv/bin/python -m harness run --json a.json "
                   "> results/t.md || status=$?\nmake -C .ffdnn venv deps && echo ok\n")
    assert got == [["mkdir", "-p", "results"],
                   [".venv/bin/python", "-m", "harness", "run", "--json", "a.json"],
                   ["status=$?"], ["make", "-C", ".ffdnn", "venv", "deps"], ["echo", "ok"]]
