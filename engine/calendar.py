"""Calendar schedules: cron expressions in a time zone, plus daily/weekly/monthly sugar over them.

Fire times come from cronsim, which follows Debian cron's rules at DST changes: a job at a fixed
local time that falls in the spring-forward gap runs once when the clocks jump, a fixed-time job
in the repeated fall-back hour runs once (first pass), and jobs that run more often than hourly
(minute or hour field starting with ``*``) follow real time and run in both passes.

A :class:`CronSchedule` turns those fire times into engine ticks through its :class:`Clock`: a fire
time between two ticks happens at the next tick (ceil), several fire times that round to the same
tick collapse into one fire, and fire times before the epoch are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from cronsim import CronSim, CronSimError

from engine.clock import Clock
from engine.schedules import Schedule

FIELDS = ("minute", "hour", "day-of-month", "month", "day-of-week")

_EXPECTED = {
    "minute": "0-59",
    "hour": "0-23",
    "day-of-month": "1-31 or L (the last day of the month)",
    "month": "1-12 or jan-dec",
    "day-of-week": "0-7 (0 and 7 are Sunday) or sun-sat",
}

_FORMS = "as a single value, a range a-b, a step */n or a-b/n, or a comma-separated list"

NICKNAMES = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}
"""Debian cron's nicknames (cronsim rejects them). ``@reboot`` has no fire times and is refused."""

_PROBE_START = datetime(2000, 1, 1, tzinfo=UTC)

_DST_MARGIN = timedelta(hours=3)
"""More than the largest DST shift in use (2 h, Antarctica/Troll): starting cronsim at least this
far from any offset change keeps it out of the gap and the repeated hour, where its answer depends
on where it started."""

_AT = re.compile(r"(\d{1,2}):(\d{2})")


