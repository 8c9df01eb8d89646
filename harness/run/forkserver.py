"""A fork server: python -m harness.run.forkserver BUILD TREE VARIANT

Imports one build's cffi module once, then forks one child per scenario, so a scenario
starts from a fresh copy of a process that has loaded the module and done nothing else.
The runner's side is harness/run/forkclient.py. One JSON object a line each way:
  in:  {"n": 1, "scenario": "<Scenario JSON>", "out": "result.json", "log": "output.txt",
        "env": {...}}
  out: {"ready": true, "threads": 1} or {"error": "..."} first; then {"n": 1, "pid": 123}
       when the child is forked, {"n": 1, "status": <wait status>} when it is reaped,
       or {"n": 1, "error": "..."} when it could not be forked.
A child calls setsid() (its own process group, which the runner kills on timeout), writes
its output to "log" and its result to "out" exactly as python -m harness.run.worker does.
Forking is only safe single-threaded: the thread count is checked before every fork.
EOF on stdin (the runner closed the pipe or died) kills every child's group and exits.
"""

import faulthandler
import json
import os
import select
import signal
import sys
import traceback

from harness.run import sites, symbolizer, worker
from harness.errors import ExitStatus, HarnessError


def threads() -> int:
    return len(os.listdir("/proc/self/task"))


def child(req: dict, keep: list) -> None:
    """In the forked child: never returns."""
    status = ExitStatus.INTERNAL_ERROR  # unless the worker says otherwise
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the server's own handler is not ours
        os.setsid()
        for fd in keep:
            os.close(fd)
        log = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        os.environ.clear()  # the scenario's own, as a fresh worker would have it
        os.environ.update(req["env"])
        faulthandler.enable()
        status = worker.execute(req["scenario"], req["out"])
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


def serve(build: str, tree: str, variant: str) -> int:
    proto = os.dup(1)
    os.dup2(2, 1)  # stray prints go to stderr, never into the protocol

    def send(msg):
        os.write(proto, (json.dumps(msg) + "\n").encode())
    try:
        ffi, lib = worker.module(build, tree, variant)
    except HarnessError as e:
        send({"error": str(e)})
        return ExitStatus.OK
    symbolizer.keep(sites.module_object(ffi, lib))  # the children name their stacks through it
    worker.prepare(tree)  # what every child reads of the tree, read once
    send({"ready": True, "threads": threads()})
    children = {}  # pidfd -> (n, pid)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(ExitStatus.OK))
    try:
        loop(proto, send, children)
    finally:
        for _, pid in children.values():
            kill(pid)
        symbolizer.stop()
    return ExitStatus.OK


def kill(pid: int) -> None:
    """SIGKILL a child's group; the child alone if it has not called setsid() yet (it is
    not reaped, so its pid is still its own)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def loop(proto: int, send, children: dict) -> None:
    buf, eof = b"", False
    while not eof or children:
        if eof:  # the runner is gone: so are its scenarios
            for _, pid in children.values():
                kill(pid)
        ready, _, _ = select.select(([] if eof else [0]) + list(children), [], [])
        for fd in ready:
            if fd in children:
                n, pid = children.pop(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                send({"n": n, "status": status})
                continue
            data = os.read(0, 65536)
            eof, buf = not data, buf + data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                req = json.loads(line)
                if threads() > 1:
                    send({"n": req["n"], "error": f"{threads()} threads: no fork"})
                    continue
                sys.stdout.flush()
                sys.stderr.flush()
                try:
                    pid = os.fork()
                except OSError as e:
                    send({"n": req["n"], "error": f"fork: {e.strerror}"})
                    continue
                if pid == 0:
                    child(req, [proto, *children])
                children[os.pidfd_open(pid)] = (req["n"], pid)
                send({"n": req["n"], "pid": pid})


if __name__ == "__main__":
    sys.exit(serve(*sys.argv[1:4]))
