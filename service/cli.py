"""``cronlapse serve``: run the job-scheduling service on the engine (see docs/service.md).

Only argparse is imported here: the service's dependencies (SQLAlchemy, Starlette, uvicorn) load
when the command runs, so the rest of ``cronlapse`` never pays for them.
"""

from __future__ import annotations

import argparse
from typing import TextIO

DEFAULT_DB = "sqlite:///cronlapse.db"


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "serve",
        help="run the job-scheduling service (HTTP API, journal in a database)",
        description=(
            "Run seed 003's job-scheduling service on the engine: an HTTP API, every input "
            "journaled in the database before it is applied, real executors from the config."
        ),
    )
    parser.add_argument("--db", default=DEFAULT_DB, help=f"database URL (default {DEFAULT_DB})")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    parser.add_argument("--config", help="YAML config: executors, workers (default: noop only)")
    parser.add_argument(
        "--speed", type=_speed, default=1.0, help="ticks per wall second (default 1)"
    )
    parser.add_argument(
        "--role",
        choices=("scheduler",),
        help=(
            "scheduler: one of several processes on one PostgreSQL database, active only while "
            "it holds the scheduler lock, a standby following the journal otherwise"
        ),
    )
    parser.set_defaults(handler=run)
    _add_worker_parser(subparsers)
    return parser


def _add_worker_parser(subparsers) -> None:
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
    parser.set_defaults(handler=run_worker)


def _slots(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 256:
        raise argparse.ArgumentTypeError(f"expected a number of slots from 1 to 256, got {text!r}")
    return int(text)


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"expected a number of ticks per second, got {text!r}")
    return value


def run_worker(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from service.server import ServeError, worker

    try:
        return worker(args.db, args.name, args.slots, args.config, out)
    except ServeError as error:
        err.write(f"cronlapse worker: {error}\n")
        return 2


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from service.server import ServeError, serve

    try:
        return serve(args.db, args.host, args.port, args.config, args.speed, out, args.role)
    except ServeError as error:
        err.write(f"cronlapse serve: {error}\n")
        return 2
