"""Unchanged output, run: the ffmpeg program of each build on each row (the rows and what
they show: harness/judge/unchanged.py).

The identity rows run `-f md5 -` of testsrc through an identity model; the whole-clip rows
hash `showinfo`'s lines (frame checksums, boxes, labels) over a clip the build makes.
"""

import hashlib
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor

from harness.errors import HarnessError
from harness.judge.unchanged import Row, Run
from harness.paths import atomic_dir, cache_root, digest
from harness.run import chains as graphs
from harness.run import program

CLIP = {"size": "1280x720", "rate": 25, "frames": 600, "source": "testsrc2"}
SHORT_CLIP = {"size": "320x180", "rate": 25, "frames": 50, "source": "testsrc2"}
PREFIX = re.compile(r"^\[Parsed_showinfo_\d+ @ 0x[0-9a-f]+\] ")
CLASSIFY_LABEL = re.compile(r"classify:\s+label: ([^,]*),")


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
