"""Error-branch coverage of FFmpeg's DNN code under a tree's sweep (`harness coverage`,
run by harness/experiments/coverage.py): from what gcov read back of the sweep's runs on
the tree's coverage variant, each error branch of the DNN sources
(harness/judge/branches.py) is taken when its first line of code ran, or not. A branch
no failed call can reach is said so, with why, in one data file (UNREACHABLE), never left
out silently: one only another input reaches (a model, an option, a file the graphs do not
use: its why begins `input:`), or none at all (`never:`, or no word); one that file names
but a fault took is a problem of the file's.
"""

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from harness.judge import branches as parse
from harness.judge import csource
from harness.paths import data_dir

UNREACHABLE = data_dir("builds") / "unreachable-branches.txt"
TAKEN, NOT_TAKEN, NO_CODE = "taken", "not taken", "no code"
INPUT = "input:"  # a why that begins so: another input reaches the branch, no failed call


def another_input(why: str) -> bool:
    """Does the data file's `why` say another input reaches the branch (a model, an option,
    a file), not that nothing does?"""
    return why.startswith(INPUT)


@dataclass
class Seen:
    branch: parse.Branch
    key: str                 # path :: function :: kind condition (#n when not the first alike)
    status: str              # TAKEN, NOT_TAKEN, NO_CODE (gcov knows no line of it)
    count: int = 0           # gcov's count of its first line of code
    unreachable: str = ""    # why no fault can reach it (UNREACHABLE), "" when not listed
    armed: bool = True       # its function ran while a fault was armed (any of its lines:
                             # the counters start at the arm); False: set-up, teardown

    @property
    def needs_input(self) -> bool:
        """The data file says another input reaches it (a model, an option, a file)."""
        return another_input(self.unreachable)


@dataclass
class Report:
    tree: object
    seen: list
    stale: list = field(default_factory=list)   # entries of the data file no branch has
    runs: int = 0
    seconds: dict = field(default_factory=dict)
    classes: Counter = field(default_factory=Counter)  # the sites' classes
    groups: list = field(default_factory=list)          # "backend / filter / route / family"
    census_errors: list = field(default_factory=list)
    data_file: str = ""
    lines: dict = field(default_factory=dict)  # path -> (lines run under a fault, lines of
                                               # code gcov knows that none ran)

    @property
    def wrong(self) -> list:
        """Branches the data file says no fault reaches, which a fault took."""
        return [s for s in self.seen if s.unreachable and s.status == TAKEN]

    def totals(self, seen=None) -> dict:
        """The counts of `seen` (every branch): taken, not taken, no fault can reach
        (the data file), not compiled; the percentages of those compiled and of those a
        fault can reach; and the same of the branches whose function ran while a fault
        was armed (`armed`)."""
        seen = self.seen if seen is None else seen
        armed = [s for s in seen if s.armed and s.status != NO_CODE]
        return {**_counts(seen), "armed": _counts(armed)}

    def by_file(self) -> dict:
        out = {}
        for s in self.seen:
            out.setdefault(s.branch.path, {}).setdefault(s.branch.function, []).append(s)
        return out


def _counts(seen: list) -> dict:
    """not_taken: those a failed call may reach; input: those only another input reaches;
    unreachable: those nothing reaches (both explained in the data file)."""
    n = Counter(s.status for s in seen)
    explained = [s for s in seen if s.unreachable and s.status == NOT_TAKEN]
    needs_input = sum(1 for s in explained if s.needs_input)
    unreachable = len(explained) - needs_input
    reachable = len(seen) - n[NO_CODE] - len(explained)
    return {"total": len(seen), "taken": n[TAKEN], "not_taken": n[NOT_TAKEN] - len(explained),
            "input": needs_input, "unreachable": unreachable, "no_code": n[NO_CODE],
            "percent": _pct(n[TAKEN], len(seen) - n[NO_CODE]),
            "percent_reachable": _pct(n[TAKEN], reachable)}


def _pct(a: int, b: int) -> float:
    return round(100.0 * a / b, 1) if b else 100.0


def keyed(found: list) -> list:
    """(key, branch) of each branch, the n-th alike in its function keyed `#n`."""
    out, seen = [], Counter()
    for b in found:
        seen[b.key] += 1
        out.append((b.key + (f" #{seen[b.key]}" if seen[b.key] > 1 else ""), b))
    return out


