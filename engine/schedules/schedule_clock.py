"""Which clock, and so which time zone, a schedule is read in: a calendar schedule's own, a
union's (its first calendar part's), none for ticks-only schedules. Apart from
:mod:`engine.schedules.calendar` because unions (:mod:`engine.schedules.kinds`) hold calendar
parts."""

from __future__ import annotations

from engine.schedules.calendar import CronSchedule
from engine.schedules.clock import Clock
from engine.schedules.kinds import AnyOf, Repeating


def calendar_clock(schedule: object) -> Clock | None:
    """The clock, and so the zone, a calendar schedule is read in (a union's: its first calendar
    part's); None for another kind."""
    if isinstance(schedule, CronSchedule):
        return schedule.clock
    if isinstance(schedule, Repeating):
        return calendar_clock(schedule.anchors)
    if isinstance(schedule, AnyOf):
        return next(filter(None, map(calendar_clock, schedule.parts)), None)
    return None
