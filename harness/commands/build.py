"""`python -m harness build`: build (or find in the cache) the case's trees, each with its cffi
module, or a sanitizer variant of them."""

import signal

from harness.commands import common, options
from harness.errors import ExitStatus


def add_parser(sub) -> None:
    p = sub.add_parser("build", help="build (or find in the cache) the base/before/after trees")
    p.add_argument("--tree", help="only this tree (and its parents)")
    p.add_argument("--sanitizer", choices=("asan", "tsan"),
                   help="a sanitizer variant of base and before (FFmpeg's gcc-asan or "
                        "gcc-tsan toolchain) with the backends its claim needs")
    common.add_build_options(p)
    p.set_defaults(func=run, check=check)


def check(args) -> None:
    case = common.check_build_options(args, args.sanitizer)
    if args.git_dir is None:
        options.tree("--tree", args.tree, case.part("layout"))


def run(args) -> int:
    from harness.compile import ffi_build
    if args.sanitizer:  # a variant's backend set is the one its claim needs
        from harness.experiments import sanitizer
        plan = sanitizer.plan(args.sanitizer, common.case_of(args).part("layout"),
                              source_file=args.source, repo=args.git_dir)
    else:
        plan = common.plan(args, names=(args.tree,) if args.tree else None)
    # each tree's cffi module compiles while the next tree builds (a variant runs only its
    # ffmpeg_g: no module)
    built, modules = [], []
    try:
        for name in ([args.tree] if args.tree else plan.names):
            built.append(plan.get(name))
            if not args.sanitizer:
                modules.append(ffi_build.start(built[-1]))
        for process in modules:
            ffi_build.finish(process)
    finally:  # a build that failed or was interrupted: the compiles end too, cleaning up
        for process in modules:
            if process and process.poll() is None:
                process.send_signal(signal.SIGINT)
                process.wait()
    for tree in built:
        s = tree.stamp
        print(f"{tree.name}: {tree.path} ({s['warning_count']} warning lines, "
              f"series {len(s['series'])} patches, built in {s['seconds']['total']} s)")
    from harness.judge import series
    needs = common.case_of(args).table_needs
    first = common.case_of(args).part("layout").names[0]  # the release itself: no patch
    for line in series.notes([t for t in built if t.name.split("-")[0] != first], needs):
        print(f"- {line}")
    return ExitStatus.OK
