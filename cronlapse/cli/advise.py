"""``cronlapse advise FILE``: what hurts a fleet, the changes that help, and the plays that prove
them (:mod:`cronlapse.analyses.advise`); ``-o FILE`` writes the fleet with the changes.

Exit status: 0 when the advice is printed (whatever it found), 2 for a file that cannot be read,
an option that does not read or an output that cannot be written, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from cronlapse.analyses.advise import Advice, AdviceOptions, FleetError, advise, read_fleet
from cronlapse.analyses.advise.advice import DEFAULT_WINDOW, MAX_WINDOW
from cronlapse.analyses.advise.render import advice_text
from cronlapse.analyses.advise.writer import scenario_text
from cronlapse.cli.playing import INVALID, opened_scenario, tick
from cronlapse.sources import SourceKind

Writer = Callable[[Advice], str]
"""Writes an advised fleet as a file's text."""
WRITERS: dict[SourceKind, Writer] = {SourceKind.SCENARIO: scenario_text}
"""The writer for each kind of file advice reads. A crontab, manifest or timer is written as a
scenario until its exporter (``cronlapse export``) is given its place here."""


def writer_for(kind: SourceKind) -> tuple[Writer, str | None]:
    """The writer for a fleet read from a file of ``kind``, and a note when it is not the
    file's own format."""
    own = WRITERS.get(kind)
    if own is not None:
        return own, None
    return scenario_text, f"as a scenario: advice does not write {kind.value} files yet"


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "advise",
        help="find what hurts a fleet (herds, peaks, DST hours, long runs, missed runs) "
        "and prove the changes that help",
        description="Play FILE (a scenario, or a crontab, CronJob manifests or a systemd timer, "
        "imported as cronlapse import would) and list what hurts it, each with a change that is "
        "proposed only when playing the fleet before and after it shows the change helps.",
    )
    parser.add_argument("file", help="a scenario, crontab, manifest or timer (- for stdin)")
    parser.add_argument(
        "--window",
        type=int,
        default=DEFAULT_WINDOW,
        metavar="MINUTES",
        help=f"how many minutes later a job of a herd may fire (1 to {MAX_WINDOW}; "
        f"default {DEFAULT_WINDOW})",
    )
    parser.add_argument(
        "--until",
        type=tick,
        metavar="T",
        help="play to tick T (default: a week, or the scenario's clock.until if sooner)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write the advised fleet here")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if not 1 <= args.window <= MAX_WINDOW:
        err.write(
            f"cronlapse advise: --window: expected a whole number of minutes from 1 to "
            f"{MAX_WINDOW}, got {args.window}\n"
        )
        return INVALID
    if args.output is not None and (problem := _cannot_write(args.output)) is not None:
        err.write(f"cronlapse advise: cannot write {args.output}: {problem}\n")  # before playing
        return INVALID
    opened = opened_scenario(args.file, "advise", err)
    if opened is None:
        return INVALID
    source, _ = opened
    try:
        fleet = read_fleet(source.source, source.text)
        advice = advise(fleet, AdviceOptions(args.window, args.until))
    except FleetError as error:
        err.write(f"cronlapse advise: {error}\n")
        return INVALID
    out.write(advice_text(advice))
    if args.output is None:
        return 0
    if not advice.taken:
        err.write(f"cronlapse advise: no change proposed: {args.output} not written\n")
        return 0
    write, note = writer_for(source.kind)
    try:
        Path(args.output).write_text(write(advice), encoding="utf-8")
    except OSError as error:
        err.write(f"cronlapse advise: cannot write {args.output}: {error.strerror}\n")
        return INVALID
    out.write(f"wrote {args.output}{f' ({note})' if note else ''}\n")
    return 0


def _cannot_write(path: str) -> str | None:
    """Why ``path`` could not be written, as the system says it; None if it can."""
    target = Path(path)
    if target.is_dir():
        return os.strerror(errno.EISDIR)
    if not target.parent.is_dir():
        return os.strerror(errno.ENOENT)
    writable = os.access(target, os.W_OK) if target.exists() else os.access(target.parent, os.W_OK)
    return None if writable else os.strerror(errno.EACCES)