class ScheduleError(ValueError):
    """An invalid schedule; ``field`` names the culprit (a cron field, ``at``, ``days``...)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def parse_schedule_expression(expression: str) -> str:
    """The five-field cron expression for ``expression`` (a nickname is resolved).

    Raises :class:`ScheduleError` naming the wrong field and what it accepts. Each field is
    checked alone with the other four left as ``*``, so the error points at the culprit even
    though cronsim itself stops at the first problem it meets.
    """
    text = " ".join(expression.split())
    if text.startswith("@"):
        try:
            return NICKNAMES[text.lower()]
        except KeyError:
            raise ScheduleError(
                "expression",
                f"unknown nickname {text!r}: expected one of {', '.join(NICKNAMES)}",
            ) from None
    parts = text.split()
    if len(parts) != len(FIELDS):
        raise ScheduleError(
            "expression",
            f"expected 5 fields (minute hour day-of-month month day-of-week), "
            f"got {len(parts)} in {expression!r}",
        )
    for index, (name, part) in enumerate(zip(FIELDS, parts, strict=True)):
        probe = ["*"] * len(FIELDS)
        probe[index] = part
        if not _accepted(" ".join(probe)):
            raise ScheduleError(
                name,
                f"{name} field {part!r} is invalid: expected {_EXPECTED[name]}, {_FORMS}",
            )
    if not _accepted(text):  # cronsim's one cross-field check: a day no listed month has
        raise ScheduleError(
            "day-of-month",
            f"day-of-month field {parts[2]!r} never occurs in month field {parts[3]!r}",
        )
    return text


def _accepted(expression: str) -> bool:
    try:
        CronSim(expression, _PROBE_START)
    except CronSimError:
        return False
    return True


def _time_of_day(at: str) -> tuple[int, int]:
    match = _AT.fullmatch(at.strip()) if isinstance(at, str) else None
    if match is None or int(match[1]) > 23 or int(match[2]) > 59:
        raise ScheduleError(
            "at", f"at: expected a time of day HH:MM from 00:00 to 23:59, got {at!r}"
        )
    return int(match[1]), int(match[2])


def daily(at: str) -> str:
    """The cron expression of a job every day at local time ``at`` ("02:30" -> "30 2 * * *")."""
    hour, minute = _time_of_day(at)
    return parse_schedule_expression(f"{minute} {hour} * * *")


def weekly(days: Sequence[str | int], at: str) -> str:
    """The cron expression of a job on ``days`` (names like "mon" or cron numbers) at ``at``."""
    terms = [str(day).strip() for day in days] if not isinstance(days, str) else []
    if not terms or any(not term or "," in term or " " in term for term in terms):
        raise ScheduleError(
            "days", f"days: expected a list of weekdays such as [mon, fri], got {days!r}"
        )
    hour, minute = _time_of_day(at)
    return parse_schedule_expression(f"{minute} {hour} * * {','.join(terms)}")


def monthly(day: int | str, at: str) -> str:
    """The cron expression of a job on day ``day`` of each month (or "last") at ``at``.

    As in cron, a day a month does not have is skipped in that month (day 31 never fires in
    April); use "last" for the last day of every month.
    """
    if isinstance(day, bool) or not isinstance(day, int | str):
        raise ScheduleError("day", f"day: expected 1-31 or 'last', got {day!r}")
    term = "L" if str(day).strip().lower() == "last" else str(day).strip()
    hour, minute = _time_of_day(at)
    return parse_schedule_expression(f"{minute} {hour} {term} * *")


@dataclass(frozen=True, slots=True)
class CronSchedule:
    """A cron expression (or nickname) read in ``clock``'s zone, firing at engine ticks.

    Each query starts cronsim just before the requested time, so it costs a handful of steps
    whatever the distance from the epoch.
    """

    expression: str
    clock: Clock
    cron: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cron", parse_schedule_expression(self.expression))

    def first_at_or_after(self, tick: int) -> int | None:
        # Fire times mapping to tick t or later are those after tick t-1's instant; at tick 0,
        # those at or after the epoch (fire times are whole seconds, so one microsecond before).
        if tick > 0:
            after = self.clock.to_datetime(tick - 1)
        else:
            after = self.clock.epoch.astimezone(UTC) - timedelta(microseconds=1)
        fire = next(_fire_times_after(self.cron, self.clock.zone, after), None)
        return None if fire is None else self.clock.to_tick_ceil(fire)

    def contains(self, tick: int) -> bool:
        return tick >= 0 and self.first_at_or_after(tick) == tick

    def describe(self) -> str:
        return f"cron {' '.join(self.expression.split())} ({self.clock.zone.key})"


def _fire_times_after(cron: str, zone: ZoneInfo, after: datetime) -> Iterator[datetime]:
    """The fire times of five-field ``cron`` in ``zone`` strictly after ``after``, increasing.

    cronsim is started at a quiet point (no UTC offset change within a few hours) at or before
    ``after``: started inside a repeated hour it can answer a time before its start. Each time
    is also checked to be later than the one before, so a step back is dropped, never yielded.
    Ends when cronsim finds nothing for 50 years or the search leaves years 1-9999.
    """
    bound = after.astimezone(UTC)
    try:
        previous = _quiet_point(bound, zone)
        for fire in CronSim(cron, previous.astimezone(zone)):
            instant = fire.astimezone(UTC)
            if instant <= previous:
                continue
            previous = instant
            if instant > bound:
                yield fire
    except OverflowError:  # the search left datetime's years 1-9999: no more fire times
        return


def _quiet_point(instant: datetime, zone: ZoneInfo) -> datetime:
    """The latest of ``instant``, ``instant - margin``, ... with the same offset a margin around."""
    while len({(instant + k * _DST_MARGIN).astimezone(zone).utcoffset() for k in (-1, 0, 1)}) > 1:
        instant -= _DST_MARGIN
    return instant


def next_fire_times(schedule: Schedule, from_tick: int, n: int) -> list[int]:
    """The first ``n`` fire ticks at or after ``from_tick`` (fewer if the schedule ends)."""
    ticks: list[int] = []
    while len(ticks) < n:
        tick = schedule.first_at_or_after(from_tick)
        if tick is None:
            break
        ticks.append(tick)
        from_tick = tick + 1
    return ticks
