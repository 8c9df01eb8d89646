"""`python -m harness merge SHARD.json ...`: the shards of a diff (`diff --shard K/N
--json`, harness/judge/shard.py) as one diff, with the verdict, counts, report and exit
status the whole diff run at once gives; the shards of a sweep (`sweep --shard K/N
--json`) as one sweep the same way. Shards of other trees or other inputs, a shard given
twice, a missing shard and one that breaks its schema (docs/schema/) are bad input."""

import json
from pathlib import Path
from types import SimpleNamespace

from harness.errors import HarnessError
from harness.judge.diff import Change, Diff, Group, Pair, Side
from harness.judge.sweep import Class, Site
from harness.judge.touched import Touched
from harness.run.outcome import Outcome
from harness.run.record import Leaks, RunRecord


def load(paths: list) -> list:
    """Each shard's JSON, checked to be a shard of a diff of this schema or of a sweep, all
    of one kind."""
    from harness.judge.diffreport import SCHEMA
    from harness.judge.envelope import is_envelope
    out = []
    for p in paths:
        try:
            d = json.loads(Path(p).read_text())
        except OSError as e:
            raise HarnessError(f"{p}: {e.strerror.lower()}") from None
        except ValueError:
            raise HarnessError(f"{p}: not JSON (a diff's or a sweep's --json output)") from None
        if is_envelope(d, "sweep") and "inputs" in d:
            kind = "sweep"
        elif is_envelope(d, "diff") and "inputs" in d:
            kind = "diff"
        else:
            raise HarnessError(f"{p}: not the JSON of a diff of schema {SCHEMA} or of a sweep")
        if not d.get("shard"):
            raise HarnessError(f"{p}: not a shard (a {kind} run with --shard K/N)")
        _well_formed(p, d, kind)
        if out and kind != kind_of(out[0][1]):
            raise HarnessError(f"{p} is a shard of a {kind}, {out[0][0]} of a "
                               f"{kind_of(out[0][1])}")
        out.append((p, d))
    if not out:
        raise HarnessError("no shard to merge")
    return out


def _well_formed(path, d: dict, kind: str) -> None:
    """A shard that breaks its schema (docs/schema/, harness/judge/schemas.py) is bad
    input, named with where it breaks it, before any of it is read."""
    from harness.judge import schemas
    why = schemas.problem(d)
    if why:
        raise HarnessError(f"{path}: not a well-formed shard of a {kind} "
                           f"(docs/schema/{schemas.schema_of(d)}): {why}")


def kind_of(d: dict) -> str:
    return "sweep" if d.get("command") == "sweep" else "diff"


def _identity(d: dict) -> tuple:
    """(the trees, everything else that makes it the same diff or sweep): not the number of
    calls each census counted, which on a backend with threads of its own differs from run
    to run, and so from shard to shard (harness/judge/shard.py; said by `varied()`)."""
    if kind_of(d) == "sweep":
        censuses = {k: {b: (v["census"] or {}).get("outcome") for b, v in g["builds"].items()}
                    for k, g in d["sweeps"].items()}
        return [t["key"] for t in d["trees"]], (d["inputs"], d["case"], censuses)
    inputs = {**d["inputs"], "groups": [[key, fault, errors]
                                        for key, fault, _, errors in d["inputs"]["groups"]]}
    return (d["inputs"]["from"], d["inputs"]["to"]), inputs


def _counts(d: dict) -> dict:
    """(group, side or build) -> the number of calls the shard's census counted."""
    if kind_of(d) == "sweep":
        return {(k, b): v["sites"] for k, g in d["sweeps"].items()
                for b, v in g["builds"].items()}
    return {(key, side): n for key, _, sites, _ in d["inputs"]["groups"]
            for side, n in zip(("from", "to"), sites)}


def _seen(shards: list) -> dict:
    """(group, side or build) -> every count of calls its census had in a shard (None where
    it ran no census of it: then in every shard, its error being part of `_identity`)."""
    seen = {}
    for _, d in shards:
        for k, n in _counts(d).items():
            seen.setdefault(k, set()).add(n)
    return seen


def varied(shards: list) -> list:
    """A line for each census whose count of calls differs between the shards. Each site
    is run by the one shard it belongs to, as that shard's census found it: a call that
    shard's census did not count is in no shard, as in a whole diff whose census counted
    as few."""
    return [f"{group} ({side}): its census counted "
            f"{', '.join(str(n) for n in sorted(ns))} calls in "
            "different shards" for (group, side), ns in _seen(shards).items() if len(ns) > 1]


