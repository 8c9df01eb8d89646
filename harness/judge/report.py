"""Reports of a run: the PR's table as Markdown, and JUnit XML (the JSON is the command
envelope around the runs, harness/commands/common.py)."""

import xml.etree.ElementTree as ET

from harness import errnos
from harness.run.outcome import EAGAIN, OK, sink_sequence


def fault_label(fault) -> str:
    if fault.kind == "pthread_create":
        if not fault.simple:
            return f"`{fault.spec}`"
        return f"`{errnos.name(fault.errno)}` ({fault.errno})"
    if fault.kind == "flush":
        return f"none; the flush returns `AVERROR({errnos.name(fault.errno)})`"
    return "none" if fault.kind == "none" else f"`{fault.spec}`"


def code_cell(code) -> str:
    """A return code as the PR's tables write it: **11**, `AVERROR_EOF`, `AVERROR(EINVAL)` (-22)."""
    if code is None:
        return "—"
    if code > 0:
        return f"**{code}**"  # the positive values the graph drops
    if code in errnos.TAGGED:
        return f"`{errnos.TAGGED[code]}`"
    if code < 0:
        return f"`AVERROR({errnos.name(-code)})` ({code})"
    return str(code)


def sink_cell(codes) -> str:
    return ", then ".join(code_cell(c) for c in codes) if codes else "—"


def _cell(result, what: str) -> str:
    if result.outcome.value in ("CRASH", "HANG", "ERROR", "SKIP"):
        return result.outcome.value
    d, route = result.record, result.scenario.route
    code = d.activate_first_error if route != "flush" else d.activate_at_eof
    sink = sink_sequence(d)
    if route == "sweep":  # armed from the first frame: the errors came while draining
        sink = [c for c in d.drained or [] if c < 0 and c != EAGAIN] + sink
    text = code_cell(code) if what == "activate" else sink_cell(sink)
    if what == "sink" and d.hung:
        text += ", then hangs at EOF"
    return text if result.outcome in OK else f"{text} ✗"


def markdown(results, title: str = "") -> str:
    """One row per fault, a pair of columns (activate() at EOF, sink) per build."""
    builds = list(dict.fromkeys(r.scenario.build for r in results))
    faults = list(dict.fromkeys(r.scenario.fault for r in results))
    by = {(r.scenario.build, r.scenario.fault): r for r in results}
    thread = all(f.kind in ("pthread_create", "flush", "none") for f in faults)
    head = ["injected `pthread_create()` error" if thread else "injected fault"]
    at = "first failing" if any(r.scenario.route != "flush" for r in results) else "at EOF"
    for b in builds:
        head += [f"{b}: `activate()` {at}" if at == "at EOF" else f"{b}: {at} `activate()`",
                 f"{b}: sink"]
    lines = [f"### {title}", ""] if title else []
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in faults:
        row = [fault_label(f)]
        for b in builds:
            r = by.get((b, f))
            row += [_cell(r, "activate"), _cell(r, "sink")] if r else ["", ""]
        lines.append("| " + " | ".join(row) + " |")
    bad = [r for r in results if r.outcome not in OK]
    lines.append("")
    lines.append(f"{len(results)} runs: " + ", ".join(
        f"{sum(r.outcome == o for r in results)} {o.value}"
        for o in dict.fromkeys(r.outcome for r in results)))
    for r in bad:
        lines.append(f"- {r.scenario.id}: {r.outcome.value}: {'; '.join(r.diffs) or r.reason}")
    return "\n".join(lines) + "\n"


def junit(results, suite: str = "ffmpeg-dnn-fault-harness") -> str:
    """JUnit XML: FAIL a failure; ERROR, CRASH, HANG an error; SKIP and MEASURED (no
    expectation judged the run, so it did not pass anything) skipped."""
    bad = [r for r in results if r.outcome.value in ("FAIL",)]
    errs = [r for r in results if r.outcome.value in ("ERROR", "CRASH", "HANG")]
    ts = ET.Element("testsuite", name=suite, tests=str(len(results)), failures=str(len(bad)),
                    errors=str(len(errs)),
                    skipped=str(sum(r.outcome.value in ("SKIP", "MEASURED") for r in results)))
    for r in results:
        tc = ET.SubElement(ts, "testcase", classname=f"{suite}.{r.scenario.backend}",
                           name=r.scenario.id, time=f"{r.seconds:.3f}")
        if r in bad:
            ET.SubElement(tc, "failure", message="; ".join(r.diffs)).text = "\n".join(r.diffs)
        elif r in errs:
            ET.SubElement(tc, "error", message=f"{r.outcome.value}: {r.reason}").text = \
                r.record.output or ""
        elif r.outcome.value == "SKIP":
            ET.SubElement(tc, "skipped", message=r.reason)
        elif r.outcome.value == "MEASURED":
            ET.SubElement(tc, "skipped", message="MEASURED: no expectation for this build "
                                                 "and fault")
    return ET.tostring(ts, encoding="unicode", xml_declaration=True) + "\n"
