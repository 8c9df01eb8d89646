"""A running worker, as the runner sees it: pid (also its process group), wait(seconds),
returncode, kill() (the group: SIGTERM, then SIGKILL). Fresh: a new interpreter
(python -m harness.run.worker); Forked: a fork server's child (harness/run/forkclient.py)."""

import os
import signal
import subprocess
import sys
import threading

from harness import reaper


class Worker:
    how, pid, error = "fresh", None, ""

    def wait(self, seconds) -> bool:
        raise NotImplementedError

    def kill(self) -> None:
        try:
            self._kill()
        finally:
            if self.pid is not None:
                reaper.drop_group(self.pid)

    def _kill(self) -> None:
        for sig, seconds in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                if self.wait(0):
                    return
                try:  # forked, but not yet in a group of its own (setsid)
                    os.kill(self.pid, sig)
                except ProcessLookupError:
                    return
            if self.wait(seconds):
                return


class Fresh(Worker):
    def __init__(self, scenario: str, env: dict, out: str, log: str, why: str = ""):
        with open(log, "wb") as f:  # ended with the command, even when it is killed
            self.p = reaper.spawn([sys.executable, "-m", "harness.run.worker", "--out", out],
                                  stdin=subprocess.PIPE, stdout=f, stderr=subprocess.STDOUT,
                                  env=env)
        self.pid, self.how = self.p.pid, f"fresh ({why})" if why else "fresh"
        try:
            self.p.stdin.write(scenario.encode())
            self.p.stdin.close()
        except BrokenPipeError:
            pass

    def wait(self, seconds) -> bool:
        try:
            self.p.wait(seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    @property
    def returncode(self):
        return self.p.returncode


class Forked(Worker):
    how = "fork server"

    def __init__(self):
        self.started, self.done, self.status = threading.Event(), threading.Event(), None

    def wait(self, seconds) -> bool:
        return self.done.wait(seconds)

    @property
    def returncode(self):
        return None if self.status is None else os.waitstatus_to_exitcode(self.status)
