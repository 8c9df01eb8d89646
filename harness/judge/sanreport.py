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
OFFSET = re.compile(r"is located in stack of .* at offset (?P<offset>\d+) in frame$")
OBJECT = re.compile(r"^\s+\[(?P<lo>\d+), (?P<hi>\d+)\) '(?P<name>[^']+)'"
                    r"(?: .*<== Memory access at offset \d+ (?P<how>.+) this variable)?")
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
    variable: str = ""  # ASan: the stack variable the access ran past (see _variable)
    frame: str = ""     # ASan: the function whose stack frame holds the bad address

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
        """One line, in FFmpeg's frames (a runtime interceptor such as memcpy is named
        after them). A race: `kind: f() file:line vs g() file:line`, each access's top
        FFmpeg frame; otherwise `kind in f() file:line, from g() <- h(), on 'v'`."""
        if len(self.stacks) > 1:
            tops = [next((f for f in s.frames if f.ffmpeg), s.frames[0]) for s in self.stacks]
            return f"{self.kind}: " + " vs ".join(f"{f.function}() {f.file}:{f.line}"
                                                  for f in tops[:2])
        own = list(self.ffmpeg_frames()) or [self.top]
        text = f"{self.kind} in {own[0].function}() {own[0].file}:{own[0].line}"
        if self.top is not own[0]:
            text += f" ({self.top.function})"
        if len(own) > 1:
            text += ", from " + " <- ".join(f"{f.function}()" for f in own[1:3])
        return text + (f", on '{self.variable}'" if self.variable else "")


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
    return [Report(tool, kind, tuple(_stacks(lines)), *_variable(lines))
            for tool, kind, lines in reports]


def _variable(lines: list) -> tuple:
    """(variable, frame function) of a stack-buffer report. The variable is the one ASan
    says the access overflows or, when it names the next one instead (a range access such
    as memcpy's, reported at its first bad byte: "partially underflows"), the object
    whose end is that byte's offset: the one the access ran past."""
    offset, frame, objects = None, "", []
    for i, line in enumerate(lines):
        m = OFFSET.search(line)
        if m:
            offset = int(m["offset"])
            f = FRAME.match(lines[i + 1]) if i + 1 < len(lines) else None
            frame = f["func"] if f else ""
        o = OBJECT.match(line)
        if o:
            objects.append((int(o["lo"]), int(o["hi"]), o["name"], o["how"] or ""))
    named = [name for _, _, name, how in objects if how.startswith("overflows")]
    ended = [name for _, hi, name, _ in objects if hi == offset]
    return ((named or ended or [""])[0], frame)


def parse_dir(directory: Path) -> list:
    """The reports of every log file a run wrote (`log_path=DIR/x` writes `x.PID`)."""
    return [r for p in sorted(Path(directory).glob("*.[0-9]*")) for r in
            parse(p.read_text(errors="replace"))]
