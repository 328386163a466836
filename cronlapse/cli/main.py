"""The ``cronlapse`` command: the dashboard on the demo fleet by default, and subcommands.

The dashboard (``tui``) is imported only when a subcommand needs it, so headless use never loads
Textual.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import metadata

from cronlapse.cli import (
    advise,
    backfill,
    check,
    compare,
    explain,
    export,
    imports,
    run,
    script,
    serve,
    status,
    sweep,
    tui,
    worker,
)
from cronlapse.cli import (
    next as preview,
)
from cronlapse.cli.collector import collector_tuned_for

COMMANDS = (script, preview, run, check, export, tui, imports, sweep, explain, backfill, compare)
COMMANDS += (advise, serve, worker, status)
"""Every command's module, in the order ``--help`` lists them; each has ``add_parser``."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cronlapse",
        description=(
            "A time-lapse for job schedulers: step and rewind a deterministic engine. "
            "With no command, opens the dashboard on the bundled demo fleet."
        ),
    )
    parser.add_argument("--version", action="version", version=f"cronlapse {version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT), as shells report it."""
INTERNAL_ERROR = 70
"""The exit status of a bug in cronlapse (sysexits' EX_SOFTWARE), said in one line."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", tui.open_default)
    words = ("cronlapse", args.command, getattr(args, "explain_command", None))
    name = " ".join(word for word in words if word)
    try:
        with collector_tuned_for(args.command):
            return handler(args, sys.stdout, sys.stderr)
    except KeyboardInterrupt:  # Ctrl-C: the user knows why it stopped, so one line will do
        sys.stderr.write(f"{name}: interrupted\n")
        return INTERRUPTED
    except BrokenPipeError:  # the reader left (``| head``): nothing more to say
        _silence_stdout()
        return 0
    except Exception as error:  # the promise is: no traceback, ever, from any command
        sys.stderr.write(f"{name}: internal error: {type(error).__name__}: {error}\n")
        return INTERNAL_ERROR


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail on the closed pipe
    a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # not a real file (a test's capture): nothing to flush
        pass


def version() -> str:
    """The installed package's version (``unknown`` when run from a tree never installed)."""
    try:
        return metadata.version("cronlapse")
    except metadata.PackageNotFoundError:
        return "unknown"
