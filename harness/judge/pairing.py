"""How the calls two trees' censuses found pair up, site by site: by the lines of the
stack once moved through the change, then by place (the stack without its lines), then
by the innermost frame (harness/experiments/diff.py plans a diff's sites with it)."""

import re
from collections import defaultdict


def place(where: str) -> str:
    """A census's `f (file.c:12) < g (file.c:34)` without its line numbers."""
    return re.sub(r":\d+\)", ")", where or "") or "?"


def innermost(place_text: str) -> str:
    """A place's innermost frame, `f (file.c)`: where the call is made, whatever inlining
    or a new function between it and its callers did to the frames above."""
    return place_text.split(" < ")[0]


def pair_plan(per_side: list, mapped=None) -> list:
    """Pair the calls of two sides: per_side is, for each side, its calls' (index, where)
    in call order; the result (place, nth, [index or None per side]), grouped by place in
    the order the from-tree, then the to-tree, reaches them. A from-tree call pairs, in
    turn: with the to-tree's call at the same lines once `mapped` (Touched.map_where) has
    moved them through the change (so a call the change adds beside another shifts
    nothing); then by place (lines left out: code the change moved) and order there;
    then by innermost frame and order (a change of inlining, or a function put between a
    call and its callers, changes the frames above the call, not where it is made)."""
    frm, to = per_side
    partner, taken = {}, set()
    keys = (lambda w: (mapped or (lambda x: x))(w) if w and w != "?" else None,
            place, lambda w: innermost(place(w)))
    for stage, key in enumerate(keys):
        left = defaultdict(list)
        for index, where in to:
            k = where if stage == 0 else key(where)
            if index not in taken and k:
                left[k].append(index)
        for index, where in frm:
            k = key(where)
            if index not in partner and k and left.get(k):
                partner[index] = left[k].pop(0)
                taken.add(partner[index])
    order, rows = {}, defaultdict(list)
    for index, where in frm:
        rows[order.setdefault(place(where), place(where))].append([index, partner.get(index)])
    for index, where in to:
        if index not in taken:
            rows[order.setdefault(place(where), place(where))].append([None, index])
    return [(p, n, idx) for p in order for n, idx in enumerate(rows[p])]