def _most(shards: list) -> dict:
    """(group, side or build) -> the most calls its census counted in any shard (None
    where no shard had a census)."""
    return {k: max(ns) for k, ns in _seen(shards).items()}


def check(shards: list) -> int:
    """The N all shards are of, once each shard is known to be of the same diff."""
    first_path, first = shards[0]
    n, want = first["shard"][1], _identity(first)
    seen = {}
    for p, d in shards:
        mine = _identity(d)
        if mine != want:
            what = "trees" if mine[0] != want[0] else "inputs"
            raise HarnessError(f"{p} and {first_path} are shards of different "
                               f"{kind_of(d)}s (their {what} differ)")
        k, m = d["shard"]
        if m != n:
            raise HarnessError(f"{p} is shard {k}/{m}, {first_path} one of {n}")
        if k in seen:
            raise HarnessError(f"shard {k}/{n} given twice: {seen[k]} and {p}")
        seen[k] = p
    missing = sorted(set(range(1, n + 1)) - set(seen))
    if missing:
        raise HarnessError(f"shard {missing[0]}/{n} missing (given: "
                           f"{', '.join(f'{k}/{n}' for k in sorted(seen))})")
    return n


def _side(j: dict) -> Side:
    """A side of a shard: its tree as the shard's JSON names it (no file of it is read)."""
    from harness.obtain.tree import Tree
    tree = Tree(j["tree"], Path(j["path"]),
                {"key": j["key"], "source": j["source"], "series": j["series"]})
    return Side(j["label"], tree)


def _site(j: dict | None, build: str):
    if j is None:
        return None
    leaks = j.get("leaks") or (j.get("result") or {}).get("leaks")  # a diff's, a sweep's
    leaks = Leaks.from_dict(leaks) if leaks is not None else None
    result = SimpleNamespace(outcome=Outcome(j["outcome"]), reason=j["reason"],
                             seconds=j["seconds"], scenario=None, record=RunRecord(leaks=leaks))
    return Site(build, j["call"] - 1, Class(j["class"]), result, j["reproduce"], j["where"])


def _left(g: dict) -> list:
    """A group's census leaks per side (a shard written before they were counted: none)."""
    left = g.get("left") or {}
    return [left.get("from"), left.get("to")]


def _output(shards: list, i: int) -> tuple:
    """The i-th group's output with no fault, judged over every shard (each ran the
    censuses): (how it changed, unsteady); unsteady in any shard is not judged (a shard
    written before it was compared: the same)."""
    outs = [d["groups"][i].get("output") or {} for _, d in shards]
    if any(o.get("unsteady") for o in outs):
        return "", True
    return next((o["changed"] for o in outs if o.get("changed")), ""), False


def _said(s: dict) -> list:
    """A site's error lines per side, run by run (none in a shard without them)."""
    said = s.get("said") or {}
    return [list(said.get("from", [])), list(said.get("to", []))]


def _leaked(s: dict) -> list:
    """A site's blocks left behind per side, run by run (none in a shard without them)."""
    leaked = s.get("leaked") or {}
    return [list(leaked.get("from", [])), list(leaked.get("to", []))]


def lines_run_merged(parts: list) -> dict | None:
    """The change's lines executed under a fault, of every shard's site runs: each line
    run in any shard (None when no shard measured them)."""
    measured = [c for c in parts if c is not None]
    if not measured:
        return None
    files = {}
    for c in measured:
        for path, f in c.get("files", {}).items():
            m = files.setdefault(path, {"changed": f["changed"], "executed": set(),
                                        "branches": f["branches"], "branches_taken": 0,
                                        "not_taken": set(f["changed"])})
            m["executed"] |= set(f["executed"])
            m["branches_taken"] = max(m["branches_taken"], f["branches_taken"])
            m["not_taken"] &= set(f["not_taken"])
    if not files:
        return {}
    for f in files.values():
        f["executed"], f["not_taken"] = sorted(f["executed"]), sorted(f["not_taken"])
    return {"files": files, "changed": sum(len(f["changed"]) for f in files.values()),
            "executed": sum(len(f["executed"]) for f in files.values()),
            "branches": sum(f["branches"] for f in files.values()),
            "branches_taken": sum(f["branches_taken"] for f in files.values())}


