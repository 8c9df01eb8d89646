"""The command line's options, checked before the command does any work (harness/cli.py
calls check() between the parser and the command): every kind with its own function in
harness/inputs.py, so a bad value is one `error:` line and exit status 2, with nothing
built, fetched, copied or written."""

from pathlib import Path

from harness import inputs
from harness.errors import HarnessError

OUTPUTS = ("json", "junit", "markdown", "html")
SINGLE = ("run",)  # commands whose --backend-name and --filter name one each


def _get(args, name):
    return getattr(args, name, None)


def _trees(args, layout) -> None:
    """--build: tree names of the case's layout, or paths of built trees."""
    for option, attr in (("--build", "build"), ("--from", "from_tree"), ("--to", "to_tree")):
        _tree_list(option, _get(args, attr), layout)


def _tree_list(option: str, build: str | None, layout) -> None:
    if build is None:
        return
    items = [b.strip() for b in build.split(",")]
    if not build.strip() or not all(items):
        raise HarnessError(f"{option} '{build}': an empty tree name (known: "
                           f"{', '.join(layout.names)}, or a built tree's path)")
    if option != "--build" and len(items) > 1:
        raise HarnessError(f"{option} '{build}': one tree")
    for b in items:
        if b in layout.names:
            continue
        p = Path(b).expanduser()
        if not p.exists() and "/" not in b:
            raise HarnessError(f"{option}: unknown tree '{b}' (known: {', '.join(layout.names)}, "
                               "or a built tree's path)")
        if not (p / "stamp.json").is_file():
            raise HarnessError(f"{option} {b}: not a built tree (no stamp.json)")


def _names(args) -> None:
    from harness.run import chains as graphs
    single = args.command in SINGLE
    backends = inputs.names("--backend-name", _get(args, "backend_name"), graphs.BACKENDS,
                            "backend")
    filters = inputs.names("--filter", _get(args, "filter"), graphs.FILTERS, "filter")
    if single and (len(backends) > 1 or len(filters) > 1):
        raise HarnessError(f"{args.command} takes one --backend-name and one --filter "
                           "(sweep and diff take lists)")
    if args.command in ("run", "sweep", "diff", "coverage", "mutate") and (backends or filters):
        backends, filters = backends or graphs.BACKENDS, filters or graphs.FILTERS
        pairs = [(b, f) for b in backends for f in filters]
        if not any(p in graphs.GRAPHS for p in pairs):
            have = ", ".join(f"{b} / {f}" for b, f in graphs.GRAPHS)
            raise HarnessError(f"no graph for {', '.join(f'{f} on {b}' for b, f in pairs)} "
                               f"(the harness has: {have})")


def _faults(args) -> None:
    from harness.compile.families import FAMILIES, sweep_fault
    from harness.run import faults
    given = _get(args, "fault")
    if args.command == "run":
        parsed = [faults.parse(s) for s in given or ()]
        if _get(args, "injector") == "wrap":
            bad = [f for f in parsed if f.kind in FAMILIES and not FAMILIES[f.kind].link_time
                   and "wrap" not in FAMILIES[f.kind].stanza.variants]
            if bad:
                linked = [n for n, f in FAMILIES.items() if "wrap" in f.stanza.variants]
                raise HarnessError(f"--injector wrap links only the {', '.join(linked)} "
                                   f"wrapper: '{bad[0].spec}' needs the {bad[0].kind} "
                                   "interposer (--injector preload)")
    elif args.command == "sweep":
        faults.parse(sweep_fault(given))


def _clone(args) -> None:
    git_dir = _get(args, "git_dir")
    if args.command == "diff":  # which trees: the series' or the clone's, not both
        from harness.commands.difftrees import check_combinations
        check_combinations(args)
    if git_dir is None:
        return
    repo = inputs.git_dir(git_dir)
    if _get(args, "release"):
        raise HarnessError("--release and --git-dir are two ways to get a tree; give one")
    if _get(args, "sanitizer"):
        raise HarnessError("--sanitizer builds base and before of the release, not a tree "
                           "of your own (--git-dir)")
    refs = [("--from-ref", _get(args, "from_ref")), ("--to-ref", _get(args, "to_ref"))]
    for option, ref in refs:
        if ref is not None:
            inputs.ref(repo, option, ref)


def _release(args) -> None:
    from harness.obtain import backends, releases
    for option in ("backend", "release", "case"):
        inputs.not_empty(f"--{option}", _get(args, option))
    if _get(args, "backend") is not None:
        backends.parse(args.backend)
    if _get(args, "release") is not None:
        releases.get(args.release)
    if _get(args, "source") is not None:
        inputs.input_file("--source", args.source)


def _files(args) -> None:
    for name in OUTPUTS:
        inputs.output_file(f"--{name}", _get(args, name))
    inputs.results_dir(_get(args, "results"))
    if _get(args, "model") is not None:
        from harness.run import modelfile
        modelfile.check(inputs.input_file("--model", args.model), args.backend_name)
    for p in _get(args, "patch") or ():
        from harness.obtain import patched
        patched.check_file(p)


def check(args) -> None:
    """Every option of `args` (a parsed command line), before the command runs."""
    from harness import caseload
    _release(args)
    case = caseload.load(args.case) if _get(args, "case") else None
    _clone(args)
    if case is not None and _get(args, "git_dir") is None:
        if _get(args, "tree") is not None and args.tree not in case.part("layout").names:
            raise HarnessError(f"--tree: unknown tree '{args.tree}' (known: "
                               f"{', '.join(case.layout.names)})")
        _trees(args, case.part("layout"))
    if case is not None and _get(args, "expect") and args.expect not in case.pair:
        raise HarnessError(f"--expect: unknown tree '{args.expect}' (the trees case "
                           f"{args.case} compares: {', '.join(case.pair)})")
    _names(args)
    _faults(args)
    _files(args)
    if args.command in ("sweep", "diff", "coverage", "mutate") and _get(args, "route") is not None:
        from harness.experiments import sweep
        sweep.route_names(args.route)
