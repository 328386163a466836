"""``cronlapse advise FILE``: what hurts a fleet, the changes that help, and the plays that prove
them (:mod:`cronlapse.analyses.advise`); ``-o`` writes the fleet with the changes.

A fleet whose jobs all came from crontabs, CronJob manifests and timers (a file of one of those,
or a scenario ``cronlapse import`` wrote) goes back as those files, each job in the format of
its own (:func:`cronlapse.exports.fleet.write_fleet`): one file to ``-o FILE``, several into the
directory ``-o DIR``. Its advice then proposes only what those files can say. Any other fleet,
or one with ``--scenario``, is written as a scenario.

Exit status: 0 when the advice is printed (whatever it found), 2 for a file that cannot be read,
an option that does not read or an output that cannot be written, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import errno
import os
from pathlib import Path
from typing import Any, TextIO

from cronlapse.analyses.advise import Advice, AdviceOptions, FleetError, advise, read_fleet
from cronlapse.analyses.advise.advice import DEFAULT_WINDOW, MAX_WINDOW
from cronlapse.analyses.advise.render import advice_text
from cronlapse.analyses.advise.writer import scenario_text
from cronlapse.cli.export import write_files
from cronlapse.cli.playing import INVALID, opened_scenario, plural, tick
from cronlapse.exports.fleet import SOURCE, kept_keys, write_fleet


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
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE|DIR",
        help="write the advised fleet: as the files its jobs came from (several: into the "
        "directory DIR), else as a scenario",
    )
    parser.add_argument(
        "--scenario",
        action="store_true",
        help="advise and write as a scenario even when the jobs came from crontabs, "
        "manifests or timers (changes those files cannot say are then proposed too)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if not 1 <= args.window <= MAX_WINDOW:
        err.write(
            f"cronlapse advise: --window: expected a whole number of minutes from 1 to "
            f"{MAX_WINDOW}, got {args.window}\n"
        )
        return INVALID
    opened = opened_scenario(args.file, "advise", err)
    if opened is None:
        return INVALID
    source, _ = opened
    try:
        fleet = read_fleet(source.source, source.text)
    except FleetError as error:
        err.write(f"cronlapse advise: {error}\n")
        return INVALID
    kept = None if args.scenario else kept_keys(fleet.scenario)
    if args.output is not None:
        several = kept is not None and len(write_fleet(fleet.scenario, SOURCE).files) > 1
        if (problem := _cannot_write(args.output, several)) is not None:
            err.write(
                f"cronlapse advise: cannot write {args.output}: {problem}\n"
            )  # before playing
            return INVALID
    try:
        advice = advise(fleet, AdviceOptions(args.window, args.until, kept))
    except FleetError as error:
        err.write(f"cronlapse advise: {error}\n")
        return INVALID
    out.write(advice_text(advice))
    if args.output is None:
        return 0
    if not advice.taken:
        err.write(f"cronlapse advise: no change proposed: {args.output} not written\n")
        return 0
    try:
        written = _write(advice, Path(args.output), kept is not None, err)
    except OSError as error:
        err.write(f"cronlapse advise: cannot write {args.output}: {error.strerror}\n")
        return INVALID
    out.write(f"wrote {written}\n")
    return 0


def _write(advice: Advice, output: Path, back: bool, err: TextIO) -> str:
    """Write the advised fleet at ``output``, back to its files' formats if ``back``; what was
    written, as the message says it."""
    if not back:
        output.write_text(scenario_text(advice), encoding="utf-8")
        return str(output)
    fleet = write_fleet(advice.advised.scenario, SOURCE)
    err.writelines(f"cronlapse advise: {note}\n" for note in fleet.notes)
    if len(fleet.files) == 1:
        ((name, text),) = fleet.files.items()
        output.write_text(text, encoding="utf-8")
        return f"{output}: {name} with the changes"
    write_files(output, fleet.files)
    return f"{plural(len(fleet.files), 'file')} in {output}: {', '.join(fleet.files)}"


def _cannot_write(path: str, directory: bool) -> str | None:
    """Why ``path`` could not be written (as a directory of files if ``directory``), as the
    system says it; None if it can."""
    target = Path(path)
    if directory:
        if target.exists() and not target.is_dir():
            return os.strerror(errno.ENOTDIR)
        if target.is_dir():
            return None if os.access(target, os.W_OK) else os.strerror(errno.EACCES)
    elif target.is_dir():
        return os.strerror(errno.EISDIR)
    if not target.parent.is_dir():
        return os.strerror(errno.ENOENT)
    writable = os.access(target, os.W_OK) if target.exists() else os.access(target.parent, os.W_OK)
    return None if writable else os.strerror(errno.EACCES)
