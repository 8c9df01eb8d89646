"""The one way to run a tree's own `ffmpeg` program (or `ffmpeg_g`): in a session of its
own (reaper.spawn), so a program that spins is killed with everything it started, and one
the command is ended during is ended too; its output kept."""

import os
import shlex
import subprocess
import time
from dataclasses import dataclass

from harness import reaper
from harness.run.idle import Idle


@dataclass
class Ran:
    cmd: list
    returncode: int | None   # None: killed after its timeout
    stdout: str
    stderr: str
    seconds: float

    @property
    def hung(self) -> bool:
        return self.returncode is None

    @property
    def text(self) -> str:
        return shlex.join(self.cmd)


def run(program, args: list, timeout: float, env: dict | None = None,
        quiet: float | None = None) -> Ran:
    """Run `program -hide_banner -nostdin ARGS`; after `timeout` seconds its process group
    is killed (SIGKILL: a spinning ffmpeg does not end on SIGTERM). With `quiet`, for a
    run expected to hang, it is killed sooner: once it has sat idle that long
    (idle.Idle: a flush loop polling for a task that never completes)."""
    cmd = [str(program), "-hide_banner", "-nostdin", *args]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "1", **(env or {})}
    t0 = time.monotonic()
    with reaper.spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                      errors="replace", env=env) as p:
        idle = Idle(p.pid, quiet) if quiet else None
        while True:
            left = timeout - (time.monotonic() - t0)
            try:
                out, err = p.communicate(timeout=max(0.0, min(left, 0.1) if idle else left))
                code = p.returncode
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() - t0 < timeout and not (idle and idle.hung()):
                    continue
                p.kill_group()
                out, err = p.communicate()
                code = None
                break
    return Ran(cmd, code, out, err, round(time.monotonic() - t0, 2))
