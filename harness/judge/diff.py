"""What a change does under faults, judged: each site's class in the from-tree and in the
to-tree (harness/judge/sweep.py; the sites run and paired by harness/experiments/diff.py)
and what its runs left behind (harness/run/leaks.py), its change before -> after (a
regression, a fix, ...), and the verdict a CI gate can use.
"""

import enum
from collections import Counter
from dataclasses import dataclass, field

from harness.errors import ExitStatus
from harness.judge import profiles
from harness.judge.sweep import Class, carried
from harness.judge.touched import UNKNOWN, Touched

GOOD = frozenset({Class.SURFACED, Class.CLEAN})  # the failure was reported, or did no harm
BAD = frozenset({Class.LOST, Class.DROPPED, Class.ALTERED, Class.HANG, Class.CRASH})
# a run that ends so shows nothing of what the code after the failed call does: a site
# that ends so in both trees is blind to the change
BLINDING = frozenset({Class.HANG, Class.CRASH})



class Change(str, enum.Enum):
    REGRESSION = "regression"  # SURFACED or CLEAN -> LOST, DROPPED, ALTERED, HANG or CRASH;
                               # anything else -> CRASH; a call only the to-tree makes that
                               # fails badly; more of FFmpeg's blocks left behind (a leak)
    FIX = "fix"                # the other way
    CHANGED = "changed"        # another class, neither better nor worse by that rule
    SAME = "same"
    ONLY_FROM = "only-from"    # a call the to-tree no longer makes there
    ONLY_TO = "only-to"        # a call only the to-tree makes, that did no harm
    ERROR = "error"            # a run that could not run on either side: not judged
    FLAKY = "flaky"            # run again, both trees showed a class the other has: not judged


def change(a, b) -> Change:
    """The verdict on one site: its class in the from-tree `a`, in the to-tree `b`
    (None: the tree makes no such call). Worse is worse: a site that crashes where it did
    not is a regression whatever it did before (a HANG turned into a segfault), and a call
    only the to-tree makes is judged against the classes that do no harm (a new
    allocation whose failure hangs, crashes, drops the frame or loses the error is a
    regression)."""
    if b is Class.ERROR or a is Class.ERROR:
        return Change.ERROR
    if a is None:
        return Change.REGRESSION if b in BAD else Change.ONLY_TO
    if b is None:
        return Change.ONLY_FROM
    if a == b:
        return Change.SAME
    if a in GOOD and b in BAD or b is Class.CRASH:
        return Change.REGRESSION
    if a in BAD and b in GOOD:
        return Change.FIX
    return Change.CHANGED


def judged(seen_a: list, seen_b: list) -> Change:
    """The verdict on a site whose class changed, once each tree ran it again: every class
    each tree showed. A tree that never failed badly against one that did (even once) is a
    regression, the other way a fix; both trees unsteady is flaky."""
    a, b = set(seen_a), set(seen_b)
    if Class.ERROR in a | b:
        return Change.ERROR
    if a <= GOOD and b & BAD or Class.CRASH in b - a:
        return Change.REGRESSION
    if a & BAD and b <= GOOD:
        return Change.FIX
    if len(a) > 1 or len(b) > 1:
        return Change.FLAKY
    return change(seen_a[0] if seen_a else None, seen_b[0] if seen_b else None)


def leaks_more(a: list | None, b: list, baseline: int = 0) -> bool:
    """Whether the to-tree left more of FFmpeg's blocks behind at a site than the from-tree
    (harness/run/leaks.py): `a` and `b` the blocks each tree's runs of the site left once
    the graph was freed (a run that hung or crashed counts none); `a` None for a call only
    the to-tree makes, judged against `baseline`, what its tree's census (the run with no
    call failed) left. More in one run than the from-tree's runs left, when those all left
    the same; when they did not, more in every run. A tree none of whose runs counted is
    not compared."""
    if not b:
        return False
    if a is None:
        return max(b) > baseline
    if not a:
        return False
    return max(b) > max(a) and (len(set(a)) == 1 or min(b) > max(a))


