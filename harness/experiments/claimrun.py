"""Run one of a case's commit claims (its commit_claims) on one tree and
say what it did: frames out (md5, boxes), errors, log, HANG or CRASH (judged against the
claim by harness/judge/claims.py).

Two runners. "worker": buffer -> graph -> buffersink in a worker process (harness/run/worker.py,
no fault armed), for the activate() filters. "ffmpeg": the tree's own ffmpeg program over
two 64x64 testsrc frames (`-f framemd5`), for derain and sr: they have no activate() to
record and no flush, and run synchronously in filter_frame(), so the program's error code
and frames say everything.
"""

import errno
import re
import signal

from harness import errnos
from harness.run import faults, chains as graphs
from harness.compile import ffi_build
from harness.run.idle import QUIET
from harness.run.observation import Observation
from harness.run.runner import Expect, run_one
from harness.run.scenario import Scenario
from harness.run import program

SETTLE = 10.0  # how long the worker waits for each frame before it moves on (frames.settle, harness/run/frames.py)
FRAME_IDLE = 1.0  # a row that hangs: a frame is given up once no other thread worked that long
TIMEOUT = 10.0  # the ffmpeg program: the claims that hang poll at EOF at once (sooner: QUIET)
NOT_A_RESULT = (-errno.EAGAIN, errnos.AVERROR_EOF)
FFMPEG_INPUT = ["-f", "lavfi", "-i", "testsrc=s=64x64:r=25:d=0.08"]
TASK_ERROR = re.compile(r"^\[vf#[^\]]*\] Task finished with error code: (-?\d+)", re.M)
FRAME_MD5 = re.compile(r"^\d+,\s*-?\d+,\s*-?\d+,\s*\d+,\s*\d+,\s*([0-9a-f]{32})$", re.M)


def description(claim, graph: str = "") -> str:
    if not (graph or claim.graph):  # the harness's own graph for the backend and filter
        return graphs.description(claim.backend, claim.filter)
    paths = {f: str(graphs.cached_model(n)) for f, n in claim.models.items()}
    return (graph or claim.graph).format(**paths)


def run_key(claim, build: str, graph: str = "") -> tuple:
    """What makes two rows' runs the same run on one build (they share it)."""
    return (build, claim.runner, claim.frames, claim.fault, description(claim, graph))


def observe(claim, tree, preload: str, graph: str = "", runner: str = "") -> Observation:
    """What the claim's run on `tree` showed. `runner` overrides the claim's (a reverted
    copy of a tree has a program but no cffi module)."""
    if (runner or claim.runner) == "ffmpeg":
        return _ffmpeg(tree, description(claim, graph), hangs(claim))
    return _worker(claim, tree, preload, description(claim, graph))


def hangs(claim) -> bool:
    """Whether a build of the row hangs: then a run that sits idle where it should end
    (idle.Idle) is judged hung at once, not at its timeout."""
    return any(want.get("hang") for want in (claim.base, claim.before))


def _worker(claim, tree, preload, desc: str) -> Observation:
    ffi_build.build(tree, "preload")
    # long enough for every frame's wait, so a run that hangs is killed at EOF
    # a fault is armed before the first frame (route sweep), with the backend's own flush,
    # unless the claim takes the PR's route (armed after the frames, the stand-in flush)
    route = claim.route or ("flush" if claim.fault == "none" else "sweep")
    sc = Scenario(tree.name, str(tree.path), claim.backend, claim.filter,
                  faults.parse(claim.fault), desc, route=route,
                  timeout=SETTLE * claim.frames + 4, frames=claim.frames,
                  extra={"frame_idle": FRAME_IDLE} if hangs(claim) else {})
    r = run_one(sc, preload, expect=Expect(lambda sc: None, lambda sc: hangs(claim)))
    d = r.record
    if r.outcome.value == "ERROR":
        return Observation([], [], d.log or "", False, error=r.reason)
    codes = (d.drained or []) + (d.sink or [])
    frames = d.frames or []
    return Observation(
        [f.md5 for f in frames], [c for c in codes if c < 0 and c not in NOT_A_RESULT],
        d.log or "", r.outcome.value == "HANG",
        r.reason.rsplit(" ", 1)[-1] if r.outcome.value == "CRASH" else "",
        boxes=[(len(f.boxes), sum(len(b.classify) for b in f.boxes)) for f in frames],
        activate=d.activate_at_eof if claim.route == "flush" else None,
        at_eof=d.eof_push is not None or d.drained is not None)  # the checkpoint before EOF


def _ffmpeg(tree, desc: str, hang: bool = False) -> Observation:
    r = program.run(tree.ffmpeg, ["-threads", "1", *FFMPEG_INPUT, "-vf", desc,
                                  "-f", "framemd5", "-"], TIMEOUT, quiet=QUIET if hang else None)
    code = -signal.SIGKILL if r.hung else r.returncode
    crash = signal.Signals(-code).name if code < 0 and not r.hung else ""
    errors = [int(c) for c in TASK_ERROR.findall(r.stderr)]
    if code > 0 and not errors:  # refused before filtering: exit = -AVERROR & 0xff
        errors = [-(256 - code)]
    return Observation(FRAME_MD5.findall(r.stdout), errors, r.stderr, r.hung, crash,
                       exit=code)
