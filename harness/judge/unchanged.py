"""Unchanged output: the ffmpeg program of each build, before against after (run by
harness/experiments/unchanged.py): each row's runs, and what the PR claims of them checked.

Row 1 is the identity check (`-f md5 -` of testsrc through an identity model, against
the MD5 a case states: its identity_md5); the whole-clip rows hash `showinfo`'s lines
(frame checksums, boxes, labels) over a generated clip.
"""

from dataclasses import dataclass, field


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


@dataclass
class Row:
    label: str       # filter chain as the PR writes it
    backend: str     # backend / model(s)
    chain: str       # the -vf part after fps=2 (empty: no DNN filter)
    runs: dict = field(default_factory=dict)   # build name -> Run


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
