"""The runner's side of the fork servers (harness/run/forkserver.py): one server per (build,
tree, module variant, environment), started on first use, each scenario a Forked child
of it; a fresh interpreter instead with FFDNN_FORKSERVER=0 or when a server cannot fork
(harness/run/processes.py)."""

import atexit
import json
import os
import subprocess
import sys
import threading

from harness import reaper
from harness.run.processes import Forked, Fresh, Worker

# set by pytest for each test phase: a server is reused across them, and each child
# gets the scenario's whole environment anyway
VOLATILE = {"PYTEST_CURRENT_TEST"}


class Server:
    def __init__(self, build: str, tree: str, variant: str, env: dict):
        # not registered (reaped=False): it ends with the command on its stdin's EOF, even
        # when the command is killed, and kills its children then; registered, the end of
        # one command in a process (reaper.installed()) would end a server the pool reuses
        self.p = reaper.spawn([sys.executable, "-m", "harness.run.forkserver", build, tree,
                               variant], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=env, reaped=False)
        self.lock, self.pending, self.n, self.dead = threading.Lock(), {}, 0, False
        self.ready, self.why = threading.Event(), ""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.p.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue  # not the protocol's: the server keeps stray output off it
            if "n" not in msg:
                threads = msg.get("threads", 1)
                self.why = msg.get("error") or (f"the module's import started {threads} "
                                                "threads" if threads > 1 else "")
                self.ready.set()
                continue
            with self.lock:
                w = self.pending[msg["n"]]
                if "pid" in msg:
                    w.pid = msg["pid"]
                    reaper.add_group(w.pid)  # its own session: ended with the command
                else:
                    w.status, w.error = msg.get("status"), msg.get("error", "")
                    del self.pending[msg["n"]]
                    w.done.set()
            w.started.set()
        with self.lock:
            self.dead, self.why = True, self.why or "the fork server exited"
            for w in self.pending.values():
                w.error = "the fork server died"
                w.started.set()
                w.done.set()
        self.ready.set()
        self.p.stdout.close()

    def start(self, scenario: str, out: str, log: str, env: dict):
        """A Forked handle, or None when this server cannot fork (self.why says why)."""
        self.ready.wait(120)
        w = Forked()
        with self.lock:
            if self.why or self.dead:
                return None
            self.n += 1
            try:
                self.p.stdin.write((json.dumps({"n": self.n, "scenario": scenario, "out": out,
                                                "log": log, "env": env}) + "\n").encode())
                self.p.stdin.flush()
            except OSError:  # it died: its reader will say so to the others
                self.why = "the fork server exited"
                return None
            self.pending[self.n] = w
        w.started.wait()
        if w.pid is None:
            self.why = w.error or "the fork server could not fork"
            return None
        return w

    def close(self) -> None:
        """EOF: the server kills whatever child is left and exits."""
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.reader.join(10)


class Pool:
    """The fork servers of one matrix (or of one process: DEFAULT, closed at exit)."""

    def __init__(self):
        self.servers, self.lock, self.said = {}, threading.Lock(), set()

    def server(self, sc, env: dict):
        """The server for this scenario's build, module and environment, started if
        needed (without waiting for its import); None with FFDNN_FORKSERVER=0."""
        if os.environ.get("FFDNN_FORKSERVER", "1") == "0":
            return None
        key = (sc.build, sc.tree, sc.injector,
               tuple(sorted((k, v) for k, v in env.items() if k not in VOLATILE)))
        with self.lock:
            s = self.servers.get(key)
            if s is None or s.dead:
                if s is not None:
                    s.close()  # reap it
                s = self.servers[key] = Server(sc.build, sc.tree, sc.injector, env)
        return s

    def start(self, sc, env: dict, out: str, log: str) -> Worker:
        s = self.server(sc, env)
        if s is None:
            return Fresh(sc.to_json(), env, out, log, "FFDNN_FORKSERVER=0")
        w = s.start(sc.to_json(), out, log, env)
        if w is not None:
            return w
        why = s.why
        if (s, why) not in self.said:
            self.said.add((s, why))
            print(f"note: no fork server for {sc.build} ({sc.injector}): {why}; "
                  "a fresh process per scenario", file=sys.stderr, flush=True)
        return Fresh(sc.to_json(), env, out, log, why)

    def close(self) -> None:
        with self.lock:
            servers, self.servers = list(self.servers.values()), {}
        for s in servers:
            s.close()


DEFAULT = Pool()
atexit.register(DEFAULT.close)
