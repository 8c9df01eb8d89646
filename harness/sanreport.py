"""Sanitizer reports (AddressSanitizer, ThreadSanitizer) parsed into small records.

A report starts at `==PID==ERROR: AddressSanitizer: KIND ...` or
`WARNING: ThreadSanitizer: KIND (pid=N)` and ends at its `SUMMARY:` line. Stacks are
read from their frames (`#0 0xPC in func file:line` for ASan, `#0 func file:line
(module+0xoff)` for TSan); a frame is FFmpeg's when its file lies in the tree
(`libavfilter/...`, `fftools/...`), which the unstripped `ffmpeg_g` gives.
"""

import re
from dataclasses import dataclass
from pathlib import Path

HEADER = re.compile(r"^(?:==\d+==)?(?:ERROR|WARNING): (?P<tool>AddressSanitizer|ThreadSanitizer): "
                    r"(?P<kind>.+?)(?: on (?:unknown )?address.*| \(pid=\d+\).*)?$")
SUMMARY = re.compile(r"^SUMMARY: (AddressSanitizer|ThreadSanitizer): ")
FRAME = re.compile(r"^\s+#\d+ (?:0x[0-9a-f]+ (?:in )?)?(?P<func>.+?)"
                   r"(?: (?P<file>\S+):(?P<line>\d+)(?::\d+)?)?(?: \([^()\s]*\+0x[0-9a-f]+\))?$")
STACK_HEAD = re.compile(r"^\s*(?P<what>(?:Previous )?(?:[Aa]tomic )?(?:[Rr]ead|[Ww]rite|READ|WRITE)"
                        r" of size \d+)(?: at 0x[0-9a-f]+)?(?: by)? ?(?P<who>.*?):?$")
VARIABLE = re.compile(r"'(?P<name>[^']+)' \(line \d+\) <== Memory access")
OWN_FILE = re.compile(r"^(lib[a-z]+|fftools)/")


@dataclass(frozen=True)
class Frame:
    function: str
    file: str = ""
    line: int = 0

    @property
    def ffmpeg(self) -> bool:
        return bool(OWN_FILE.match(self.file))

    def __str__(self) -> str:
        return f"{self.function} {self.file}:{self.line}" if self.file else self.function


@dataclass(frozen=True)
class Stack:
    what: str      # "READ of size 8", "Previous write of size 4"
    who: str       # "thread T7 (vf#0:0)", "main thread"
    frames: tuple  # Frame, innermost first


@dataclass(frozen=True)
class Report:
    tool: str      # AddressSanitizer or ThreadSanitizer
    kind: str      # "stack-buffer-overflow", "data race"
    stacks: tuple  # the access stacks: one for ASan, two for a TSan race
    variable: str = ""  # ASan: the stack variable the access overflows

    @property
    def top(self) -> Frame:
        return self.stacks[0].frames[0] if self.stacks and self.stacks[0].frames else Frame("?")

    @property
    def function(self) -> str:
        return self.top.function

    @property
    def where(self) -> str:
        return f"{self.top.file}:{self.top.line}" if self.top.file else "?"

    def functions(self) -> set:
        """Every function named in the access stacks."""
        return {f.function for s in self.stacks for f in s.frames}

    def ffmpeg_frames(self, stack: int = 0) -> tuple:
        return tuple(f for f in self.stacks[stack].frames if f.ffmpeg) if self.stacks else ()

    def brief(self) -> str:
        """One line. A race: `kind: f() file:line vs g() file:line` (each access's top
        FFmpeg frame); otherwise `kind in f() file:line, from g() <- h()`."""
        if len(self.stacks) > 1:
            tops = [next((f for f in s.frames if f.ffmpeg), s.frames[0]) for s in self.stacks]
            return f"{self.kind}: " + " vs ".join(f"{f.function}() {f.file}:{f.line}"
                                                  for f in tops[:2])
        own = [f.function for f in self.ffmpeg_frames() if f.function != self.function]
        via = f", from {'() <- '.join(own[:2])}()" if own else ""
        return f"{self.kind} in {self.function}() {self.where}{via}"


def _stacks(lines: list) -> list:
    """The access stacks: a `READ of size 8 ...` / `Previous write ...` line and the
    frames under it (the stacks of thread creation and of mutexes are not accesses)."""
    stacks, head, frames = [], None, []
    for line in lines + [""]:
        f = FRAME.match(line)
        if f and head:
            frames.append(Frame(f["func"], f["file"] or "", int(f["line"] or 0)))
            continue
        if head and frames:
            stacks.append(Stack(*head, tuple(frames)))
        h = STACK_HEAD.match(line)
        head, frames = ((h["what"], h["who"].strip()) if h else None), []
    return stacks


def parse(text: str) -> list:
    """Every report in `text` (a log file's content), in order."""
    reports, current = [], None
    for line in text.splitlines():
        m = HEADER.match(line.strip())
        if m:
            current = [m["tool"], m["kind"].strip(), []]
            reports.append(current)
        elif current is not None:
            if SUMMARY.match(line):
                current = None
            else:
                current[2].append(line)
    out = []
    for tool, kind, lines in reports:
        var = next((v["name"] for v in map(VARIABLE.search, lines) if v), "")
        out.append(Report(tool, kind, tuple(_stacks(lines)), var))
    return out


def parse_dir(directory: Path) -> list:
    """The reports of every log file a run wrote (`log_path=DIR/x` writes `x.PID`)."""
    return [r for p in sorted(Path(directory).glob("*.[0-9]*")) for r in
            parse(p.read_text(errors="replace"))]
