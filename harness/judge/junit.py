"""A diff as JUnit XML (`diff --junit FILE`, `merge --junit FILE`), the report a forge
shows test by test: one testcase per site (backend / filter / route / family / place, and
its n-th call there). A regression is a failure whose message says the classes and
carries the command that reruns the site in the to-tree; a site that could not run
(ERROR) or a census that could not is an error; a blind site (HANG or CRASH in both trees)
and a flaky one are skipped, with why; every other site passes. A case's claim that does
not hold (`diff --case NAME`) is one failure more. The run's tables are
harness/judge/report.py's."""

import xml.etree.ElementTree as ET

from harness.judge.diff import Change
from harness.judge.leaknote import leak_note

SUITE = "ffmpeg-dnn-fault-harness.diff"


def case_name(p) -> str:
    """The site's name in the report: backend / filter / route / family / place (#n for
    the n-th call there) = the value it was failed with."""
    nth = f" #{p.nth + 1}" if p.nth else ""
    value = f" = {p.value}" if p.value else ""
    return f"{p.group.key} / {p.place}{nth}{value}"


def _classes(p) -> str:
    return " -> ".join(s.cls.value if s is not None else "none" for s in p.sites)


def _seen(p) -> str:
    """Every class each tree showed (its reruns too): `SURFACED -> SURFACED/HANG`."""
    return " -> ".join("/".join(dict.fromkeys(c.value for c in cs)) or "none" for cs in p.seen)


def _reproduce(p) -> str:
    """The command that reruns the site: in the to-tree, else the from-tree."""
    a, b = p.sites
    return (b or a).command


def junit(d, verdict: str, wrong: list = (), case: str | None = None) -> str:
    """The XML of Diff `d` whose verdict word (PASS, FAIL, BLIND) is `verdict`; `wrong`:
    the lines of a case's claims that do not hold."""
    a, b = (s.label for s in d.sides)
    cases = []
    for p in d.pairs:
        tc = ET.Element("testcase", classname=f"{SUITE}.{p.group.backend}.{p.group.filter}",
                        name=case_name(p), time=f"{_seconds(p):.3f}")
        where = f"{p.where} ({a} -> {b}: {_classes(p)})"
        if p.change is Change.REGRESSION:
            leak = leak_note(p, a, b)
            ET.SubElement(tc, "failure", type="regression", message=(
                f"regression: {_classes(p)} at {p.where}{'; ' + leak if leak else ''}; "
                f"reproduce: {_reproduce(p)}")).text = \
                f"{where}\n{leak + chr(10) if leak else ''}reproduce: {_reproduce(p)}\n"
        elif p.change is Change.ERROR:
            why = "; ".join(s.result.reason for s in p.sites if s is not None and s.result.reason)
            ET.SubElement(tc, "error", type="error", message=(
                f"not judged (ERROR): {why or _classes(p)}")).text = \
                f"{where}\nreproduce: {_reproduce(p)}\n"
        elif p.blind:
            ET.SubElement(tc, "skipped", message=f"blind: {_seen(p)}: no run of either "
                                                 "tree ended, what the change does cannot show")
        elif p.change is Change.FLAKY:
            ET.SubElement(tc, "skipped", message=f"flaky, not judged: {_seen(p)}")
        else:
            ET.SubElement(tc, "system-out").text = f"{p.change.value}: {where}\n"
        cases.append(tc)
    for e in d.census_errors:
        tc = ET.Element("testcase", classname=f"{SUITE}.census", name=e.split(": census ")[0],
                        time="0.000")
        ET.SubElement(tc, "error", type="census", message=e)
        cases.append(tc)
    for line in d.output_changes:  # one a graph
        graph, how = line.split(": ", 1)
        tc = ET.Element("testcase", classname=f"{SUITE}.output", name=graph, time="0.000")
        kind = "skipped" if d.output_may_change else "failure"
        ET.SubElement(tc, kind, **({"type": "output"} if kind == "failure" else {}),
                      message=f"the output with no fault changed: {how}")
        cases.append(tc)
    for w in wrong:
        tc = ET.Element("testcase", classname=f"{SUITE}.case", name=w.split(": ")[0],
                        time="0.000")
        ET.SubElement(tc, "failure", type="case", message=f"not as case {case} says: {w}")
        cases.append(tc)
    count = lambda tag: sum(tc.find(tag) is not None for tc in cases)  # noqa: E731
    ts = ET.Element("testsuite", name=f"{SUITE}: {a} -> {b}", tests=str(len(cases)),
                    failures=str(count("failure")), errors=str(count("error")),
                    skipped=str(count("skipped")), time=f"{d.seconds.get('total', 0.0):.3f}")
    props = ET.SubElement(ts, "properties")
    for name, value in (("verdict", verdict), ("from", a), ("to", b)):
        ET.SubElement(props, "property", name=name, value=value)
    ts.extend(cases)
    return ET.tostring(ts, encoding="unicode", xml_declaration=True) + "\n"


def _seconds(p) -> float:
    return sum(s.result.seconds for s in p.sites if s is not None)
