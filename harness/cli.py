"""python -m harness: sub-commands, and the one place exceptions become exit statuses."""

import argparse
import sys

from .errors import HarnessError


def _plan(args):
    from .trees import Plan
    refs = {}
    if args.git_dir:
        refs = {"before": args.before_ref, "after": args.after_ref}
    return Plan(args.backend, source_file=args.source, repo=args.git_dir, refs=refs)


def cmd_build(args) -> int:
    from .trees import build_all
    plan = _plan(args)
    for tree in build_all(plan, args.tree and [args.tree]):
        s = tree.stamp
        print(f"{tree.name}: {tree.path} ({s['warning_count']} warning lines, "
              f"series {len(s['series'])} patches)")
    return 0


def add_build_options(p) -> None:
    p.add_argument("--backend", default="default",
                   help="backends to configure: onnx, a comma list, or 'default'")
    p.add_argument("--source", metavar="TARBALL",
                   help="FFmpeg release tarball to use (checked against the pinned sha256)")
    p.add_argument("--git-dir", metavar="DIR",
                   help="bring your own tree: an FFmpeg git clone; builds before/after from refs")
    p.add_argument("--before-ref", default="HEAD~1", help="with --git-dir: the 'before' ref")
    p.add_argument("--after-ref", default="HEAD", help="with --git-dir: the 'after' ref")


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m harness", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("build", help="build (or find in the cache) the base/before/after trees")
    p.add_argument("--tree", help="only this tree (and its parents)")
    add_build_options(p)
    p.set_defaults(func=cmd_build)
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt:
        print("error: interrupted; nothing half-built was kept", file=sys.stderr)
        return 130
