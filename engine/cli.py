"""The ``cronlapse`` command: the dashboard on the demo fleet by default, and subcommands.

The dashboard (``tui``) is imported only when a subcommand needs it, so headless use never loads
Textual.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from engine import cli_import, cli_next, cli_scenario, cli_tui
from engine.facades.script import execute_script
from service import cli as serve_cli


def _run_script(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    path: str = args.file
    try:
        if path == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
    except OSError as error:
        err.write(f"cronlapse script: cannot read {path}: {error.strerror}\n")
        return 2
    except UnicodeDecodeError as error:
        err.write(f"cronlapse script: {path} is not UTF-8 text ({error.reason})\n")
        return 2
    result = execute_script(lines)
    for line in result.output:
        out.write(line + "\n")
    for line in result.errors:
        err.write(line + "\n")
    return result.exit_code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cronlapse",
        description=(
            "A time-lapse for job schedulers: step and rewind a deterministic engine. "
            "With no command, opens the dashboard on the bundled demo fleet."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    script = subparsers.add_parser(
        "script",
        help="run a seed 001 protocol script and print its output",
        description="Run a seed 001 command script; errors go to stderr as 'line N: ...'.",
    )
    script.add_argument("file", help="the script, or - for standard input")
    script.set_defaults(handler=_run_script)
    cli_next.add_parser(subparsers).set_defaults(handler=cli_next.run)
    cli_scenario.add_parsers(subparsers)
    cli_tui.add_parsers(subparsers)
    cli_import.add_parsers(subparsers)
    serve_cli.add_parser(subparsers)
    serve_cli.add_status_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", cli_tui.open_default)
    return handler(args, sys.stdout, sys.stderr)