def with_leak(c: Change, leak: bool) -> Change:
    """A site's verdict once what its runs left behind is read: more blocks left behind
    in the to-tree is a regression, whatever its classes did; a site not judged (ERROR,
    FLAKY) stays unjudged."""
    if leak and c not in (Change.ERROR, Change.FLAKY):
        return Change.REGRESSION
    return c


def dropped_error(seen_a: list, seen_b: list, said_b: list) -> bool:
    """The failure the from-tree surfaced in every run ran CLEAN in every run of the
    to-tree, each of which logged an error (`said_b`: per run, the lines FFmpeg's code
    logged at AV_LOG_ERROR before EOF): the error said and dropped, not a recovery
    (a positive errno from config_input(), which only a negative value stops, logs
    "could not get input from the model" and the graph runs on)."""
    return (bool(seen_a) and set(seen_a) == {Class.SURFACED} and bool(seen_b)
            and set(seen_b) == {Class.CLEAN} and len(said_b) == len(seen_b) and all(said_b))


def with_dropped_error(c: Change, dropped: bool) -> Change:
    """SURFACED -> CLEAN is changed otherwise (a patch may recover from a failure), a
    regression when the to-tree dropped an error it logged (dropped_error())."""
    return Change.REGRESSION if dropped and c is Change.CHANGED else c


def with_what_ran(c: Change, p: "Pair") -> Change:
    """A site's verdict from its classes (`c`) once what its runs left behind and what
    they logged are read: with_leak(), then with_dropped_error()."""
    return with_dropped_error(with_leak(c, p.leak), p.dropped)


def output_change(a: list, b: list) -> str:
    """How the to-tree's output with no fault (its census's frames, [Frame]) differs from
    the from-tree's, as carried() compares a run's frames with its census: "" when it does
    not; else the first frame that differs, its md5 or its boxes, or the count."""
    ca, cb = carried(a), carried(b)
    if ca == cb:
        return ""
    if len(ca) != len(cb):
        return f"{len(ca)} frames -> {len(cb)}"
    k = next(i for i, (x, y) in enumerate(zip(ca, cb)) if x != y)
    (ma, ba), (mb, bb) = ca[k], cb[k]
    what = (f"md5 {ma[:12]} -> {mb[:12]}" if ma != mb else
            f"boxes {_boxes(ba)} -> {_boxes(bb)}")
    return f"frame {k + 1} of {len(ca)}: {what}"


def _boxes(boxes: list) -> str:
    """carried()'s boxes as a report writes them: WxH+X+Y label confidence (labels)."""
    return "[" + ", ".join(f"{b} {label} {c}" + (" (" + ", ".join(f"{n} {v}" for n, v in k)
                                                 + ")" if k else "")
                           for b, label, c, k in boxes) + "]"


def output_judged(seen_a: list, seen_b: list) -> tuple:
    """(how the clean output changed, unsteady): each tree's census run again, its
    frames every time (`seen_a`, `seen_b`: [[Frame]] per run). A change when each tree
    gave the same frames every time and the two differ (output_change() of the first
    runs); unsteady, and not judged, when a tree's runs differ among themselves."""
    steady = all(not output_change(runs[0], r) for runs in (seen_a, seen_b) for r in runs)
    if not steady:
        return "", True
    return output_change(seen_a[0], seen_b[0]), False


ANY = "ANY"  # a case's diff: a from-tree class it does not fix (read from memory the
             # failed call left unset: SURFACED, CLEAN or CRASH run by run)


def against(d: "Diff", expected: dict) -> list:
    """What differs from a case's diff ({group key: {(from class, to class): sites}}): one
    line each; [] when every group the case names changed so. A row (ANY, to class): n
    lets n of the group's sites going to that class come from any class, the named ones
    included: the named rows then hold at least their count, and each to class its
    total."""
    out = []
    for key, want in expected.items():
        got = {}
        for p in d.pairs:
            if p.group.key == key:
                cls = tuple(s.cls.value if s is not None else None for s in p.sites)
                got[cls] = got.get(cls, 0) + 1
        if not any(g.key == key for g in d.groups):
            out.append(f"{key}: not run")
        elif not _as_said(got, want):
            out.append(f"{key}: got {_changes(got)}, the case says {_changes(want)}")
    return out


