"""python -m harness: sub-commands, and the one place exceptions become exit statuses.

This module only parses and dispatches: each sub-command is a module of harness/commands/
(its options and what it runs), in the order `--help` lists them."""

import argparse
import importlib
import signal
import sys

from harness.errors import HarnessError

COMMANDS = ("build", "probe", "run", "table", "sweep", "diff", "merge", "claims", "cache",
            "unchanged")


class UsageError(HarnessError):
    """The parser refused the command line: one line, the usage stays under --help."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        command = self.prog.removeprefix("python -m harness").strip()
        raise UsageError(f"{command + ': ' if command else ''}{message} (see --help)")


def parser() -> argparse.ArgumentParser:
    from harness import __version__
    ap = Parser(prog="python -m harness", description=__doc__.split("\n")[0])
    ap.add_argument("--version", action="version", version=f"ffmpeg-dnn-fault-harness {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"harness.commands.{name}").add_parser(sub)
    return ap


def main(argv=None) -> int:
    from harness import precheck, reaper
    try:
        with reaper.installed():  # SIGTERM, SIGINT: what the command started ends with it
            args = parser().parse_args(argv)
            precheck.check(args)  # every option, before any work
            return args.func(args)
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt:
        sig = reaper.signalled() or signal.SIGINT
        print(f"error: interrupted ({signal.Signals(sig).name}); its processes ended, nothing "
              "half-built was kept", file=sys.stderr)
        return 128 + sig
