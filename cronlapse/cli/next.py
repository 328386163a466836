"""``cronlapse next SCHEDULE``: preview the next fire times of a cron expression in a time zone.

It runs the engine's own path (a one-second :class:`Clock` whose epoch is ``--from``, a
:class:`CronSchedule`, :func:`next_fire_times`), so the preview shows exactly what a scenario
would fire, DST changes included. This is the only place in cronlapse that reads the wall clock,
and only when ``--from`` is omitted.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from datetime import datetime
from typing import Any, TextIO
from zoneinfo import ZoneInfo

from engine.schedules.calendar import CronSchedule, DstRule, ScheduleError
from engine.schedules.clock import Clock, ClockError, parse_time, parse_zone


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Register the ``next`` subcommand on ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "next",
        help="print the next fire times of a cron schedule",
        description=(
            "Print the next fire times of SCHEDULE strictly after --from, one ISO 8601 time "
            "with UTC offset per line, following Debian cron's rules at DST changes unless "
            "--dst names another system's."
        ),
    )
    parser.add_argument(
        "schedule",
        metavar="SCHEDULE",
        help='a five-field cron expression such as "*/15 9-17 * * mon-fri", or a nickname '
        "such as @daily",
    )
    parser.add_argument(
        "--tz",
        default="UTC",
        metavar="ZONE",
        help="IANA time zone the schedule is read in (default: UTC)",
    )
    parser.add_argument(
        "--from",
        dest="from_time",
        default=None,
        metavar="TIME",
        help="ISO 8601 local time in ZONE, or a time with an offset to pick one pass of a "
        "repeated hour (default: now)",
    )
    parser.add_argument(
        "--dst",
        default=DstRule.CRON.value,
        choices=[rule.value for rule in DstRule],
        help="whose rule at DST changes, as a job's dst: key (default: cron, Debian cron's)",
    )
    parser.add_argument(
        "-n", type=int, default=5, metavar="N", help="how many fire times (default: 5)"
    )
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the fire times to ``out``; on bad input print one line to ``err`` and return 2."""
    try:
        zone = parse_zone(args.tz, "--tz")
        clock = Clock(_start(args.from_time, zone), zone)
        schedule = CronSchedule(args.schedule, clock, DstRule(args.dst))
    except (ClockError, ScheduleError) as error:
        print(f"cronlapse next: {error}", file=err)
        return 2
    if args.n < 1:
        print(f"cronlapse next: -n: expected a positive count, got {args.n}", file=err)
        return 2
    # Tick 0 is --from itself: fire times strictly after it start at tick 1. Each time is
    # printed as it is found: a million of them take a while, and the first come at once.
    printed = 0
    for tick in fire_times(schedule, 1):
        print(clock.format(tick), file=out)
        printed += 1
        if printed == args.n:
            return 0
    print(
        f"cronlapse next: no more fire times: the schedule does not fire again before the end "
        f"of year 9999 (printed {printed:,} of {args.n:,})",
        file=err,
    )
    return 0


def fire_times(schedule: CronSchedule, from_tick: int) -> Iterator[int]:
    """The schedule's fire ticks at or after ``from_tick``, one at a time, until it ends (the
    clock's range ends with year 9999)."""
    tick = schedule.first_at_or_after(from_tick)
    while tick is not None:
        yield tick
        tick = schedule.first_at_or_after(tick + 1)


def _start(text: str | None, zone: ZoneInfo) -> datetime:
    """``--from`` (or now), cut to whole seconds so one-second ticks land on cron's seconds."""
    start = datetime.now(zone) if text is None else parse_time(text, zone, "--from")
    return start.replace(microsecond=0)