def _as_said(got: dict, want: dict) -> bool:
    """Each to class has the sites the case gives it, and each named row at least its own
    (exactly its own where the class has no ANY row)."""
    for to in {b for _, b in got} | {b for _, b in want}:
        if sum(n for (_, b), n in got.items() if b == to) != \
                sum(n for (_, b), n in want.items() if b == to):
            return False
    return all(got.get(row, 0) >= n for row, n in want.items() if row[0] != ANY)


def _changes(counts: dict) -> str:
    return ", ".join(f"{n} {a} -> {b}" for (a, b), n in sorted(counts.items(), key=str)) \
        or "no site"


@dataclass(frozen=True)
class Side:
    label: str   # what the report calls the tree: after, HEAD~1, after+fix
    tree: object  # harness.obtain.tree.Tree


@dataclass
class Group:
    """One family on one backend/filter pair and one route of the sweep: the census of
    each side."""
    backend: str
    filter: str
    fault: str                                  # the spec each site's run arms
    family: str                                 # pthread_create, malloc, wrap:<symbol>
    sites: list = field(default_factory=list)   # per side: number of calls, None if no census
    errors: list = field(default_factory=list)  # per side: why the census did not run, or ""
    route: str = "frames"                       # the sweep's route (ROUTES of harness/experiments/sweep.py)
    left: list = field(default_factory=lambda: [None, None])  # per side: the blocks its census
                                                # left behind, None if not counted
    output: str = ""        # how the to-tree's census output differs from the from-tree's
                            # (output_judged()): "" the same, or not compared
    unsteady: bool = False  # a tree's census output differed run to run: not judged

    @property
    def graph(self) -> str:
        """The graph its census ran: backend / filter / route (every family's the same)."""
        return f"{self.backend} / {self.filter} / {self.route}"

    @property
    def key(self) -> str:
        return f"{self.graph} / {self.family}"


@dataclass
class Pair:
    group: Group
    place: str
    nth: int                  # its order among the calls made at `place` (0-based)
    sites: list               # per side: the Site, or None
    change: Change
    seen: list = field(default_factory=list)  # per side: its class in every run (reruns too)
    touched: str = ""  # its stack runs through a "function" or only a "file" the change touches
    order: tuple = (0, 0, 0)  # (group index, index among the group's pairs, value's index
                              # in the profile): the report's order
    value: str = ""   # what the call failed with, as the spec writes it (EINVAL, ORT_FAIL)
    leaked: list = field(default_factory=lambda: [[], []])  # per side: the blocks each of
                      # its runs left behind once the graph was freed (reruns too)
    said: list = field(default_factory=lambda: [[], []])  # per side: the lines each of its
                      # runs logged at AV_LOG_ERROR before EOF (reruns too)

    # the verdict's properties are plain functions wrapped by property() (not @property),
    # so that the mutation tool (`make mutants`), which leaves decorated functions alone,
    # mutates them
    def _blind(self) -> bool:
        """Every run of the site, in each tree that makes the call, hung or crashed: what
        the code after the failed call does cannot show."""
        seen = [c for cs in self.seen for c in cs]
        return bool(seen) and set(seen) <= BLINDING

    blind = property(_blind)

    def _judged(self) -> bool:
        """Neither blind nor left unjudged (ERROR, FLAKY)."""
        return not self.blind and self.change not in (Change.ERROR, Change.FLAKY)

    judged = property(_judged)

    def _leak(self) -> bool:
        """The to-tree left more of FFmpeg's blocks behind than the from-tree (leaks_more();
        a call only the to-tree makes, than its census)."""
        a, b = self.leaked
        return leaks_more(a if self.sites[0] is not None else None, b,
                          self.group.left[1] or 0)

    leak = property(_leak)

    def _dropped(self) -> bool:
        """The to-tree ran clean where the from-tree surfaced, and logged an error it did
        not return (dropped_error())."""
        return dropped_error(self.seen[0], self.seen[1], self.said[1])

    dropped = property(_dropped)

    @property
    def where(self) -> str:
        """The from-tree's text (with line numbers), else the to-tree's."""
        return next((s.where for s in self.sites if s is not None and s.where), self.place)


