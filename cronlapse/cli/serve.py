"""``cronlapse serve``: run the job-scheduling service on the engine (see docs/service.md).

Only argparse is imported here: the service's dependencies (SQLAlchemy, Starlette, uvicorn) load
when the command runs, so the rest of ``cronlapse`` never pays for them.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from engine.model.digits import is_digits

DEFAULT_DB = "sqlite:///cronlapse.db"
"""Where ``serve`` and ``status`` look without ``--db``."""


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
    parser.add_argument("--port", type=_port, default=8080, help="port (default 8080)")
    parser.add_argument("--config", help="YAML config: executors, workers (default: noop only)")
    parser.add_argument(
        "--speed", type=_speed, default=1.0, help="ticks per wall second (default 1)"
    )
    parser.add_argument(
        "--role",
        choices=("scheduler", "api"),
        help=(
            "scheduler: one of several processes on one PostgreSQL database, active only while "
            "it holds the scheduler lock, a standby following the journal otherwise; api: a "
            "stateless API process writing to the inbox and reading the read model"
        ),
    )
    parser.add_argument(
        "--read-db",
        metavar="URL",
        help="--role api: answer GETs from this database (a streaming replica of --db)",
    )
    parser.add_argument(
        "--log-file",
        metavar="FILE",
        help="append the structured logs (JSON lines) to FILE instead of standard error",
    )
    parser.add_argument(
        "--metrics-public",
        action="store_true",
        help="serve GET /metrics without the token (for a scraper on loopback)",
    )
    parser.set_defaults(handler=run)
    return parser


def _port(text: str) -> int:
    """A TCP port; the operating system takes a larger number modulo 65536, silently."""
    if not is_digits(text) or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 1 to 65535, got {text!r}")
    return int(text)


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"expected a number of ticks per second, got {text!r}")
    return value


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``cronlapse serve``. A server has no output: what it says (where it listens, how to
    authenticate, its role's changes) is diagnostics, on standard error as every other
    command's messages, beside its structured logs unless ``--log-file`` takes those."""
    from cronlapse.service.server import ServeError, serve

    try:
        log = err if args.log_file is None else open(args.log_file, "a", encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        err.write(f"cronlapse serve: cannot open the log file {args.log_file}: {error.strerror}\n")
        return 2
    try:
        return serve(
            args.db,
            args.host,
            args.port,
            args.config,
            args.speed,
            err,
            args.role,
            log,
            args.metrics_public,
            args.read_db,
        )
    except ServeError as error:
        err.write(f"cronlapse serve: {error}\n")
        return 2
    finally:
        if log is not err:
            log.close()
