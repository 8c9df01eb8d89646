"""What a pair of trees built from a release can show: the patches each took (`git am
-3`) and left out, and whether the case's tables can be shown on them (the case says
which commits its tables need: its table_needs)."""

import re


def numbers(names) -> list:
    """Patch file names -> their numbers in the series (`0007-...patch` -> 7)."""
    return [int(m[1]) for n in names if (m := re.match(r"(\d+)-", n))]


def _listed(ns) -> str:
    return ", ".join(map(str, ns)) or "none"


def notes(trees, needs: dict) -> list:
    """Lines for the report, or none when every patch applied (the pinned release).
    `needs`: tree name -> {"has": commits, "lacks": commits} for the case's tables."""
    if not any(t.stamp.get("skipped") for t in trees):
        return []
    out, problems, said = [], [], None
    for t in trees:
        s, name = t.stamp, t.name.split("-")[0]
        src = s["source"]
        base = f"FFmpeg {src.get('version') or src.get('commit', '')[:10]}" + (
            f" (Debian {src['debian']['suite']}'s {src['debian']['version']})"
            if src.get("debian") else "")
        skipped = s.get("skipped", [])
        left = "the same" if skipped == said else "; ".join(
            f"{numbers([n])[0] if numbers([n]) else n} ({why})" for n, why in skipped) or "none"
        said = skipped
        out.append(f"{t.name} = {base} + patches {_listed(numbers(s['series']))} "
                   f"(git am -3); left out: {left}")
        have = set(numbers(s["series"]))
        need = needs.get(name, {})
        problems += [f"{t.name} lacks commit {n}" for n in need.get("has", ()) if n not in have]
        problems += [f"{t.name} has commit {n}" for n in need.get("lacks", ()) if n in have]
    rule = "; ".join(f"{b} needs {_listed(n['has'])}"
                     + (f" without {_listed(n['lacks'])}" if n["lacks"] else "")
                     for b, n in needs.items())
    if not needs:
        return out
    if problems:
        out.append(f"the case's tables cannot be shown on these trees ({rule}): "
                   + ", ".join(problems))
    else:
        out.append(f"the case's tables can be shown on these trees ({rule}), for the "
                   "backends they were built with; the case's claims of the commits "
                   "left out cannot")
    return out
