"""``cronlapse tui FILE`` and ``cronlapse`` alone: the dashboard, on a file or on the demo fleet.

The dashboard (package ``tui``, which needs Textual) is imported inside the handlers, so that
``import engine`` and every headless subcommand work without loading it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

DEMO_NAME = "demo.yaml"
SOURCE_SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
"""The scenarios in a source tree (also where the package data below links to)."""


def bundled_scenarios() -> Path:
    """Where the bundled scenarios are: the ``cronlapse_scenarios`` package data of an install
    (``pip install .`` copies them there; an editable install points at ``scenarios/``), else
    the source tree's ``scenarios/``."""
    try:
        found = resources.files("cronlapse_scenarios") / DEMO_NAME
    except ModuleNotFoundError:
        return SOURCE_SCENARIOS
    return Path(str(found)).resolve().parent if found.is_file() else SOURCE_SCENARIOS


DEMO = bundled_scenarios() / DEMO_NAME
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
    parser.add_argument("file", metavar="FILE", help="a scenario (.yaml) or a script (.txt)")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Open the dashboard on ``args.file``; 2 when the file does not exist."""
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


def main(argv: Sequence[str]) -> int:
    """``python -m tui [FILE]``: the dashboard on FILE, or on the demo."""
    import sys

    args = argparse.Namespace(file=argv[0]) if argv else argparse.Namespace()
    if argv:
        return run(args, sys.stdout, sys.stderr)
    return open_default(args, sys.stdout, sys.stderr)
