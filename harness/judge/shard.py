"""A diff split across the jobs of a CI matrix: `--shard K/N` runs the censuses (cheap) and
the sites of shard K only; `python -m harness merge` puts the shards' JSON back together
(harness/judge/merge.py).

Every site pair (the from-tree's call and the to-tree's at the same place) goes to exactly
one shard, and which one is decided by the site alone, never by what else a census found:
each shard runs its own censuses, and on a backend that runs its requests on threads
(OpenVINO, TensorFlow, LibTorch) they count a different number of calls from run to run
(the libav family's frame calls follow how many pulls a frame took). A site's shard is
the hash of its name (the group and the place its calls are paired at; a sweep's group and
build) plus its position there (the nth call at that place and the value it fails with),
modulo N: a place's calls are dealt out in turn, and a site keeps its shard whatever the
census around it counted. No clock, no machine state: the same site goes to the same shard
on any machine. The whole default diff's 4 shards took 110 to 121 s each in two runs
(docs/costs.md, P9b and P9c).
"""

import re
import zlib

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
    """What one site's run is expected to cost, in units of a run that ends (the runs are
    started longest first)."""
    return HANG if expect.hangs(scenario) else RUN


def owner(name: str, position: int, n: int) -> int:
    """The shard (0-based, of `n`) of the site at `position` among those named `name`."""
    return (zlib.crc32(name.encode()) + position) % n


def mine(keys: list, shard: tuple) -> list:
    """The indices of the sites, each named by (name, position), that shard (K, N) runs."""
    k, n = shard
    return [i for i, (name, position) in enumerate(keys) if owner(name, position, n) == k - 1]
