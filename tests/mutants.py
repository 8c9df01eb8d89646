"""`make mutants`: mutation testing of the code that decides a verdict. mutmut (the test
extra, pyproject.toml [tool.mutmut]) changes one thing at a time in each function of SCOPE and
runs the fast tests that cover it (FAST, which feed the code real results recorded in
tests/data/verdicts/); a mutant no test fails survived. Prints, per module, the mutants killed
of all made; every survivor must be listed in tests/mutants-equivalent.txt with the reason
it is equivalent or harmless. A module that kills less than TARGET of all its mutants is
flagged (its score over the mutants that are not equivalent is given beside it).

    .venv/bin/python tests/mutants.py [--jobs N]

Exit 0 when every survivor is explained and every line of the file names one; 1 otherwise,
with each unexplained survivor's mutated line (and each line that names no survivor). The run leaves mutmut's state in mutants/
(git-ignored): `.venv/bin/mutmut show NAME` prints a mutant, `mutmut browse` all of them.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT = ROOT / "tests" / "mutants-equivalent.txt"
TARGET = 0.90

# module -> the functions (Class.method) that decide a verdict, None for all of them;
# what is left out runs real processes (harness/experiments/: sweep.sweep, diff.run,
# callers.run; the real-run tests cover them) or only formats a report
SCOPE = {
    "harness/run/outcome.py": None,
    "harness/judge/sweep.py": ["carried", "classify", "problems"],
    "harness/judge/diff.py": ["change", "judged", "against", "_changes", "worth_rerunning",
                              "leaks_more", "with_leak", "Pair._leak", "dropped_error",
                              "with_dropped_error", "with_what_ran", "Pair._dropped",
                              "Pair._blind", "Pair._judged", "Diff.count", "Diff.tally",
                              "Diff._census_errors", "Diff._exit_status", "output_change",
                              "output_judged", "Diff._output_changes"],
    "harness/judge/callers.py": ["pairs", "diffs"],
    "harness/errnos.py": None,
    "harness/run/procfs.py": ["cpu_seconds", "threads", "waiting", "ended", "family",
                              "waits_for_good", "ends_in", "_thread", "blocked", "others_blocked",
                              "_own"],
    "harness/run/idle.py": ["Idle.__init__", "Idle._cpu", "Idle.hung", "Idle.idle_for",
                            "Idle.why"],
}

# exit codes of a mutant's test run (mutmut's): a test failed (or pytest broke: the same),
# the tests ran past their time (an endless loop: detected too), no test covers it
KILLED, TIMEOUT, SURVIVED = {1, 3}, {-24, 24, 152, 255, 36}, {0}


def patterns(module: str, names) -> list:
    """mutmut's mutant names: harness.run.outcome.x_judge__mutmut_3,
    harness.judge.diff.xǁPairǁ_blind__mutmut_1."""
    dotted = module[:-3].replace("/", ".")
    if names is None:
        return [f"{dotted}.*"]
    out = []
    for n in names:
        cls, _, fn = n.rpartition(".")
        out.append(f"{dotted}.xǁ{cls}ǁ{fn}__mutmut_*" if cls else f"{dotted}.x_{fn}__mutmut_*")
    return out


def function_of(key: str) -> str:
    """harness.judge.diff.xǁPairǁ_blind__mutmut_1 -> Pair._blind."""
    name = key.rsplit(".", 1)[1].rsplit("__mutmut_", 1)[0]
    if name.startswith("xǁ"):
        _, cls, fn = name.split("ǁ")
        return f"{cls}.{fn}"
    return name[2:]


def mutated_lines(key: str, module: str) -> str:
    """The mutant's changed lines ('+' side of mutmut's diff), stripped, joined by ' / '."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    diff = get_diff_for_mutant(key, path=module)
    lines = [ln[1:].strip() for ln in diff.splitlines()
             if ln.startswith("+") and not ln.startswith("+++")]
    return " / ".join(lines) or "(a line removed)"


def read_equivalent() -> dict:
    """(module, function, mutated lines) -> why, from tests/mutants-equivalent.txt: one
    line each, `module :: function :: mutated lines :: why`, # comments."""
    out = {}
    for n, line in enumerate(EQUIVALENT.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" :: ")]
        if len(parts) != 4 or not parts[3]:
            sys.exit(f"{EQUIVALENT.name}:{n}: not `module :: function :: mutation :: why`")
        out[tuple(parts[:3])] = parts[3]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2, help="mutants at a time (default 2)")
    args = ap.parse_args()
    os.chdir(ROOT)
    shutil.rmtree("mutants", ignore_errors=True)  # stats and results of this tree only
    every = [p for m, names in SCOPE.items() for p in patterns(m, names)]
    t0 = time.monotonic()
    mutmut = Path(sys.executable).with_name("mutmut")
    run = subprocess.run([str(mutmut), "run", "--max-children", str(args.jobs), *every],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds = time.monotonic() - t0
    Path("mutants", "mutmut.log").write_text(run.stdout)
    if run.returncode != 0:
        print(run.stdout[-3000:])
        print(f"mutmut run exited {run.returncode} (mutants/mutmut.log)", file=sys.stderr)
        return 1

    import fnmatch
    equivalent, used = read_equivalent(), set()
    unexplained, rows = [], []
    for module, names in SCOPE.items():
        codes = json.loads(Path("mutants", module + ".meta").read_text())["exit_code_by_key"]
        keys = sorted(k for k in codes
                      if any(fnmatch.fnmatchcase(k, p) for p in patterns(module, names)))
        killed = [k for k in keys if codes[k] in KILLED | TIMEOUT]
        survived = [k for k in keys if k not in killed]
        explained = 0
        for k in survived:
            what = (module, function_of(k), mutated_lines(k, module))
            if what in equivalent and codes[k] in SURVIVED:
                used.add(what)
                explained += 1
            else:
                status = "survived" if codes[k] in SURVIVED else f"exit {codes[k]}"
                unexplained.append((k, status, what))
        rows.append((module, len(killed), len(keys), explained))
    width = max(len(r[0]) for r in rows)
    print(f"{'module':{width}}  killed/total   score  equivalent  score of the rest")
    for module, k, n, explained in rows + [("all", *map(sum, zip(*[r[1:] for r in rows])))]:
        score, rest = k / n if n else 1.0, k / (n - explained) if n > explained else 1.0
        flag = "" if score >= TARGET else f"  (< {TARGET:.0%}: {explained} equivalent)"
        print(f"{module:{width}}  {k:>6}/{n:<6} {score:6.1%}  {explained:>10}  {rest:16.1%}{flag}")
    print(f"mutmut: {seconds:.0f} s, {args.jobs} mutants at a time")
    for k, status, (module, fn, lines) in unexplained:
        print(f"\nnot explained ({status}): {k}\n  {module} :: {fn} :: {lines}")
    stale = [w for w in equivalent if w not in used]
    for module, fn, lines in stale:
        print(f"\n{EQUIVALENT.name}: no such survivor (killed now, or the code changed): "
              f"{module} :: {fn} :: {lines}")
    if unexplained:
        print(f"\n{len(unexplained)} survivors not explained: kill each with a test, or add "
              f"its line to {EQUIVALENT.relative_to(ROOT)} saying why it is equivalent")
    return 1 if unexplained or stale else 0


if __name__ == "__main__":
    sys.exit(main())
