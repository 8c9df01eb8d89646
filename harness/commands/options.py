"""The checks of the options several sub-commands take, each given the values it checks.
A command's own check(args) (harness/cli.py calls it between the parser and the command)
calls those of its options in one order, so that of two bad options the same one is said
on every command: how the trees are got (tree_source), the clone (clone; diff first says
which two trees), the trees (tree, trees), the names (graph_names, has_graph), the faults
(run's, sweep's), report files (report_files), --results, run's --model, patches
(patches), routes (route). The values themselves are checked in harness/inputs.py, one
function a kind; nothing here builds, fetches, copies or writes."""

from pathlib import Path

from harness import inputs
from harness.errors import HarnessError


def tree_source(backend, release, case, source):
    """--backend, --release, --case and --source (how the trees are got, what judges
    them); the case, loaded."""
    from harness import caseload
    from harness.obtain import backends, releases
    for option, value in (("--backend", backend), ("--release", release), ("--case", case)):
        inputs.not_empty(option, value)
    if backend is not None:
        backends.parse(backend)
    if release is not None:
        releases.get(release)
    if source is not None:
        inputs.input_file("--source", source)
    return caseload.load(case)


def clone(git_dir, release=None, sanitizer=None, from_ref=None, to_ref=None) -> None:
    """--git-dir, a clone, and what goes with it: no --release, no --sanitizer, and its
    refs (--from-ref, --to-ref) commits of it."""
    if git_dir is None:
        return
    repo = inputs.git_dir(git_dir)
    if release:
        raise HarnessError("--release and --git-dir are two ways to get a tree; give one")
    if sanitizer:
        raise HarnessError("--sanitizer builds base and before of the release, not a tree "
                           "of your own (--git-dir)")
    for option, ref in (("--from-ref", from_ref), ("--to-ref", to_ref)):
        if ref is not None:
            inputs.ref(repo, option, ref)


def tree(option: str, name: str | None, layout) -> None:
    """One tree of the case's layout (build --tree, coverage --tree)."""
    if name is not None and name not in layout.names:
        raise HarnessError(f"{option}: unknown tree '{name}' (known: {', '.join(layout.names)})")


def trees(option: str, given: str | None, layout, one: bool = False) -> None:
    """Tree names of the case's layout, or paths of built trees: a comma list (--build),
    or `one` tree (--from, --to)."""
    if given is None:
        return
    items = [b.strip() for b in given.split(",")]
    if not given.strip() or not all(items):
        raise HarnessError(f"{option} '{given}': an empty tree name (known: "
                           f"{', '.join(layout.names)}, or a built tree's path)")
    if one and len(items) > 1:
        raise HarnessError(f"{option} '{given}': one tree")
    for b in items:
        if b in layout.names:
            continue
        p = Path(b).expanduser()
        if not p.exists() and "/" not in b:
            raise HarnessError(f"{option}: unknown tree '{b}' (known: {', '.join(layout.names)}, "
                               "or a built tree's path)")
        if not (p / "stamp.json").is_file():
            raise HarnessError(f"{option} {b}: not a built tree (no stamp.json)")


def graph_names(backend_name: str | None, filt: str | None) -> tuple:
    """--backend-name and --filter: comma lists of the harness's backends and filters."""
    from harness.run import chains as graphs
    return (inputs.names("--backend-name", backend_name, graphs.BACKENDS, "backend"),
            inputs.names("--filter", filt, graphs.NAMES, "filter"))


def has_graph(backends: list, filters: list) -> None:
    """Some pair of the backends and filters named (every one, for a list not given) is one
    the harness has a graph for."""
    from harness.run import chains as graphs
    if not (backends or filters):
        return
    pairs = [(b, f) for b in backends or graphs.BACKENDS for f in filters or graphs.NAMES]
    if not any(p in graphs.GRAPHS for p in pairs):
        have = ", ".join(f"{b} / {f}" for b, f in graphs.GRAPHS)
        raise HarnessError(f"no graph for {', '.join(f'{f} on {b}' for b, f in pairs)} "
                           f"(the harness has: {have})")


def report_files(**paths) -> None:
    """Report files (json=..., junit=..., markdown=..., html=...: --json FILE ...), each
    one that can be written."""
    for name, path in paths.items():
        inputs.output_file(f"--{name}", path)


def patches(paths) -> None:
    """--patch files: each there, not empty, text and a diff."""
    from harness.obtain import patched
    for p in paths:
        patched.check_file(p)


def route(given: str | None) -> None:
    """--route of a sweep-based command: names of the sweep's routes."""
    if given is not None:
        from harness.experiments import sweep
        sweep.route_names(given)
