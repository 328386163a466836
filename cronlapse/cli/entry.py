"""The ``cronlapse`` program: a command parsed alone, from its own module; everything else
(``--help``, ``--version``, no command, a word that names none) by :mod:`cronlapse.cli.main`.

Building the whole command line imports every command's module, and through them most of
cronlapse: the analyses, the importers, the exports, the sources, the service's commands. A
command uses a few of them, and a headless one is short enough for the rest to show (``cronlapse
run`` of a short scenario spent a fifth of its time importing modules it never used); ``cronlapse
serve`` runs for months, and every module it imports is memory it keeps and time each restart
pays (docs/service.md, "Modules"). So when the first word names a command, only that command's
parser is built, from its own module; it reads the command line exactly as the whole one does
(tests/test_cli_entry.py). The cycle collector is set for the command (see
:mod:`cronlapse.cli.collector`) before its modules are imported: importing them builds objects
by the hundred thousand, none of them garbage.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from cronlapse.cli.collector import collector_tuned_for
from cronlapse.cli.handling import run_handler

COMMAND_MODULES = {
    "script": "script",
    "next": "next",
    "run": "run",
    "check": "check",
    "export": "export",
    "tui": "tui",
    "import": "imports",
    "sweep": "sweep",
    "explain": "explain",
    "backfill": "backfill",
    "compare": "compare",
    "advise": "advise",
    "serve": "serve",
    "worker": "worker",
    "status": "status",
}
"""Each command's name and the module of :mod:`cronlapse.cli` that registers it."""


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] not in COMMAND_MODULES:
        from cronlapse.cli.main import main as whole

        return whole(words)
    with collector_tuned_for(words[0]):
        parser = command_parser(words[0])
    args = parser.parse_args(words)
    return run_handler(args, args.handler)


def command_parser(command: str) -> argparse.ArgumentParser:
    """A parser that knows ``command`` alone: ``cronlapse run --help`` says what it says from
    the whole command line."""
    module = importlib.import_module(f"cronlapse.cli.{COMMAND_MODULES[command]}")
    parser = argparse.ArgumentParser(prog="cronlapse")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    module.add_parser(subparsers)
    return parser
