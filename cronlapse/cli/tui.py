"""``cronlapse tui FILE`` and ``cronlapse`` alone: the dashboard, on a file or on the demo fleet;
``cronlapse tui --db URL``: the dashboard attached to a running service's journal.

The dashboard (package ``tui``, which needs Textual) is imported inside the handlers, so that
``import engine`` and every headless subcommand work without loading it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from cronlapse.bundled import DEMO
from cronlapse.sources import STDIN


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Register ``tui FILE`` on ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "tui",
        help="open the dashboard on a scenario or a seed 001 script",
        description=(
            "Open the terminal dashboard on FILE: a YAML scenario, or a seed 001 command script "
            "(.txt). It opens paused at the first tick; press ? for the keys."
        ),
    )
    parser.add_argument(
        "file", metavar="FILE", nargs="?", help="a scenario (.yaml) or a script (.txt)"
    )
    live = parser.add_argument_group(
        "a live service", "watch the service journaled in a database (cronlapse serve's --db)"
    )
    live.add_argument("--db", metavar="URL", help="the service's database URL, instead of FILE")
    live.add_argument(
        "--url",
        metavar="URL",
        help="where the service listens (default: where it says it does, else "
        "http://127.0.0.1:8080); commands at the live head go there",
    )
    live.add_argument(
        "--token-file",
        metavar="F",
        help="the service's token (default: $CRONLAPSE_TOKEN, else the file next to the database)",
    )
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Open the dashboard on ``args.file`` or on the service at ``args.db``; 2 when the file
    does not exist or is ``-`` (standard input, which a reload could not read again), the
    database is no service journal, or both or neither are given."""
    db = getattr(args, "db", None)
    if (db is None) == (args.file is None):
        err.write("cronlapse tui: give a FILE, or --db URL for a live service (not both)\n")
        return 2
    if db is not None:
        return _live(args, err)
    if args.file == STDIN:
        err.write(
            "cronlapse tui: - (standard input): the dashboard reloads its file when it changes, "
            "so it cannot read standard input: save the scenario to a file and open that\n"
        )
        return 2
    path = Path(args.file)
    if not path.is_file():
        err.write(f"cronlapse tui: {path}: no such file\n")
        return 2
    return _dashboard(path, err)


def open_default(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Open the dashboard on the bundled demo scenario (``cronlapse`` with no arguments)."""
    if not DEMO.is_file():
        err.write(
            f"cronlapse: the demo scenario {DEMO} is missing; "
            "run `cronlapse tui FILE` on a scenario or a script\n"
        )
        return 2
    return _dashboard(DEMO, err)


def _dashboard(path: Path, err: TextIO) -> int:
    try:
        from tui.app import run_dashboard
    except ImportError as error:
        err.write(f"cronlapse: the dashboard needs Textual ({error}); pip install textual\n")
        return 2
    return run_dashboard(path)


def _live(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from cronlapse.service.store import JournalUnreadable
        from tui.live_app import live_app
    except ImportError as error:
        err.write(f"cronlapse: the dashboard needs Textual ({error}); pip install textual\n")
        return 2
    try:
        app = live_app(args.db, args.url, args.token_file)
    except JournalUnreadable as error:
        err.write(f"cronlapse tui: {error}\n")
        return 2
    app.run()
    return app.return_code or 0
