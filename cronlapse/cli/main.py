"""The ``cronlapse`` command: the dashboard on the demo fleet by default, and subcommands.

The dashboard (``tui``) is imported only when a subcommand needs it, so headless use never loads
Textual.
"""

from __future__ import annotations

import argparse
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
from cronlapse.cli.handling import INTERNAL_ERROR as INTERNAL_ERROR
from cronlapse.cli.handling import INTERRUPTED as INTERRUPTED
from cronlapse.cli.handling import run_handler

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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return run_handler(args, getattr(args, "handler", tui.open_default))


def version() -> str:
    """The installed package's version (``unknown`` when run from a tree never installed)."""
    try:
        return metadata.version("cronlapse")
    except metadata.PackageNotFoundError:
        return "unknown"
