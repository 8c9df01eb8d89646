"""A sweep judged: the class of each run that failed one site of a family (the sweep runs
in harness/experiments/sweep.py: a clean census counts the calls FFmpeg's own code makes,
then each is failed in turn), what makes a sweep fail against what the case expects, and
its table."""

import enum
import re
import warnings
from collections import Counter
from dataclasses import dataclass

from harness import errnos
from harness.run.outcome import Outcome

FRAMES = 4  # the frames each run of a sweep sends


class Class(str, enum.Enum):
    SURFACED = "SURFACED"  # a negative AVERROR reached activate() or the sink
    LOST = "LOST"          # a positive code was returned and dropped, the run ended in EOF
    DROPPED = "DROPPED"    # fewer frames out than in, no error anywhere
    ALTERED = "ALTERED"    # every frame came out, no error, but not the clean run's frames
                           # (their pixels, or their boxes and labels)
    HANG = "HANG"          # killed after its timeout
    CRASH = "CRASH"        # died on a signal
    CLEAN = "CLEAN"        # every frame came out and nothing was lost
    ERROR = "ERROR"        # the scenario could not run


@dataclass
class Site:
    build: str
    index: int
    cls: Class
    result: object
    command: str
    where: str = ""    # the call's stack in FFmpeg's code, from the census


class Found(tuple):
    """(number of sites, [Site]) for one build, and `.census`: the clean run that counted
    the sites (its Result), so a census that could not run is not read as 0 sites."""

    def __new__(cls, count: int, sites: list, census_run=None):
        found = super().__new__(cls, (count, sites))
        found.census = census_run
        return found


def carried(frames) -> list:
    """What a sweep compares of a run's frames ([Frame] of harness/run/record.py), a key a
    frame: its md5 and its side data, each box where it is, its label and confidence
    (dnn_detect's) and the labels and confidences it was classified with (dnn_classify's).
    Compared exactly: the filters write confidences in ten-thousandths, and the census of
    every graph with boxes gave the same ones run after run (docs/sweeps-and-diffs.md).
    A frame recorded without its boxes (None) reads as one with none."""
    return [(f.md5, [(b.box, b.label, b.confidence,
                      [(c.label, c.confidence) for c in b.classify]) for b in f.boxes or ()])
            for f in frames or []]


def classify(r, clean_frames=None) -> Class:
    """The run's class; `clean_frames` (the census run's frames, [Frame]) tells a frame
    forwarded unwritten or from unfilled input, or one whose boxes or labels are not the
    census's (a label file read in part, a box left unclassified), all ALTERED, from the
    model's own (CLEAN): carried() is what is compared."""
    if r.outcome in (Outcome.HANG, Outcome.CRASH, Outcome.ERROR):
        return Class(r.outcome.value)
    d = r.record
    if d.setup is not None and d.setup.ret < 0:  # the graph could not be made, and said so
        return Class.SURFACED
    codes = [a.ret for a in d.activate or []] + (d.drained or []) + (d.sink or [])
    if any(c < 0 and c not in (errnos.AVERROR_EOF, -11) for c in codes):
        return Class.SURFACED
    if any(c > 0 for c in codes):
        return Class.LOST
    if len(d.frames or []) < getattr(r.scenario, "frames", FRAMES):
        return Class.DROPPED
    if clean_frames and isinstance(clean_frames[0], str):  # md5s, as classify() took before
        warnings.warn("classify(r, md5s) compares the pixels only: give it the census run's "
                      "frames (its record.frames), whose boxes and labels count too",
                      DeprecationWarning, stacklevel=2)
        if [f.md5 for f in d.frames or []] != list(clean_frames):
            return Class.ALTERED
    elif clean_frames is not None and carried(d.frames) != carried(clean_frames):
        return Class.ALTERED
    return Class.CLEAN


