"""The unchanged-output rows with a trained model over real footage (issue 19).

The PR hashed `showinfo` over a real clip through trained detectors and a classifier.
Here the footage is photographs from scikit-image's wheel panned into a clip
(harness/obtain/footage.py) and the trained model MTCNN's ONet from facenet-pytorch's
wheel (written by the case: its models), classifying each box of a detector as face or not face. Both
are fetched pinned; a row whose package cannot be fetched is skipped with a reason
naming it, never run on something else.

The rows are run by harness/experiments/trained.py; here, what their counts show.
A case's trained_rows are the data (harness/case.py's TrainedRow): each row's chain, the
generated or trained models it uses, the backends and packages it needs, and what its
counts must be over the clip.
"""

from harness.judge import unchanged as u
from harness.obtain import footage, packages


def expected_problems(p, frames: int) -> list:
    """Counts against the rows of `p` (a Plan, harness/experiments/trained.py): every
    frame, its boxes, a label a box, and faces found."""
    out = []
    for r, row in p.rows:
        for name, run in row.runs.items():
            boxes = run.boxes if r.boxes_per_frame is None else frames * r.boxes_per_frame
            got = (run.frames, run.boxes, run.labels)
            want = (frames, boxes, boxes * r.labels_per_box)
            if r.boxes_per_frame is None and not run.boxes:
                out.append(f"{r.label} ({r.what}): {name} found no box in the whole clip")
            if got != want:
                out.append(f"{r.label} ({r.what}): {name} frames/boxes/labels {got}, "
                           f"expected {want}")
            if u.count_label(run, "face") < r.faces_at_least:
                out.append(f"{r.label} ({r.what}): {name} labelled "
                           f"{u.count_label(run, 'face')} boxes face, expected at least "
                           f"{r.faces_at_least}")
    return out


def frames(short: bool) -> int:
    return len(footage.PHOTOS) * (footage.SHORT if short else footage.FULL)["grid"] ** 2


def report(p, builds: list, short: bool, conversion: str = "") -> tuple[str, list]:
    """The rows as markdown with their sources and times, and what went wrong;
    `conversion`: how the case made its models from the packages' weights."""
    rows = [row for _, row in p.rows]
    text = [f"Real footage: {footage.describe(footage.SHORT if short else footage.FULL)}."]
    if rows:
        text.append("")
        text.append(u.markdown([], rows, builds).rstrip("\n"))
        text.append("")
    for r, row in p.rows:
        times = ", ".join(f"{b} {row.runs[b].seconds:.1f} s" for b in builds)
        labels = ", ".join(f"{k} {v}" for k, v in sorted(next(iter(row.runs.values()))
                                                         .label_counts.items()))
        text.append(f"- {r.label} ({r.what}): {times}" + (f"; labels: {labels}" if labels else ""))
    for name in sorted({n for r, _ in p.rows for n in r.packages}):
        pin = packages.PACKAGES[name]
        text.append(f"- model from {packages.describe(name)}, licence: {pin.licence}"
                    + (f"; {conversion}" if conversion else ""))
    if p.clip:
        pin = packages.PACKAGES[footage.PACKAGE]
        text.append(f"- footage from {packages.describe(footage.PACKAGE)}, licence: {pin.licence}")
    text += [f"- {s}" for s in p.skipped]
    bad = u.problems([], rows) + expected_problems(p, frames(short))
    return "\n".join(text) + "\n", bad
