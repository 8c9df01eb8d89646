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
# the runtime stopping in one of its own checks (not a report about the program): e.g.
# gcc 14's ASan at pthread_join() of a thread that was never started
CHECK = re.compile(r"^(?:==\d+==)?(?P<tool>AddressSanitizer|ThreadSanitizer): "
                   r"CHECK failed: (?P<what>.+)$")
CHECK_KIND = "CHECK failed"
RUNTIME_FRAME = re.compile(r"^(__sanitizer::|__asan|__tsan|__ubsan|__lsan|_?_?interceptor_)")
SUMMARY = re.compile(r"^SUMMARY: (AddressSanitizer|ThreadSanitizer): ")
FRAME = re.compile(r"^\s+#\d+ (?:0x[0-9a-f]+ (?:in )?)?(?P<func>.+?)"
                   r"(?: (?P<file>\S+):(?P<line>\d+)(?::\d+)?)?(?: \([^()\s]*\+0x[0-9a-f]+\))?"
                   r"(?: \(BuildId: [0-9a-f]+\))?$")  # gcc 14's TSan names the build
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
    check: str = ""     # CHECK failed: the runtime's own line (file:line "condition")

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
        if self.kind == CHECK_KIND:
            return self._brief_check()
        return self._brief_access()

    def _brief_check(self) -> str:
        """`Tool: CHECK failed: file:line "cond" in libc_call() < ff_frame() file:line
        < caller() < caller()`: the runtime's own words, then where the program was."""
        frames = self.stacks[0].frames if self.stacks else ()
        own = [i for i, f in enumerate(frames) if f.ffmpeg]
        text = f"{self.tool}: {CHECK_KIND}: {self.check}"
        if not own:
            return text
        first = own[0]
        called = [f for f in frames[:first] if not RUNTIME_FRAME.match(f.function)]
        chain = [f"{called[-1].function}()"] if called else []
        chain.append(f"{frames[first].function}() {frames[first].file}:{frames[first].line}")
        callers = []  # an inlined function appears once per inlining frame: name it once
        for f in frames[first + 1:]:
            if f.ffmpeg and f.function not in (frames[first].function, *callers):
                callers.append(f.function)
        chain += [f"{c}()" for c in callers[:2]]
        return f"{text} in " + " < ".join(chain)

    def _brief_access(self) -> str:
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
        c = CHECK.match(line.strip())
        if m:
            current = [m["tool"], m["kind"].strip(), [], ""]
            reports.append(current)
        elif c:  # its stack follows at once, with no access line, and no SUMMARY
            current = [c["tool"], CHECK_KIND, [f"abort in {c['tool']}'s own check"],
                       c["what"].strip()]
            reports.append(current)
        elif current is not None:
            if SUMMARY.match(line) or (current[1] == CHECK_KIND and not line.strip()
                                       and len(current[2]) > 1):
                current = None
            else:
                current[2].append(line)
    out = []
    for tool, kind, lines, check in reports:
        if kind == CHECK_KIND:
            frames = [FRAME.match(l) for l in lines[1:]]
            frames = tuple(Frame(f["func"], f["file"] or "", int(f["line"] or 0))
                           for f in frames if f)
            out.append(Report(tool, kind, (Stack("abort", "", frames),) if frames else (),
                              check=check))
        else:
            out.append(Report(tool, kind, tuple(_stacks(lines)), *_variable(lines)))
    return out


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
