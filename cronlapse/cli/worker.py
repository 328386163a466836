"""``cronlapse worker``: an executor process for a scheduler on PostgreSQL (docs/deployment.md).

The service's modules load when the command runs, as for ``serve``.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from engine.model.digits import is_digits


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "worker",
        help="run attempts for a scheduler on PostgreSQL (serve --role scheduler)",
        description=(
            "An executor process: claims the attempts the active scheduler assigns to its "
            "slots, runs them with the config's executors, heartbeats and reports outcomes "
            "through the database (see docs/deployment.md)."
        ),
    )
    parser.add_argument("--db", required=True, help="the scheduler's postgresql:// URL")
    parser.add_argument("--slots", type=_slots, default=1, help="attempts run at once (default 1)")
    parser.add_argument("--config", help="YAML config: its executors (default: noop only)")
    parser.add_argument("--name", help="this process's name (default HOST-PID)")
    parser.set_defaults(handler=run)
    return parser


def _slots(text: str) -> int:
    if not is_digits(text) or not 1 <= int(text) <= 256:
        raise argparse.ArgumentTypeError(f"expected a number of slots from 1 to 256, got {text!r}")
    return int(text)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``cronlapse worker``: like ``serve``, it says what it is doing on standard error."""
    from cronlapse.service.server import ServeError, worker

    try:
        return worker(args.db, args.name, args.slots, args.config, err)
    except ServeError as error:
        err.write(f"cronlapse worker: {error}\n")
        return 2
