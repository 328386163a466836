"""The ``cronlapse`` program: the service's commands parsed alone, everything else by
:mod:`cronlapse.cli.main`.

``cronlapse serve`` runs for months: every module it imports is memory it keeps and time each
restart pays. Building the whole command line imports every command's module, and through them
the simulator (the analyses, the importers, the exports, the sources), which no server uses. So
when the first word names one of the service's commands, only that command's parser is built,
from its own module, which imports only argparse until it runs (docs/service.md, "Modules").
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cronlapse.cli.handling import run_handler

SERVICE_COMMANDS = ("serve", "worker", "status")
"""The commands of a service's processes, parsed without the rest of the command line."""


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] not in SERVICE_COMMANDS:
        from cronlapse.cli.main import main as whole

        return whole(words)
    args = service_parser(words[0]).parse_args(words)
    return run_handler(args, args.handler)


def service_parser(command: str) -> argparse.ArgumentParser:
    """A parser that knows ``command`` alone: ``cronlapse serve --help`` says what it says
    from the whole command line."""
    from cronlapse.cli import serve, status, worker

    modules = {"serve": serve, "worker": worker, "status": status}
    parser = argparse.ArgumentParser(prog="cronlapse")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules[command].add_parser(subparsers)
    return parser
