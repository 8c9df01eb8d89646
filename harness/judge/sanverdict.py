"""The verdict on a sanitizer claim: which reports are the one the claim is about, and
one row of the claims table from a base run and a before run
(harness/experiments/sanitizer.py)."""

from collections import Counter


def _source_line(tree, frame) -> str:
    path = tree.src / frame.file
    if not frame.file or not path.is_file():
        return ""
    lines = path.read_text(errors="replace").splitlines()
    return lines[frame.line - 1] if 0 < frame.line <= len(lines) else ""


def matches(claim, report, tree) -> bool:
    """Is `report` the one the claim is about? Its kind, every function the claim names
    in its access stacks, a caller the claim names, and the variable: for ASan the one
    the access ran past, for TSan named in the source line (in `tree`) of an access
    stack's top FFmpeg frame."""
    want = claim.base
    if report.kind != want["kind"] or not set(want["functions"]) <= report.functions():
        return False
    if want["callers"] and not set(want["callers"]) & report.functions():
        return False
    if report.variable:
        return report.variable == want["variable"]
    tops = [next((f for f in s.frames if f.ffmpeg), None) for s in report.stacks]
    return any(f and want["variable"] in _source_line(tree, f) for f in tops)


def judge(claim, base, before) -> dict:
    """One row of the claims table: what base and before did, and the verdict. A run
    with no such report counts only when the graph ran to the end (its output MD5)."""
    def did(r) -> tuple:
        if r.exit is None:
            return [], f"timed out after {r.seconds:g} s"
        hits = [x for x in r.reports if matches(claim, x, r.tree)]
        other = len(r.reports) - len(hits)
        text = (f"{len(hits)}x " if len(hits) < 2 else f"{len(hits)} reports, first: ") + \
            hits[0].brief() if hits else claim.before
        paths = Counter(c for x in hits for c in claim.base["callers"] if c in x.functions())
        if paths:
            text += "; through " + ", ".join(f"{c}() {n}x" for c, n in paths.items())
        stops = stopped(r)
        other -= len(stops)
        text += f" (+{other} other report{'s' * (other > 1)})" if other else ""
        text += f"; stopped by {stops[0].brief()}" if stops else ""
        return hits, f"{text}; exit {r.exit}"
    (base_hits, base_text), (before_hits, before_text) = did(base), did(before)
    unreached = [c for c in claim.base["callers"]
                 if not any(c in x.functions() for x in base_hits)]
    unfinished = [r for r in (base, before) if not (r.md5 or matches_any(claim, r))]
    aborted = [(r, stopped(r)[0]) for r in (base, before) if stopped(r)]
    if base.exit is None or before.exit is None:
        verdict = "does not reproduce: a run timed out"
    elif aborted:
        r, x = aborted[0]
        measured = f"base had {len(base_hits)} such report{'s' * (len(base_hits) != 1)}" \
            + (f", before {len(before_hits)}" if before is not r or before_hits else "")
        verdict = (f"not measured on this toolchain: {r.tree.name} stopped in the "
                   f"sanitizer's own check, not at a report of the claim ({x.brief()}); "
                   f"the run's end and its output could not be measured ({measured} "
                   "before that)")
    elif unfinished:
        r = unfinished[0]
        verdict = f"does not reproduce: {r.tree.name} did not run the graph to its end " \
                  f"(exit {r.exit}: {(r.stderr_tail or ['no output'])[-1]})"
    elif not base_hits:
        verdict = f"does not reproduce: base has no {claim.base['kind']} report on " \
                  f"{claim.base['variable']} in {', '.join(claim.base['functions'])}()"
    elif unreached:
        verdict = f"does not reproduce: base has no such report through {unreached[0]}()"
    elif before_hits:
        verdict = f"does not reproduce: before still reports it ({before_hits[0].brief()})"
    else:
        verdict = "reproduces"
    return {"commit": claim.commit, "id": claim.id, "claim": claim.claim,
            "base": base_text, "before": before_text, "verdict": verdict}


def matches_any(claim, r) -> bool:
    """A run that stopped at the claim's report (ASan halts on the first) did run."""
    return any(matches(claim, x, r.tree) for x in r.reports)


def stopped(r) -> list:
    """The reports of a run that are the runtime stopping in its own check."""
    from .sanreport import CHECK_KIND
    return [x for x in r.reports if x.kind == CHECK_KIND]
