"""``cronlapse backfill --dry-run``: the runs a backfill would create, listed without creating them.

The listing is the engine's own plan (:meth:`engine.query.api.Query.backfill_plan`), asked of
the scenario played to ``--at`` (by default the range's end): the same walk, the same "exists
already" test and the same ``max_runs`` refusal as the timeline's ``backfill`` verb, so the dry
run and the backfill cannot disagree. Nothing is played past ``--at`` and nothing is written.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable
from typing import Any, TextIO

from cronlapse.cli.playing import INVALID, opened_scenario, past_the_end
from engine.model import limits
from engine.model.commands import BackfillJob
from engine.play.history import History
from engine.rules.backfill import BackfillError
from engine.schedules.clock import Clock
from engine.schedules.targets import TargetError, parse_target

NAME = "cronlapse backfill"


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "backfill",
        help="list the runs a backfill of a job over a range would create (--dry-run)",
        description="Play the scenario to --at (default: TO) and list the job's runs with "
        "logical times from FROM to TO that a backfill would create, and those that exist.",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        required=True,
        help="list, change nothing (a backfill itself is the timeline's backfill verb)",
    )
    parser.add_argument("--job", required=True, metavar="ID")
    times = "a tick, +N, 14:30 or an ISO time, as the dashboard's g reads it"
    parser.add_argument("--from", dest="first", required=True, metavar="T", help=times)
    parser.add_argument("--to", dest="last", required=True, metavar="T", help=times)
    parser.add_argument("--at", metavar="T", help="ask at tick T (default: TO)")
    parser.add_argument(
        "--max-runs",
        type=int,
        default=limits.DEFAULT_BACKFILL_RUNS,
        metavar="N",
        help=f"refuse a range with more runs (default {limits.DEFAULT_BACKFILL_RUNS:,})",
    )
    parser.add_argument(
        "file", help="a .yaml scenario (- for standard input), or a crontab, manifest or timer"
    )
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the plan; 2 with one line on ``err`` for anything that does not name one."""
    opened = opened_scenario(args.file, "backfill", err)
    if opened is None:
        return INVALID
    _, scenario = opened
    try:
        at = None if args.at is None else parse_target(args.at, 0, scenario.clock)
        first = parse_target(args.first, at or 0, scenario.clock)
        last = parse_target(args.last, at or 0, scenario.clock)
    except TargetError as error:
        err.write(f"{NAME}: {error}\n")
        return INVALID
    at = last if at is None else at
    problem = past_the_end(at, scenario)
    if problem is not None:
        err.write(f"{NAME}: {problem}\n")
        return INVALID
    history = History(scenario.new_engine, scenario.commands, scenario.until)
    history.seek(at)
    engine = history.engine
    jobs = engine.query.jobs()
    if args.job not in jobs:
        close = difflib.get_close_matches(args.job, list(jobs), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        err.write(f"{NAME}: {scenario.source} has no job {args.job!r} at tick {at}{hint}\n")
        return INVALID
    try:
        planned = engine.query.backfill_plan(
            BackfillJob(args.job, first, last, max_runs=args.max_runs)
        )
    except BackfillError as error:
        err.write(f"{NAME}: {error}\n")
        return INVALID
    moment = _moment(scenario.clock)
    out.write(
        f"a backfill of {args.job} from {moment(first)} to {moment(last)}, at {moment(at)}, "
        f"would create {len(planned.create)} runs and find {len(planned.exist)} that exist "
        "(dry run: nothing changes)\n"
    )
    rows = [(tick, "create") for tick in planned.create] + [(t, "exists") for t in planned.exist]
    for tick, what in sorted(rows):
        out.write(f"  {what:<6}  {args.job}@{moment(tick)}\n")
    return 0


def _moment(clock: Clock | None) -> Callable[[int], str]:
    """A tick as itself, or as its wall time when the scenario has a clock."""
    if clock is None:
        return str
    return lambda tick: f"{clock.to_datetime(tick):%Y-%m-%dT%H:%M}"
