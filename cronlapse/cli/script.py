"""``cronlapse script FILE``: a seed 001 protocol script played, its output lines printed."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from cronlapse.sources import STDIN, STDIN_NAME
from cronlapse.sources.stdin import stdin_bytes
from engine.facades.script import execute_script
from engine.scenario import ScenarioInvalid
from engine.scenario.yaml_source import utf8_text


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Register ``script`` on ``subparsers``."""
    parser = subparsers.add_parser(
        "script",
        help="run a seed 001 protocol script and print its output",
        description="Run a seed 001 command script; errors go to stderr as 'line N: ...'.",
    )
    parser.add_argument("file", help="the script, or - for standard input")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
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
        err.writelines(f"{error}\n" for error in invalid.problems)
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
