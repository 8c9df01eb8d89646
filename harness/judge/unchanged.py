"""Unchanged output: the ffmpeg program of each build, before against after.

Row 1 is the identity check (`-f md5 -` of testsrc through an identity model, against
the MD5 a case states: its identity_md5); the whole-clip rows hash `showinfo`'s lines
(frame checksums, boxes, labels) over a generated clip.
"""

import hashlib
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from harness.run import chains as graphs
from harness.errors import HarnessError
from harness.paths import atomic_dir, cache_root, digest
from harness.run import program

CLIP = {"size": "1280x720", "rate": 25, "frames": 600, "source": "testsrc2"}
SHORT_CLIP = {"size": "320x180", "rate": 25, "frames": 50, "source": "testsrc2"}
PREFIX = re.compile(r"^\[Parsed_showinfo_\d+ @ 0x[0-9a-f]+\] ")
CLASSIFY_LABEL = re.compile(r"classify:\s+label: ([^,]*),")


@dataclass
class Run:
    command: str
    exit: int
    md5: str = ""
    frames: int = 0
    boxes: int = 0
    labels: int = 0
    stderr_tail: list = field(default_factory=list)
    seconds: float = 0.0
    label_counts: dict = field(default_factory=dict)   # classify label -> boxes


def count_label(run: Run, label: str) -> int:
    return run.label_counts.get(label, 0)


def ffmpeg(tree, args: list, timeout: float = 600) -> tuple:
    """(program.Ran, its command line); a run that times out is an error."""
    r = program.run(tree.ffmpeg, args, timeout)
    print(f"$ {r.text}", file=sys.stderr, flush=True)   # progress: stdout is the report
    if r.hung:
        raise HarnessError(f"ffmpeg timed out after {timeout:g} s: {r.text}")
    return r, r.text


def identity_md5(tree, chain: str) -> Run:
    """ffmpeg -f lavfi -i testsrc=s=64x64:d=0.4 -vf CHAIN -f md5 -"""
    r, cmd = ffmpeg(tree, ["-f", "lavfi", "-i", "testsrc=s=64x64:d=0.4", "-vf", chain,
                           "-f", "md5", "-"])
    m = re.search(r"MD5=([0-9a-f]{32})", r.stdout)
    return Run(cmd, r.returncode, m.group(1) if m else "",
               stderr_tail=r.stderr.splitlines()[-5:])


def clip(tree, spec: dict = CLIP):
    """A clip made by the build itself (mpeg4 in nut), cached by what makes it."""
    key = digest(spec, tree.source)[:16]
    final = cache_root() / "clips" / f"{spec['source']}-{spec['size']}-{spec['frames']}-{key}"
    path = final / "clip.nut"
    if not path.is_file():
        with atomic_dir(final) as tmp:
            src = f"{spec['source']}=s={spec['size']}:r={spec['rate']}"
            r, cmd = ffmpeg(tree, ["-f", "lavfi", "-i", src, "-frames:v", str(spec["frames"]),
                                   "-c:v", "mpeg4", "-q:v", "3", "-threads", "1",
                                   str(tmp / "clip.nut")])
            if r.returncode != 0:
                last = (r.stderr.strip().splitlines() or ["no output"])[-1]
                raise HarnessError(f"could not make the clip ({last}): {cmd}")
    return path


def showinfo_md5(tree, clip_path, chain: str) -> Run:
    """fps=2,CHAIN,showinfo over the clip: md5 of showinfo's lines, frames, boxes, labels."""
    vf = ",".join(p for p in ("fps=2", chain, "showinfo") if p)
    # -nostats: the progress line, printed after 0.5 s, can run into a showinfo line
    r, cmd = ffmpeg(tree, ["-nostats", "-threads", "1", "-i", str(clip_path), "-vf", vf,
                           "-f", "null", "-"])
    lines = [PREFIX.sub("", l) for l in r.stderr.splitlines() if PREFIX.match(l)]
    h = hashlib.md5("\n".join(lines).encode()).hexdigest()
    counts = {}
    for m in (CLASSIFY_LABEL.search(l) for l in lines):
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return Run(cmd, r.returncode, h, seconds=r.seconds, label_counts=counts,
               frames=sum(" n:" in f" {l}" and l.lstrip().startswith("n:") for l in lines),
               boxes=sum("region:" in l for l in lines),
               labels=sum("label" in l and "classify" in l for l in lines),
               stderr_tail=r.stderr.splitlines()[-5:])


