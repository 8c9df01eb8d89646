"""python -m harness: sub-commands, and the one place exceptions become exit statuses.

This module only parses and dispatches: each sub-command is a module of harness/commands/
(its options, their check and what it runs), in the order `--help` lists them."""

import argparse
import importlib
import signal
import sys

from harness.errors import SIGNALLED, ExitStatus, HarnessError

COMMANDS = ("build", "probe", "run", "table", "sweep", "diff", "merge", "claims", "cache",
            "unchanged", "coverage", "mutate")


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
    ap.add_argument("--debug", action="store_true",
                    help=f"an unexpected error (exit {ExitStatus.INTERNAL_ERROR:d}) prints its "
                         "traceback, not one line")
    sub = ap.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"harness.commands.{name}").add_parser(sub)
    return ap


def main(argv=None) -> int:
    """The command's exit status (an ExitStatus): its own; BAD_INPUT for bad input
    (HarnessError: one `error:` line); SIGNALLED + the signal when ended by one;
    INTERNAL_ERROR for any other exception, one line naming it (its traceback with
    --debug, given before the sub-command)."""
    from harness import reaper
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        with reaper.installed():  # SIGTERM, SIGINT: what the command started ends with it
            args = parser().parse_args(argv)
            args.check(args)  # the command's every option, before any work
            return args.func(args)
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt:
        sig = reaper.signalled() or signal.SIGINT
        print(f"error: interrupted ({signal.Signals(sig).name}); its processes ended, nothing "
              "half-built was kept", file=sys.stderr)
        return SIGNALLED + sig
    except Exception as e:  # a bug: said in one line, the traceback only when asked for
        if "--debug" in argv:
            import traceback
            traceback.print_exc()
        where = _where(e)
        print(f"error: internal error: {type(e).__name__}: {e}{where} (exit "
              f"{ExitStatus.INTERNAL_ERROR:d}; python -m harness --debug ... prints the "
              "traceback)", file=sys.stderr)
        return ExitStatus.INTERNAL_ERROR


def _where(e: BaseException) -> str:
    """` in module.function()`: the innermost frame of the harness's own code."""
    import traceback
    frames = [f for f in traceback.extract_tb(e.__traceback__) if "/harness/" in f.filename]
    if not frames:
        return ""
    f = frames[-1]
    return f" in {f.filename.rsplit('/harness/', 1)[1]}:{f.lineno} ({f.name})"
