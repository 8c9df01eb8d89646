"""What a run that crashed or hung leaves behind, in <results>/<scenario id>/:
output.txt (faulthandler's dump, the output's tail), partial.json (the checkpoint taken
before EOF, null when the run never got there), scenario.json, result.json, reproduce.sh
(one command that reruns exactly that scenario) and, for a hang, backtrace.txt: gdb's
backtrace of every thread, taken before the kill (or why there is none)."""

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from harness.run import chains as graphs
from harness.errors import HarnessError
from harness.paths import PROJECT, atomic_dir

GDB_TIMEOUT = 60.0
OUTPUT_TAIL = 65536


def backtrace(pid: int) -> str:
    """gdb -p PID -batch ... -ex 'thread apply all bt', or why there is no backtrace.
    Only the harness module's symbols are read (FFmpeg is linked into it): reading those
    of every backend library (LibTorch, TensorFlow) takes gdb minutes on a busy machine."""
    gdb = shutil.which("gdb")
    cmd = ["gdb", "-p", str(pid), "-batch", "-nx", "-iex", "set auto-solib-add off",
           "-ex", "sharedlibrary _ffdnn", "-ex", "thread apply all bt"]
    if gdb is None:
        return f"gdb is not installed: no C backtrace ({shlex.join(cmd)} would give one)\n"
    try:
        r = subprocess.run([gdb, *cmd[1:]], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, errors="replace", timeout=GDB_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"{shlex.join(cmd)} did not finish in {GDB_TIMEOUT:g} s: no C backtrace\n"
    return f"$ {shlex.join(cmd)}  (exit {r.returncode})\n{r.stdout}{r.stderr}"


def _model(sc):
    """The --model a scenario's graph was made with: None for the generated one."""
    if sc.description == graphs.description(sc.backend, sc.filter):
        return None
    for m in re.findall(r"model=([^:]+)", sc.description):
        if graphs.description(sc.backend, sc.filter, m) == sc.description:
            return m
    raise ValueError("not expressible on the command line")


def command(sc, preload: str | None, where: Path, measured: bool = False) -> str:
    """`python -m harness run` with the options that make exactly this scenario; the
    worker itself on the saved scenario.json for what the command line cannot say."""
    py = [sys.executable, "-m"]
    try:
        if sc.extra or sc.entry:
            raise ValueError("extra settings")
        model = _model(sc)
    except ValueError:
        env = {"PYTHONPATH": str(PROJECT), "TF_CPP_MIN_LOG_LEVEL": "1"}
        if preload and sc.injector == "preload":
            env["LD_PRELOAD"] = preload
        return (f"cd {shlex.quote(str(PROJECT))} && env "
                + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " "
                + shlex.join(py + ["harness.run.worker", "--out", str(where / "rerun.json")])
                + f" < {shlex.quote(str(where / 'scenario.json'))}")
    args = py + ["harness", "run", "--build", sc.tree, "--backend-name", sc.backend,
                 "--filter", sc.filter, "--route", sc.route, "--fault", sc.fault.spec,
                 "--frames", str(sc.frames), "--timeout", f"{sc.timeout:g}", "--jobs", "1",
                 "--injector", sc.injector, "--results", str(where.parent)]
    args += ["--expect", sc.expect] if sc.expect else []
    args += ["--model", model] if model else []
    args += ["--measure"] if measured else []  # no expectation: a measurement
    return f"cd {shlex.quote(str(PROJECT))} && {shlex.join(args)}"


def keep(results, r, output: str, partial, preload: str | None,
         trace: str | None = None, measured: bool = False) -> Path:
    """Write the artifacts of Result `r` into <results>/<id>/ (replacing an older set);
    `partial` is the RunRecord the worker checkpointed (empty: none)."""
    root = Path(results).resolve()
    final = root / r.scenario.id
    files = {"output.txt": output[-OUTPUT_TAIL:],
             "partial.json": json.dumps(partial.to_dict() or None, indent=1) + "\n",
             "scenario.json": r.scenario.to_json() + "\n",
             "result.json": json.dumps(r.to_dict(), indent=1) + "\n",
             "reproduce.sh": "#!/bin/sh\n# reruns exactly this scenario\n"
                             + command(r.scenario, preload, final, measured) + "\n"}
    if trace is not None:
        files["backtrace.txt"] = trace
    try:
        with atomic_dir(final, replace=True) as tmp:
            tmp.chmod(0o755)
            for name, text in files.items():
                (tmp / name).write_text(text)
            (tmp / "reproduce.sh").chmod(0o755)
    except OSError as e:
        raise HarnessError(f"results directory {root}: {e.strerror}") from None
    return final
