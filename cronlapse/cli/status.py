"""``cronlapse status``: a service database read without the server (read-only; safe while it
runs): jobs by status, workers, the outbox, the oldest waiting run and the journal's size."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from cronlapse.cli.serve import DEFAULT_DB


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "status",
        help="a service database's jobs, workers, outbox, oldest waiting run and journal size",
        description=(
            "Read a service's database (read-only; safe while the server runs) and print its "
            "jobs by status, its workers, the notification outbox, the oldest run waiting for "
            "a worker and the journal's size."
        ),
    )
    parser.add_argument("--db", default=DEFAULT_DB, help=f"database URL (default {DEFAULT_DB})")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cronlapse.service.journal_replay import UnknownInput
    from cronlapse.service.status import read_status, status_json, status_text
    from cronlapse.service.store import StoreError, StoreFailure, shown

    try:
        found = read_status(args.db)
    except StoreFailure as error:
        err.write(f"cronlapse status: cannot read {shown(args.db)}: {error.kind}\n")
        return 2
    except (StoreError, UnknownInput) as error:
        err.write(f"cronlapse status: {error}\n")
        return 2
    out.write(status_json(found) if args.json else status_text(found))
    return 0