def status(b: parse.Branch, lines: dict) -> tuple:
    """(status, count) of a branch from gcov's records of its file (line -> record): its
    first line gcov knows, from its first line of code to its last, ran or not; a branch
    whose code starts on its condition's line (`if (!p) return AVERROR(ENOMEM);`) ran
    when every block of that line did. An if whose body has no line of its own in the
    object (`if (ret < 0) goto err;`, a constant return: the compiler folds them into
    the jump) ran when every arc of its condition was taken, or, when its body leaves,
    when its condition (or the statement before it, which runs into it) ran more often than
    the statement after it."""
    known = [n for n in range(b.first, b.last + 1) if n in lines]
    if known:
        rec = lines[known[0]]
        count = int(rec.get("count", 0))
        if b.inline and known[0] == b.first:
            return (TAKEN if count and not rec.get("unexecuted_block") else NOT_TAKEN), count
        return (TAKEN if count > 0 else NOT_TAKEN), count
    head = lines.get(b.line)
    if head is None or b.kind != "if":
        return NO_CODE, 0
    # the condition ran as often as its line, or as the statement before it, which runs
    # into it (the compiler may thread a failed call's result past the if's own line)
    evaluated = max(int(head.get("count", 0)), int(lines.get(b.prev_line, {}).get("count", 0)))
    arcs = [int(a.get("count", 0)) for n in range(b.line, max(b.line, b.cond_line) + 1)
            for a in lines.get(n, {}).get("branches", [])]
    if arcs and all(arcs):
        return TAKEN, min(arcs)
    after = lines.get(b.next_line) if b.jumps and b.next_line else None
    if after is not None and evaluated > int(after.get("count", 0)):
        return TAKEN, evaluated - int(after.get("count", 0))
    return NOT_TAKEN, 0


def read_unreachable(path: Path) -> dict:
    """key -> why, from the data file: `path :: function :: kind condition [#n] :: why`,
    one a line, `#` lines and blank ones ignored."""
    out = {}
    if not path.is_file():
        return out
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" :: ")]
        if len(parts) >= 4:
            out[" :: ".join(parts[:3])] = " :: ".join(parts[3:])
    return out


def judge(texts: dict, lines: dict, unreachable: dict) -> tuple:
    """([Seen] of every error branch of the files `texts` (path -> source text), from
    gcov's `lines` (path -> line -> record), stale entries of `unreachable`)."""
    seen, used = [], set()
    for path, text in texts.items():
        known = lines.get(path, {})
        ran = {name for name, a, z in csource.functions(text)
               if any(int(known[n].get("count", 0)) for n in range(a, z + 1) if n in known)}
        for key, b in keyed(parse.branches(text, path)):
            st, count = status(b, known)
            why = unreachable.get(key, "")
            if why:
                used.add(key)
            seen.append(Seen(b, key, st, count, why, b.function in ran))
    paths = set(texts)
    stale = [k for k in unreachable if k not in used and k.split(" :: ")[0] in paths]
    return seen, stale


def report(tree, texts: dict, lines: dict, unreachable_file: Path, found: dict) -> Report:
    """The report of the sweep on the coverage variant `tree`: every error branch of its
    DNN sources (`texts`, path -> source text) judged from gcov's `lines`, against the
    data file `unreachable_file`; the sweep's groups, runs, classes and census errors from
    `found` (group key -> build -> Found, harness/judge/sweep.py)."""
    from harness.run.outcome import Outcome
    seen, stale = judge(texts, lines, read_unreachable(unreachable_file))
    r = Report(tree, seen, stale, data_file=str(unreachable_file),
               lines={p: ([n for n, x in sorted(ls.items()) if int(x.get("count", 0))],
                          [n for n, x in sorted(ls.items()) if not int(x.get("count", 0))])
                      for p, ls in lines.items()})
    for key, by in found.items():
        r.groups.append(key)
        for f in by.values():
            census = getattr(f, "census", None)
            if census is not None and census.outcome not in (Outcome.PASS, Outcome.MEASURED):
                r.census_errors.append(f"{key}: census {census.outcome.value}: {census.reason}")
            r.runs += 1 + len(f[1])
            r.classes.update(s.cls.value for s in f[1])
    return r
