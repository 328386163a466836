"""``cronlapse tui FILE`` and ``cronlapse`` alone: the dashboard, on a file or on the demo fleet;
``cronlapse tui --db URL``: the dashboard attached to a running service's journal.

The dashboard (package ``tui``, which needs Textual) is imported inside the handlers, so that
``import engine`` and every headless subcommand work without loading it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

DEMO = Path(__file__).resolve().parent.parent / "scenarios" / "demo.yaml"
"""The bundled demo fleet that ``cronlapse`` with no arguments opens."""


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
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
    does not exist, the database is no service journal, or both or neither are given."""
    db = getattr(args, "db", None)
    if (db is None) == (args.file is None):
        err.write("cronlapse tui: give a FILE, or --db URL for a live service (not both)\n")
        return 2
    if db is not None:
        return _live(args, err)
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
        from tui.live_app import live_app
        from tui.model.live_journal import JournalUnreadable
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


def main(argv: Sequence[str]) -> int:
    """``python -m tui [FILE]``: the dashboard on FILE, or on the demo."""
    import sys

    args = argparse.Namespace(file=argv[0]) if argv else argparse.Namespace()
    if argv:
        return run(args, sys.stdout, sys.stderr)
    return open_default(args, sys.stdout, sys.stderr)
