"""A diff split across the jobs of a CI matrix: `--shard K/N` runs the censuses (cheap) and
the sites of shard K only; `python -m harness merge` puts the shards' JSON back together
(harness/judge/merge.py).

Every site pair (the from-tree's call and the to-tree's at the same place) goes to exactly
one shard, and which one is decided from what every shard computes alike: the censuses'
pairs, in their order, each costed by what the case knows of it (a run the case says
hangs waits to be judged hung; any other ends in a fraction of a second) and dealt out
longest first to the shard with the least cost so far (ties to the lower shard, then the
earlier pair). No clock, no machine state: the same trees, families, pairs and routes give
the same partition on any machine.
"""

import re

from harness.errors import HarnessError

RUN = 1.0    # a run that ends: about 0.15-0.3 s through the fork servers, the unit
HANG = 4.0   # a run the case says hangs: judged idle 0.5-2 s after EOF, and its start


def parse(text: str | None) -> tuple | None:
    """'2/4' -> (2, 4); None -> None; anything else is bad input."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)) or int(m.group(2)) > 256:
        raise HarnessError(f"bad --shard '{text}': K/N with 1 <= K <= N <= 256, e.g. 1/4")
    return int(m.group(1)), int(m.group(2))


def cost(scenario, expect) -> float:
    """What one site's run is expected to cost, in units of a run that ends."""
    return HANG if expect.hangs(scenario) else RUN


def partition(costs: list, n: int) -> list:
    """Shard index (0-based) of each item: longest first, to the least loaded shard."""
    load, out = [0.0] * n, [0] * len(costs)
    for k in sorted(range(len(costs)), key=lambda k: (-costs[k], k)):
        s = min(range(n), key=lambda i: (load[i], i))
        out[k] = s
        load[s] += costs[k]
    return out


def mine(items: list, costs: list, shard: tuple) -> list:
    """The indices of `items` shard (K, N) runs."""
    k, n = shard
    return [i for i, s in enumerate(partition(costs, n)) if s == k - 1]