def problems(found: dict, want=...) -> list:
    """What makes a sweep fail: a census that did not run clean, a site that CRASHed or
    could not run (ERROR), and, given what the case expects (`want`), a site of another
    class: one class for every site (the case's sweep), None for a family with no site
    at all, or a tuple with each call's class in order (the case's sweep_sites, which
    also fixes the number of sites). One line per problem."""
    out = []
    for build, f in found.items():
        n, sites = f
        census_run = getattr(f, "census", None)
        if census_run is not None and census_run.outcome not in (Outcome.PASS,
                                                                Outcome.MEASURED):
            out.append(f"{build}: the census run (no call failed) ended "
                       f"{census_run.outcome.value}: {census_run.reason}")
        elif census_run is not None and not census_run.record.injector:
            out.append(f"{build}: the census run had no injector loaded: its 0 sites "
                       "mean nothing")
        if want is None and n:
            out.append(f"{build}: {n} sites, expected none")
        if isinstance(want, tuple) and n != len(want):
            out.append(f"{build}: {n} sites, expected {len(want)}")
        for s in sites:
            site_want = want[s.index] if isinstance(want, tuple) and s.index < len(want) \
                else want
            if s.cls in (Class.CRASH, Class.ERROR):
                out.append(f"{build} call {s.index + 1}: {s.cls.value}: {s.result.reason}")
            elif isinstance(site_want, str) and s.cls.value != site_want:
                out.append(f"{build} call {s.index + 1}: {s.cls.value}, expected {site_want}")
    return out


def markdown(found: dict, title: str) -> str:
    """One row per call index, a column per build, and where the call is made (from the
    first build's census; a build whose census differs there adds its own);
    a class that differs is bold."""
    builds = list(found)
    by = {(s.build, s.index): s for _, sites in found.values() for s in sites}
    lines = [f"### {title}", "", "| call | " + " | ".join(builds) + " | where |",
             "|---|" + "---|" * (len(builds) + 1)]
    for i in sorted({i for _, i in by}):  # the sites run (all, or the first --limit)
        cells = [by[(b, i)].cls.value if (b, i) in by else "—" for b in builds]
        if len(set(cells)) > 1:
            cells = [f"**{c}**" for c in cells]
        places = {}  # builds whose census differs in more than line numbers add theirs
        for b in builds:
            w = by[(b, i)].where if (b, i) in by else ""
            places.setdefault(re.sub(r":\d+\)", ")", w), w)
        where = "; ".join(f"`{w}`" for w in places.values() if w) or "—"
        lines.append(f"| {i + 1} | " + " | ".join(cells) + f" | {where} |")
    counts = Counter(s.cls.value for _, sites in found.values() for s in sites)
    lines += ["", "Sites: " + ", ".join(f"{b} {found[b][0]}" for b in builds) + "; runs: " +
              ", ".join(f"{n} {c}" for c, n in sorted(counts.items())), ""]
    for b in builds:
        for s in found[b][1]:
            if s.cls is not Class.CLEAN:
                lines.append(f"- {b} call {s.index + 1}: {s.cls.value}: `{s.command}`")
    lines += leak_lines(found)
    return "\n".join(lines) + "\n"


def leaks_of(result):
    """What a run left behind of FFmpeg's blocks (harness/run/leaks.py: Leaks), None if
    not counted (a run that hung or crashed, a result with no record)."""
    record = getattr(result, "record", None)
    return record.leaks if record is not None else None


def leak_lines(found: dict) -> list:
    """What each build's census (no call failed) left behind of FFmpeg's blocks once the
    graph was freed, and every site whose run left more than its census: one line each."""
    out = []
    for b, f in found.items():
        census = leaks_of(getattr(f, "census", None))
        base = census.blocks if census is not None else 0
        if base:
            out.append(f"- {b} census: left {base} blocks ({census.bytes} bytes) behind: "
                       + "; ".join(f"`{p.where}` {p.blocks}" for p in census.places))
        for s in f[1]:
            left = leaks_of(s.result)
            if left is not None and left.blocks > base:
                out.append(f"- {b} call {s.index + 1}: {s.cls.value}, left {left.blocks} blocks "
                           f"({left.bytes} bytes) behind, {left.blocks - base} more than its "
                           "census: " + "; ".join(f"`{p.where}` {p.blocks}" for p in left.places))
    return [""] + out if out else []
