"""The ``cronlapse`` command: the dashboard on the demo fleet by default, and subcommands.

The dashboard (``tui``) is imported only when a subcommand needs it, so headless use never loads
Textual.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import metadata
from typing import TextIO

from engine import (
    cli_backfill,
    cli_compare,
    cli_explain,
    cli_import,
    cli_next,
    cli_scenario,
    cli_sweep,
    cli_tui,
)
from engine.cli_input import STDIN, STDIN_NAME, stdin_bytes
from engine.facades.script import execute_script
from engine.scenario import ScenarioInvalid
from engine.scenario.yaml_source import utf8_text
from service import cli as serve_cli


def _run_script(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Play a seed 001 script. A file or standard input that cannot be read, or text that is no
    script (not UTF-8, or blank lines only), is refused with ``cronlapse run``'s message and
    status, 2: standard input's bytes are decoded here, so that the locale does not turn them
    into unknown commands. A line the protocol rejects is the protocol's error (``line N: ...``,
    status 1)."""
    path: str = args.file
    source = STDIN_NAME if path == STDIN else path
    try:
        if path == STDIN:
            data = stdin_bytes()
        else:
            with open(path, "rb") as handle:
                data = handle.read()
        lines = utf8_text(data, source).splitlines()
    except OSError as error:
        err.write(f"{source}: cannot read: {error.strerror}\n")
        return 2
    except ScenarioInvalid as invalid:
        err.writelines(f"{error}\n" for error in invalid.errors)
        return 2
    if not any(line.strip() for line in lines):
        err.write(f"{source}:1:1: the script is empty: its first command must be INIT\n")
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
    parser.add_argument("--version", action="version", version=f"cronlapse {version()}")
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
    cli_sweep.add_parser(subparsers)
    cli_explain.add_parsers(subparsers)
    cli_backfill.add_parser(subparsers)
    cli_compare.add_parser(subparsers)
    serve_cli.add_parser(subparsers)
    serve_cli.add_status_parser(subparsers)
    return parser


INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT), as shells report it."""
INTERNAL_ERROR = 70
"""The exit status of a bug in cronlapse (sysexits' EX_SOFTWARE), said in one line."""


BATCH_COMMANDS = frozenset(
    {"script", "next", "run", "check", "export", "import", "sweep", "explain"}
    | {"backfill", "compare"}
)
"""The commands that play or read a run and exit: they run with the collector tuned for it."""

BATCH_COLLECTOR_THRESHOLDS = (200_000, 30, 30)
"""Python's cycle collector, for a command that builds a run and exits (the defaults are 700,
10, 10). A run keeps every record and event it makes, few of them in cycles, so the collector's
passes over them find almost nothing, and with the defaults they took a quarter of a month-long
fleet's play (benchmarks/run_fleet.py, docs/performance.md). mypy tunes its command the same
way, to the same values. The dashboard and the service keep the defaults: they run for hours,
and their pauses are the collector's too."""


@contextmanager
def collector_tuned_for(command: str | None) -> Iterator[None]:
    """Run a batch command (``BATCH_COMMANDS``) with the collector's batch thresholds, and put
    the ones before back after it (``main`` is also called in-process, by tests)."""
    if command not in BATCH_COMMANDS:
        yield
        return
    before = gc.get_threshold()
    gc.set_threshold(*BATCH_COLLECTOR_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", cli_tui.open_default)
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