@dataclass
class Row:
    label: str       # filter chain as the PR writes it
    backend: str     # backend / model(s)
    chain: str       # the -vf part after fps=2 (empty: no DNN filter)
    runs: dict = field(default_factory=dict)   # build name -> Run


def processing_chain(backend: str, identity: bool = True) -> str:
    """dnn_processing on `backend` with its identity model, or its non-identity one.
    OpenVINO's models have fixed 64x64 shapes (9.0.2 needs them): frames are scaled."""
    model = None if identity else graphs.cached_model(graphs.NON_IDENTITY[backend])
    chain = graphs.description(backend, "dnn_processing", model)
    return chain if identity or backend != "openvino" else f"scale=64:64,{chain}"


ANALYTICS = [("`dnn_detect`", "tf", "dnn_detect", "TensorFlow, `tf-det` (constant, not trained)"),
             ("`dnn_detect`", "openvino", "dnn_detect", "OpenVINO, `ov-detect` (constant)"),
             ("`dnn_detect,dnn_classify`", "openvino", "dnn_classify",
              "TensorFlow `tf-det` + OpenVINO `ov-classify`")]


def plan_rows(backends) -> tuple[list, list]:
    """The identity rows and the whole-clip rows for the backends a tree was built with."""
    identity, clip_rows = [], [Row("(no DNN filter)", "—", "")]
    for be in [b for b in graphs.BACKENDS if b in backends]:
        identity.append(Row("identity, `-f md5 -`", f"{be}, identity", processing_chain(be)))
        clip_rows.append(Row("`dnn_processing`", f"{be}, {graphs.NON_IDENTITY[be]}",
                             processing_chain(be, identity=False)))
    for label, be, filt, what in ANALYTICS:
        if graphs.needs(be, filt) <= set(backends):
            clip_rows.append(Row(label, what, graphs.description(be, filt)))
    return identity, clip_rows


def run_rows(trees, identity: list, clip_rows: list, clip_path, jobs: int = 0) -> None:
    """Each row's program on each tree, `jobs` at a time (0: one a core): every run is
    a process of its own, and about half of one is loading the backends' libraries."""
    work = [(row, t, lambda row=row, t=t: identity_md5(t, row.chain)) for row in identity
            for t in trees]
    work += [(row, t, lambda row=row, t=t: showinfo_md5(t, clip_path, row.chain))
             for row in clip_rows for t in trees]
    with ThreadPoolExecutor(jobs or os.cpu_count() or 2) as pool:
        done = [(row, t, pool.submit(run)) for row, t, run in work]
    for row, t, future in done:  # in the rows' and trees' order, whatever ended first
        row.runs[t.name] = future.result()


def problems(identity: list, clip_rows: list) -> list:
    """What the PR claims, checked: before == after, exit 0, every filtered MD5 differs
    from the no-filter one and from each other, frame counts agree."""
    out = []
    for row in identity + clip_rows:
        runs = list(row.runs.values())
        for name, r in row.runs.items():
            if r.exit != 0 or not r.md5:
                out.append(f"{row.label} ({row.backend}): {name} exited {r.exit}")
        if len({r.md5 for r in runs}) > 1:
            out.append(f"{row.label} ({row.backend}): MD5 differs between builds")
        if len({r.frames for r in runs}) > 1:
            out.append(f"{row.label} ({row.backend}): frame count differs between builds")
    seen = {}
    for row in clip_rows:
        md5 = next(iter(row.runs.values())).md5
        if md5 in seen:
            out.append(f"{row.label} ({row.backend}) has the same MD5 as {seen[md5]}")
        seen[md5] = f"{row.label} ({row.backend})"
    return out


def markdown(identity: list, clip_rows: list, builds: list) -> str:
    lines = ["| check | backend / model(s) | " + " | ".join(f"{b} MD5" for b in builds) +
             " | frames | boxes | classify | exit |",
             "|---|---|" + "---|" * len(builds) + "---|---|---|---|"]
    for row in identity + clip_rows:
        r0 = next(iter(row.runs.values()))
        md5s = " | ".join(f"`{row.runs[b].md5}`" for b in builds)
        exits = "/".join(str(row.runs[b].exit) for b in builds)
        lines.append(f"| {row.label} | {row.backend} | {md5s} | {r0.frames or '—'} | "
                     f"{r0.boxes} | {r0.labels} | {exits} |")
    return "\n".join(lines) + "\n"
