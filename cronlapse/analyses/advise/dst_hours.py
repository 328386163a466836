"""The hours a daylight-saving change skips (a gap) or repeats (a fold), and the fire times a
calendar job asks for in them.

Which times those are is the job's own question, answered from its schedule and zone rather than
from a play: the engine runs a fixed time in a gap once at the jump (Debian cron's rule), so a
play shows a run at 03:00 where the job asked for 02:30; only the schedule says it asked for a
time that did not exist. The changes themselves are ``explain dst``'s
(:func:`cronlapse.analyses.explain.dst.changes`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from cronsim import CronSim

from cronlapse.analyses.explain.dst import Change, changes
from engine.schedules.calendar import CronSchedule
from engine.schedules.kinds import AnyOf, Repeating, Schedule

_MINUTE = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class ChangedHours:
    """The wall times ``[first, last]`` a change skips (``gap``) or repeats, on its day."""

    first: datetime
    last: datetime
    gap: bool

    def contains(self, wall: datetime) -> bool:
        return self.first <= wall <= self.last

    @property
    def hours(self) -> set[int]:
        """The hours of the day the change touches (02 in Europe/Berlin)."""
        hour, found = self.first.replace(minute=0), set()
        while hour <= self.last:
            found.add(hour.hour)
            hour += timedelta(hours=1)
        return found


def changed_hours(zone: ZoneInfo, start: datetime, end: datetime) -> list[ChangedHours]:
    """The changes of ``zone`` whose instant is in ``[start, end)`` (aware datetimes)."""
    found = []
    for year in range(start.year, end.year + 1):
        for change in _changes(zone, year):
            if not start <= change.instant < end:
                continue
            old = (change.instant + change.before).replace(tzinfo=None)
            new = (change.instant + change.after).replace(tzinfo=None)
            first, last = (old, new - _MINUTE) if change.gap else (new, old - _MINUTE)
            found.append(ChangedHours(first, last, change.gap))
    return found


@functools.lru_cache(maxsize=256)
def _changes(zone: ZoneInfo, year: int) -> tuple[Change, ...]:
    """A zone's changes in a year, worked out once: every job of a fleet asks, in every play."""
    return tuple(changes(zone, year))


def calendar_parts(schedule: Schedule) -> Iterator[CronSchedule]:
    """The cron schedules a schedule is made of (a timer's several ``OnCalendar=``)."""
    if isinstance(schedule, CronSchedule):
        yield schedule
    elif isinstance(schedule, AnyOf):
        for part in schedule.parts:
            yield from calendar_parts(part)
    elif isinstance(schedule, Repeating):
        yield from calendar_parts(schedule.anchors)


def dst_hour_fires(schedule: Schedule, start: datetime, end: datetime) -> list[datetime]:
    """The wall times (naive, in the job's zone) the schedule asks for in a skipped or repeated
    hour of a change in ``[start, end)``, each once."""
    fires: set[datetime] = set()
    for part in calendar_parts(schedule):
        zone = part.clock.zone
        for hours in changed_hours(zone, start, end):
            for fire in CronSim(part.cron, hours.first - _MINUTE):
                if fire > hours.last:
                    break
                fires.add(fire)
    return sorted(fires)
