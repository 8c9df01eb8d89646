"""What a site whose to-tree left more of FFmpeg's blocks behind says in the reports
(Markdown, JUnit, the annotations): each tree's blocks and where the to-tree allocated
those the from-tree did not leave; the judging itself is harness/judge/diff.py's
(leaks_more, Pair.leak)."""

from collections import Counter

from harness.judge.diff import Pair
from harness.judge.pairing import place
from harness.judge.sweep import leaks_of


def _blocks(n: int, size: int) -> str:
    return f"{n} block{'s' * (n != 1)} ({size} bytes)"


def leak_note(p: Pair, a: str, b: str) -> str:
    """What a site that left more behind in the to-tree `b` than in the from-tree `a` left,
    for the reports: "" for any other site; else how many blocks each tree's first run
    left and where the to-tree allocated those the from-tree's run did not leave (its
    places, line numbers aside, by count)."""
    if not p.leak:
        return ""
    theirs, mine = (leaks_of(s.result) if s is not None else None for s in p.sites)
    if mine is None:
        return ""
    if p.sites[0] is None:
        than = f"its census, the run with no call failed, left {p.group.left[1] or 0}"
    else:
        than = f"{a} left {theirs.blocks}" if theirs is not None else f"{a} left none"
    kept = Counter()
    for leak in theirs.places if theirs is not None else ():
        kept[place(leak.where)] += leak.blocks
    extra = []
    for leak in mine.places:
        at = place(leak.where)  # line numbers aside: a change moves them
        left = leak.blocks - kept[at]
        kept[at] -= leak.blocks
        if left > 0:
            extra.append(f"{leak.where} ({left} of {_blocks(leak.blocks, leak.bytes)})")
    return (f"leaks: {b} left {_blocks(mine.blocks, mine.bytes)} of FFmpeg's behind once the "
            f"graph was freed, where {than}" + (f"; allocated at: {'; '.join(extra)}"
                                                 if extra else ""))