def merged(shards: list) -> Diff:
    """One Diff of every shard's pairs, in the whole diff's order."""
    n = check(shards)
    first = shards[0][1]
    sides = [_side(first["from"]), _side(first["to"])]
    groups, most = [], _most(shards)
    for i, (g, (key, *_)) in enumerate(zip(first["groups"], first["inputs"]["groups"])):
        groups.append(Group(g["backend"], g["filter"], g["fault"], g["family"],  # in one order
                            [most[(key, side)] for side in ("from", "to")],
                            [g["errors"]["from"], g["errors"]["to"]], route=g["route"],
                            left=_left(g), **dict(zip(("output", "unsteady"),
                                                      _output(shards, i)))))
    pairs = []
    for _, d in shards:
        for s in d["sites"]:
            order = tuple(s["order"]) + (0,) * (3 - len(s["order"]))
            p = Pair(groups[order[0]], s["place"], s["nth"],
                     [_site(s["from"], sides[0].tree.name), _site(s["to"], sides[1].tree.name)],
                     Change(s["change"]),
                     [[Class(c) for c in s["seen"]["from"]], [Class(c) for c in s["seen"]["to"]]],
                     s["touched"], order, s.get("value", ""), _leaked(s), _said(s))
            pairs.append(p)
    pairs.sort(key=lambda p: p.order)
    t = first["touched"]
    touched = Touched(tuple(t["paths"]), frozenset(
        (f.rsplit(" (", 1)[1].rstrip(")"), f.rsplit(" (", 1)[0]) for f in t["functions"]),
        t["known"], tuple((p, tuple(ls)) for p, ls in t.get("lines", {}).items()),
        loose=frozenset(t["outside_functions"]) if "outside_functions" in t else None)
    timings = [d["timing"] for _, d in shards]
    seconds = {k: max(t[f"{k}_seconds"] for t in timings)
               for k in ("census", "sites", "confirm", "total")}
    hung = round(sum(t["hang_seconds"] for t in timings), 2)
    ended = (sum(t["ended_runs"] for t in timings),
             round(sum(t["ended_seconds"] for t in timings), 2))
    out = Diff(sides, groups, pairs, seconds, sum(t["runs"] for t in timings), hung, ended,
               touched=touched, values=first["inputs"].get("values", "one"),
               coverage=lines_run_merged([d.get("coverage") for _, d in shards]),
               focus=_focus(first.get("focus")),
               taken=sum(t.get("kept_runs", 0) for t in timings),
               output_may_change=bool(first.get("output_may_change")))
    out.shard_walls = [(d["shard"][0], d["timing"]["total_seconds"]) for _, d in
                       sorted(shards, key=lambda x: x[1]["shard"][0])]
    assert len(out.shard_walls) == n
    return out


def merged_sweeps(shards: list) -> tuple:
    """(groups, key -> build -> Found) of every shard's sites, as sweep_many gives them for
    the whole sweep: each build's count and census, its sites in call order."""
    from harness.judge.sweep import Found
    check(shards)
    first = shards[0][1]
    groups = {k: {f: g[f] for f in g if f != "builds"} for k, g in first["sweeps"].items()}
    found, most = {}, _most(shards)
    for key, g in first["sweeps"].items():
        found[key] = {}
        for build, b in g["builds"].items():
            c = b["census"]
            left = Leaks.from_dict(c["leaks"]) if c and c.get("leaks") else None
            census = SimpleNamespace(outcome=Outcome(c["outcome"]), reason=c["reason"],
                                     record=RunRecord(injector=c["injector"], leaks=left)) \
                if c else None
            sites = [_sweep_site(r, build)
                     for _, d in shards for r in d["sweeps"][key]["builds"][build]["runs"]]
            found[key][build] = Found(most[(key, build)], sorted(sites, key=lambda s: s.index),
                                      census)
    return groups, found


def _sweep_site(run: dict, build: str):
    """A sweep's run as a Site whose result gives back the run's own fields."""
    site = _site(run, build)
    own = {k: v for k, v in run.items() if k not in ("call", "class", "where", "reproduce")}
    site.result.to_dict = lambda: own
    return site


def _focus(f: dict | None) -> tuple | None:
    if not f:
        return None
    return (f["run"], f["found"]) + ((f["groups_run"], f["groups"]) if "groups" in f else ())