@dataclass
class Diff:
    sides: list
    groups: list
    pairs: list
    seconds: dict             # census, sites, total (wall)
    runs: int                 # scenarios run, censuses included
    hang_seconds: float = 0.0  # the sites' runs that hung: their seconds, summed over jobs
    ended: tuple = (0, 0.0)   # the sites' runs that did not hang: how many, their seconds
    touched: Touched = UNKNOWN  # what the change touches (harness/judge/touched.py)
    shard: tuple | None = None  # (K, N): the pairs of shard K of N only (harness/judge/shard.py)
    values: str = profiles.DEFAULT  # which values of each profile the sites were failed with
    coverage: dict | None = None  # the change's lines executed under a fault
                                  # (harness/judge/coverage.py); None: not measured
    taken: int = 0                # runs taken from an earlier diff's against the from-tree
                                  # (harness/experiments/kept.py), not run: not in `runs`
    focus: tuple | None = None    # (sites run, sites the censuses found[, groups whose
                                  # censuses ran, groups asked for]): `--focus`, only the sites
                                  # whose stack runs through the change were run, in the groups
                                  # whose graphs can run it (harness/judge/reach.py)
    output_may_change: bool = False  # `--output-may-change`: a change of the output with
                                     # no fault is said, not failed

    def count(self) -> Counter:
        return Counter(p.change for p in self.pairs)

    def _census_errors(self) -> list:
        return [f"{g.key}: {self.sides[i].label}: census {e}" for g in self.groups
                for i, e in enumerate(g.errors) if e]

    census_errors = property(_census_errors)  # a plain function: mutated (Pair._blind)

    def _output_changes(self) -> list:
        """One line per graph (backend, filter, route) whose output with no fault (its
        censuses' frames) differs between the trees, each tree steady run to run."""
        return list(dict.fromkeys(f"{g.graph}: {g.output}" for g in self.groups if g.output))

    output_changes = property(_output_changes)

    def tally(self) -> dict:
        """judged / blind / not judged / total sites, and the same of the sites whose
        stack runs through the change (touched)."""
        def of(pairs):
            return {"judged": sum(p.judged for p in pairs), "blind": sum(p.blind for p in pairs),
                    "not_judged": sum(not p.judged and not p.blind for p in pairs),
                    "total": len(pairs)}
        return {**of(self.pairs), "touched": of([p for p in self.pairs if p.touched])}

    def blind_groups(self) -> list:
        """(route, family, blind sites, sites) for every route and family with a blind site."""
        out = {}
        for p in self.pairs:
            k = (p.group.route, p.group.family)
            n = out.setdefault(k, [0, 0])
            n[0] += p.blind
            n[1] += 1
        return [(r, f, b, n) for (r, f), (b, n) in out.items() if b]

    def _exit_status(self) -> ExitStatus:
        """FAIL on any regression, on a change of the output with no fault (unless
        `output_may_change`), or on anything that could not be judged (a census or a site
        that could not run); else BLIND when no site whose stack runs through the
        change was judged (or, when the change could not be read, no site at all); else
        OK (the diff's PASS)."""
        c = self.count()
        if c[Change.REGRESSION] or c[Change.ERROR] or self.census_errors:
            return ExitStatus.FAIL
        if self.output_changes and not self.output_may_change:
            return ExitStatus.FAIL
        if self.coverage and self.coverage["changed"] and not self.coverage["executed"]:
            return ExitStatus.BLIND  # not one changed line of code ran under any fault
        t = self.tally()
        seen = t["touched"]["judged"] if self.touched.known else t["judged"]
        return ExitStatus.OK if seen else ExitStatus.BLIND

    exit_status = property(_exit_status)  # a plain function: mutated (Pair._blind)


def worth_rerunning(p: Pair) -> bool:
    """Whether more runs of the site could change the verdict: a site that went from a
    class that did no harm in the from-tree (a regression, or another change from SURFACED
    or CLEAN), or to a CRASH, or a new call that failed badly, or one that left more
    behind, can be, or stop being, a regression; one whose from-tree run already failed badly and that did not crash
    (a fix, HANG -> ALTERED) cannot become one."""
    a, b = p.sites
    if p.change is Change.REGRESSION and (a is None or b.cls is Class.CRASH or p.leak):
        return True
    return (p.change in (Change.REGRESSION, Change.CHANGED) and a is not None
            and a.cls in GOOD)
