"""Every pinned release side by side (`python -m harness probe --releases`): where each
is fetched from, what the probe finds in it (where activate() lives, the graph calls,
its DNN backends), the series' patches its built trees took and left out, and, for
each row of the case's tables and each of its commit claims, whether the release can
express it or why not.

What a release has is read from its source: its built trees when the cache has them
(the largest backend set built), else the probe's files extracted from its pinned
tarball (fetched and checked like any other source). Nothing here knows a release.
"""

import subprocess
from pathlib import Path

from harness.errors import HarnessError
from harness.judge import series
from harness.obtain import builtsets, probe, releases, source
from harness.obtain.flags import ACTIVATE_HOMES
from harness.obtain.trees import Plan
from harness.paths import atomic_dir, cache_root

PROBE_FILES = ("*/VERSION", "*/RELEASE", "*/configure", "*/libavfilter/*.h",
               "*/libavfilter/vf_*.c", "*/libavfilter/dnn/*")


def built_trees(version: str, case) -> tuple | None:
    """The two trees the case compares (its pair) of the release from the cache, of the
    largest backend set built with this checkout's recipe, or None."""
    for combo in builtsets.candidates(case.pair):
        try:
            plan = Plan(",".join(combo), case.part("layout"), release=version)
            if all((plan.path(n) / "stamp.json").is_file() for n in case.pair):
                return tuple(plan.get(n, build=False) for n in case.pair)
        except HarnessError:
            continue
    return None


def extracted(rel) -> Path:
    """The files the probe reads, extracted once from the release's verified tarball."""
    final = cache_root() / "src" / f"ffmpeg-{rel.version}-probe-{rel.sha256[:16]}"
    if (final / "VERSION").is_file():
        return final
    tarball = source.fetch(None, rel)
    with atomic_dir(final) as tmp:
        subprocess.run(["tar", "-xf", str(tarball), "-C", str(tmp), "--strip-components=1",
                        "--wildcards", *PROBE_FILES], check=True)
    return final


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def column(rel, case) -> dict:
    """One release's cells, by row name."""
    trees = built_trees(rel.version, case)
    facts = probe.facts(trees[1].src if trees else extracted(rel))
    origin = (f"Debian {rel.debian_suite}'s `{rel.debian_spec.split('=', 1)[1]}` orig tarball, "
              f"{rel.size:,} bytes, sha256 `{rel.sha256[:12]}…`")
    home = facts.activate_home
    out = {
        "source": origin,
        "activate() (the recorder copies)": f"`{home[0]}` ({home[1]})" if home else
        f"none: {facts.missing(next(iter(ACTIVATE_HOMES)))}",
        "graph calls the module binds": f"{sum(map(bool, facts.graph.values()))} of "
                                        f"{len(facts.graph)} declared",
        "DNN backends in the tree": ", ".join(
            b.label + ("" if b.type else " (no .type in its DNNModule and no flush: the "
                       "stand-in cannot tell it)")
            for b in facts.backends.values() if b.source) or "none",
    }
    if trees:
        stamps = [t.stamp for t in trees]
        skipped = series.numbers(n for n, _ in stamps[-1].get("skipped", []))
        out["series (git am -3)"] = "; ".join(
            f"{name} = {', '.join(map(str, series.numbers(s['series'])))}"
            for name, s in zip(case.pair, stamps)) + (
            f"; left out: {', '.join(map(str, skipped))}" if skipped else "")
        out["built with"] = ", ".join(b["name"] for b in stamps[-1]["backends"])
        notes = series.notes(list(trees), case.table_needs)
        out["the case's tables"] = ("can be shown" if not notes or "can be shown" in notes[-1]
                                    else notes[-1])
    rows = {f"{title.split(':')[0]}: {backend} / {filt}": facts.why_not(backend, filt)
            for title, table in case.part("tables").items() for backend, filt in table.pairs}
    if not trees:
        out["series (git am -3)"] = (
            "not tried: no row of the case's tables is expressible" if all(rows.values())
            else f"not tried: no tree built (`python -m harness build --release {rel.name}`)")
    out.update({row: f"not expressible: {why}" if why else "expressible"
                for row, why in rows.items()})
    taken = None
    if trees:  # the commits in the tree the claims compare against the release itself
        by_name = dict(zip(case.pair, (t.stamp for t in trees)))
        with_commits = by_name.get((case.claims_pair or ("", ""))[1])
        taken = set(series.numbers(with_commits["series"])) if with_commits else None
    for claim in claims_of(case):
        out[f"claim {claim.commit}: `{claim.id}`"] = claim_cell(claim, facts, taken)
    return out


def claims_of(case) -> list:
    """The case's commit claims, sanitizer claims first, in commit order."""
    return sorted([*case.sanitizer_claims, *case.commit_claims],
                  key=lambda c: c.commit)


def graph_backends(graph: str) -> tuple:
    """The backends a graph names (`dnn_backend=<option>`), by the harness's names."""
    import re

    from harness.obtain.backends import BACKENDS
    options = {b.option: name for name, b in BACKENDS.items()}
    return tuple(options.get(o, o) for o in re.findall(r"dnn_backend=(\w+)", graph))


def claim_cell(claim, facts, taken) -> str:
    """Whether a release can express a claim: its commit in the series its trees took
    (`taken`, None when no tree is built), every backend the claim's graph uses in the tree,
    and the DNN filter the claim is about expressible on the graph's last backend."""
    from harness.run.chains import FILTERS
    why = []
    if taken is not None and claim.commit not in taken:
        why.append(f"commit {claim.commit} did not apply (git am -3)")
    backends = tuple(getattr(claim, "needs", ())) or graph_backends(claim.graph)
    # the filter the claim is about: its own, else the graph's last DNN filter
    found = sorted((claim.graph.rfind(f), f) for f in FILTERS if f in claim.graph)
    filt = getattr(claim, "filter", "") or (found[-1][1] if found else None)
    for b in backends:
        info = facts.backends.get(b)
        if info is None or not info.source:
            why.append(f"no {info.label if info else b} backend in the tree")
        elif (filt and b == backends[-1]) or not info.type:
            # a backend the stand-in cannot tell (no .type, no flush) says so through why_not
            if w := facts.why_not(b, filt or "dnn_processing"):
                why.append(w)
    if why:
        return "not expressible: " + "; ".join(why)
    return "expressible" if taken is not None else "expressible if its commit applies"


def markdown(case, versions=None) -> str:
    """The releases side by side, one column each, oldest first."""
    rels = [releases.get(v) for v in versions] if versions else releases.probed()
    cols = [column(r, case) for r in rels]
    rows = list(dict.fromkeys(k for c in sorted(cols, key=len, reverse=True) for k in c))
    lines = ["| | " + " | ".join(f"FFmpeg {r.version}" for r in rels) + " |",
             "|---|" + "---|" * len(rels)]
    lines += [f"| {row} | " + " | ".join(_cell(c.get(row, "")) for c in cols) + " |"
              for row in rows]
    return "\n".join(lines)

