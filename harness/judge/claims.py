"""A case's claims judged: each commit claim's observation on a tree against what the
claim says of that tree (diffs), a row's verdict, and the rows printed as a Markdown table
per pair of trees (the rows themselves are run by harness/experiments/claims.py: one row
per claim, as dicts with the keys of keys()). Every verdict but "does not reproduce: ..."
is as expected: a claim is declared not expressible in its row of the expected table
(with the measurement that shows why), never decided here.
"""

from harness import errnos
from harness.errors import ExitStatus
from harness.run.observation import Observation
from harness.run.scenario import ZERO_FRAME_MD5


def keys(pair) -> tuple:
    """A row's keys: the claim, one outcome per tree of the pair, the verdict."""
    return ("commit", "id", "claim", *pair, "verdict")


NOT_EXPRESSIBLE = "not expressible on"


def verdict(claim, diffs: dict, release: str = "") -> str:
    """reproduces / does not reproduce: <what differed> / not expressible on <release>: <why>."""
    bad = [f"{build}: {d}" for build, ds in diffs.items() for d in ds]
    if bad:
        return "does not reproduce: " + "; ".join(bad)
    if claim.not_expressible:
        return f"{NOT_EXPRESSIBLE} {release or 'this release'}: {claim.not_expressible}"
    return "reproduces"


def row_of(claim, cells: dict, verdict_text) -> dict:
    return {"commit": claim.commit, "id": claim.id, "claim": claim.claim, **cells,
            "verdict": verdict_text}


def diffs(obs: Observation, want: dict, reference=None) -> list:
    """What differs from a claim's expectation for one build. `want` keys: hang, crash,
    frames (md5s, a count, or "reference": the frames of the claim's reference chain),
    zero_frames (how many came out never written), boxes, errors, log (must contain),
    no_log (must not contain)."""
    out = []
    if want.get("hang", False) != obs.hang:
        out.append(f"hang: got {obs.hang}, expected {want.get('hang', False)}")
    elif obs.hang and not obs.at_eof:
        out.append("hang: before EOF, expected at EOF")
    if want.get("crash", "") != obs.crash:
        out.append(f"crash: got {obs.crash or 'none'}, expected {want.get('crash') or 'none'}")
    if obs.error:
        out.append(f"the run could not start: {obs.error}")
    frames = want.get("frames")
    if frames == "reference":
        frames = reference
    if isinstance(frames, int) and len(obs.frames) != frames:
        out.append(f"frames: got {len(obs.frames)}, expected {frames}")
    elif isinstance(frames, list) and obs.frames != frames:
        out.append(f"frames: got {obs.frames}, expected {frames}")
    zeros = sum(f == ZERO_FRAME_MD5 for f in obs.frames)
    if "zero_frames" in want and zeros != want["zero_frames"]:
        out.append(f"frames never written (all zero): got {zeros}, expected {want['zero_frames']}")
    if "boxes" in want and obs.boxes != want["boxes"]:
        out.append(f"(boxes, classified) per frame: got {obs.boxes}, expected {want['boxes']}")
    if "activate" in want and obs.activate != want["activate"]:
        out.append(f"activate() at EOF: got {errnos.describe(obs.activate)}, "
                   f"expected {errnos.describe(want['activate'])}")
    if "errors" in want and obs.errors != want["errors"]:
        out.append(f"errors: got {codes(obs.errors)}, expected {codes(want['errors'])}")
    if want.get("log") and want["log"] not in obs.log:
        out.append(f"log lacks {want['log']!r}")
    if want.get("no_log") and want["no_log"] in obs.log:
        out.append(f"log has {want['no_log']!r}")
    return out


def codes(errors) -> str:
    return ", ".join(errnos.describe(c) for c in errors) or "none"


def summary(obs: Observation, zero_md5: str = "", reference=None, ref_name: str = "") -> str:
    """One cell of the table: HANG, CRASH, or frames and errors."""
    if obs.error:
        return f"ERROR: {obs.error}"
    if obs.hang:
        where = "at EOF" if obs.at_eof else "before EOF"
        return f"HANG {where} (killed)"
    if obs.crash:
        return f"CRASH ({obs.crash})"
    n = len(obs.frames)
    text = f"{n} frame{'s' * (n != 1)}"
    zeros = sum(m == zero_md5 for m in obs.frames) if zero_md5 else 0
    if n and zeros == n:
        text += " (all zero: never written)"
    elif zeros:
        text += f" ({zeros} all zero: never written)"
    elif n and reference and obs.frames == reference:
        text += f" (= `{ref_name}`: the model's output never written)"
    if any(b for b, _ in obs.boxes or []):
        text += ", boxes/classified " + " ".join(f"{b}/{c}" for b, c in obs.boxes)
    errs = sorted(set(obs.errors), key=obs.errors.index)
    if obs.activate is not None:  # the flush route: what activate() returned at EOF
        text += f"; activate() at EOF {errnos.describe(obs.activate)}"
    return text + (f"; {codes(errs)}" if errs else "; no error")


def skipped(row: dict) -> bool:
    """A row that did not run (a backend or a sanitizer variant was not built)."""
    return row["verdict"].startswith("skipped")


def unmeasured(row: dict) -> bool:
    """A row the toolchain stopped before its claim could be measured (a sanitizer's own
    check, harness/judge/sanverdict.py): neither reproduced nor refuted."""
    return row["verdict"].startswith("not measured")


def as_expected(row: dict) -> bool:
    """reproduces, or declared not expressible (and measured so); not a row that did not
    reproduce, nor one that was skipped or could not be measured: nothing judged it."""
    return (not row["verdict"].startswith("does not reproduce") and not skipped(row)
            and not unmeasured(row))


def exit_status(rows_: list) -> ExitStatus:
    """OK every row as expected; FAIL a row that does not reproduce, was skipped, or no
    row at all; NOT_MEASURED when the only rows not as expected could not be measured on
    this toolchain."""
    bad = [r for r in rows_ if not as_expected(r)]
    if not rows_ or any(not unmeasured(r) for r in bad):
        return ExitStatus.FAIL
    return ExitStatus.NOT_MEASURED if bad else ExitStatus.OK


def trees_of(row: dict) -> list:
    """The tree names a row has an outcome for (between its claim and its verdict)."""
    names = list(row)
    return names[names.index("claim") + 1:names.index("verdict")]


def markdown(rows_: list, pair=None) -> str:
    """The rows as tables, one outcome column per tree: one table for each pair of trees
    the rows were measured on (`pair` first, when given), in the rows' order."""
    pairs = list(dict.fromkeys([*([tuple(pair)] if pair else []),
                                *(tuple(trees_of(r)) for r in rows_)])) or [()]
    tables = []
    for p in pairs:
        mine = [r for r in rows_ if tuple(trees_of(r)) == p]
        if not mine and tables:
            continue
        cells = lambda r: [str(r["commit"]), f"`{r['id']}`: {r['claim']}",
                           *(r[t] for t in p), r["verdict"]]
        lines = ["| commit | claim | " + "".join(f"{t} outcome | " for t in p) + "verdict |",
                 "|---|---|" + "---|" * len(p) + "---|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |"
                  for r in mine]
        tables.append("\n".join(lines))
    return "\n\n".join(tables)
