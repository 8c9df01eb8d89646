"""A case's sanitizer claims under FFmpeg's own sanitizer toolchains: the layout's two
sanitizer trees, the one without the fix against the one with it.

Each claim runs the tree's own `ffmpeg` program (no sanitizer runtime in Python) with
the report written to a temporary directory, parses the reports (harness/judge/sanreport.py)
and judges them against a case's sanitizer_claims (harness/judge/sanverdict.py).
`claim_rows()` is what a claims table shows.
"""

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harness.run import chains
from harness.obtain import backends
from harness.judge import sanreport
from harness.errors import HarnessError, StampError
from harness.paths import cache_root, data_dir
from harness.obtain.trees import Plan
from harness.run import program

TSAN_SUPPRESSIONS = data_dir("builds") / "sanitizers" / "tsan.supp"
OPTIONS = {  # the runtime's options; log_path is added per run
    # recoverable build: every report, and every path (the two callers of sws_scale()
    # reach the same PCs in libswscale, which ASan would report once by default)
    "asan": {"ASAN_OPTIONS": "detect_leaks=0:halt_on_error=0:suppress_equal_pcs=0"},
    "tsan": {"TSAN_OPTIONS": f"suppressions={TSAN_SUPPRESSIONS}:"
                             "ignore_noninstrumented_modules=1:halt_on_error=0:history_size=4"},
}


def plan(sanitizer: str, layout, source_file=None, repo=None) -> Plan:
    """The variant's trees: the sanitizer trees of `layout` (a case's layout), with the
    backend set the layout gives that sanitizer."""
    known = dict(layout.sanitizer_backends)
    if sanitizer not in known:
        raise HarnessError(f"unknown sanitizer '{sanitizer}' (known: "
                           f"{', '.join(known) or 'none: the case builds no variant'})")
    return Plan(known[sanitizer], layout, source_file=source_file, repo=repo,
                sanitizer=sanitizer)


@dataclass
class Run:
    """One claim's run on one tree: the command, its exit, the parsed reports."""

    tree: object       # tree.Tree
    command: str
    exit: int | None   # None: killed after the timeout
    seconds: float
    reports: list = field(default_factory=list)
    md5: str = ""      # the output's MD5 (-f md5): the frames went all the way through
    stderr_tail: list = field(default_factory=list)


def command(claim, tree) -> list:
    """The tree's own unstripped ffmpeg_g (its stacks have FFmpeg's file:line)."""
    model = chains.cached_model(claim.model)
    return [str(tree.src / "ffmpeg_g"), "-hide_banner", "-nostdin", "-f", "lavfi",
            "-i", claim.source, "-vf", claim.graph.format(model=model), "-f", "md5", "-"]


def run(claim, tree, timeout: float = 300.0) -> Run:
    if claim.backend not in tree.backends:
        raise HarnessError(f"{tree.name} was built without {claim.backend}")
    cmd = command(claim, tree)
    with tempfile.TemporaryDirectory(prefix=f"ffdnn-{claim.sanitizer}-") as logs:
        env = {name: f"{value}:log_path={logs}/{claim.sanitizer}"
               for name, value in OPTIONS[claim.sanitizer].items()}
        r = program.run(cmd[0], cmd[3:], timeout, env)
        md5 = re.search(r"MD5=([0-9a-f]{32})", r.stdout)
        reports = sanreport.parse_dir(Path(logs))
        if not any(x.kind == sanreport.CHECK_KIND for x in reports):
            # a runtime that stops in its own check may say so on stderr only
            reports += [x for x in sanreport.parse(r.stderr) if x.kind == sanreport.CHECK_KIND]
        return Run(tree, r.text, r.returncode, r.seconds, reports,
                   md5.group(1) if md5 else "", r.stderr.splitlines()[-5:])


def trees(sanitizer: str, layout, build: bool = False) -> dict:
    """The variant's trees (the sanitizer trees of `layout`): from the cache (or
    StampError naming the build command; a backend not installed yet is not fetched for
    that), or built now."""
    p = plan(sanitizer, layout)
    for name in p.backend_names:
        spec = backends.BACKENDS[name]
        entry = cache_root() / "backends" / backends.entry_name(name)
        if not build and not (entry / "backend.json").is_file():
            raise StampError(f"tree '{p.label(layout.sanitizer_trees[0])}' is not built: "
                             f"{spec.package} is not "
                             f"installed (run: python -m harness build --sanitizer {sanitizer})")
    return {name: p.get(name, build=build) for name in p.names}


def claim_rows(claims, layout, build: bool = False, timeout: float = 300.0) -> list:
    """Run each claim (a case's sanitizer_claims) on the two sanitizer trees of the case's
    `layout` (without the fix, with it); one row each, keys: commit, id, claim, the two
    trees' outcomes, verdict."""
    from harness.judge.sanverdict import judge
    rows = []
    without, with_ = layout.sanitizer_trees
    for claim in claims:
        t = trees(claim.sanitizer, layout, build)
        rows.append(judge(claim, run(claim, t[without], timeout),
                          run(claim, t[with_], timeout)))
    return rows
