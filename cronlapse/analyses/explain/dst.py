"""``cronlapse explain dst``: what each scheduler fires around a year's DST changes, side by side.

The same cron expression fires differently in the hours a DST change skips (the gap) or repeats
(the fold), because each scheduler walks time its own way (docs/schedules.md, "Other schedulers at
DST changes"). Each rule here is a model of its system, written from its documentation or code:

- cronlapse, which is cronsim's Debian cron rule: a job with a fixed minute and hour keeps wall
  time (a time in the gap runs once at the jump; a repeated time runs once, in the first pass);
  any other job follows real time (gap times do not run, repeated ones run in both passes);
- Kubernetes (robfig/cron v3's ``SpecSchedule.Next``) and Nomad (its periodic block's
  documentation): every instant whose wall time matches fires, so gap times are skipped and
  repeated times run twice;
- systemd (calendar events, checked with ``systemd-analyze calendar`` of systemd 252): gap times
  are skipped, and a repeated wall time runs once, in the first pass;
- Airflow (``CronMixin._get_next`` of its cron timetables): cron is walked in naive wall time; a
  schedule whose hour field is ``*`` advances the last run by the naive difference in real time
  (both passes run); any other is made aware with the offset from before the change, so a gap
  time runs that much later (02:30 in a one-hour gap at 03:30) and a repeated time runs once.

Pure computation: the caller gives the expression, the zone and the year.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from cronsim import CronSim

from engine.schedules.calendar import CronSchedule
from engine.schedules.clock import Clock

_MINUTE = timedelta(minutes=1)
_HOUR = timedelta(hours=1)
_DAY = timedelta(days=1)
MARGIN = 2 * _HOUR
"""How far before and after each change the fires are listed."""
FIRST_YEAR, LAST_YEAR = 1970, 2200


@dataclass(frozen=True, slots=True)
class Change:
    """A change of UTC offset: ``gap`` when the clocks jump forward, else ``fold``."""

    instant: datetime
    before: timedelta
    after: timedelta

    @property
    def gap(self) -> bool:
        return self.after > self.before

    def describe(self) -> str:
        old = (self.instant + self.before).replace(tzinfo=None)
        new = (self.instant + self.after).replace(tzinfo=None)
        shift = f"({_offset(self.before)} to {_offset(self.after)})"
        if self.gap:
            return (
                f"Spring forward, {old:%Y-%m-%d}: {old:%H:%M} jumps to {new:%H:%M} {shift}; "
                f"{old:%H:%M}-{new - _MINUTE:%H:%M} do not exist"
            )
        return (
            f"Fall back, {old:%Y-%m-%d}: {old:%H:%M} goes back to {new:%H:%M} {shift}; "
            f"{new:%H:%M}-{old - _MINUTE:%H:%M} happen twice"
        )


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    fires: Callable[[str, ZoneInfo, datetime, datetime], list[datetime]]
    """The fire instants in [start, end) of a five-field expression in a zone."""


def changes(zone: ZoneInfo, year: int) -> list[Change]:
    """The zone's offset changes in ``year`` (UTC), found a day at a time, then bisected."""
    low = datetime(year, 1, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC)
    found = []
    while low < end:
        high = low + _DAY
        before, after = _utc_offset(low, zone), _utc_offset(high, zone)
        if before != after:
            start, stop = low, high
            while stop - start > timedelta(seconds=1):
                middle = start + (stop - start) / 2
                if _utc_offset(middle, zone) == before:
                    start = middle
                else:
                    stop = middle
            found.append(Change(stop.replace(microsecond=0), before, after))
        low = high
    return found


def cronlapse_fires(cron: str, zone: ZoneInfo, start: datetime, end: datetime) -> list[datetime]:
    """cronlapse's own schedule (cronsim, Debian cron's rule), one-minute ticks from ``start``."""
    clock = Clock(start, zone, 60)
    schedule = CronSchedule(cron, clock)
    fires, tick = [], schedule.first_at_or_after(0)
    while tick is not None and clock.to_datetime(tick) < end:
        fires.append(clock.to_datetime(tick).astimezone(UTC))
        tick = schedule.first_at_or_after(tick + 1)
    return fires


def every_match_fires(cron: str, zone: ZoneInfo, start: datetime, end: datetime) -> list[datetime]:
    """Every minute whose wall time matches: both passes of a fold, nothing in a gap."""
    matching = _wall_matches(cron, zone, start, end)
    return [instant for instant in _minutes(start, end) if _wall(instant, zone) in matching]


def first_pass_fires(cron: str, zone: ZoneInfo, start: datetime, end: datetime) -> list[datetime]:
    """Every matching wall time once, at its first instant: nothing in a gap."""
    matching, seen, fires = _wall_matches(cron, zone, start, end), set(), []
    for instant in _minutes(start, end):
        wall = _wall(instant, zone)
        if wall in matching and wall not in seen:
            fires.append(instant)
        seen.add(wall)
    return fires


def airflow_fires(cron: str, zone: ZoneInfo, start: datetime, end: datetime) -> list[datetime]:
    """Airflow's ``_get_next`` applied from ``start`` (see the module docstring)."""
    every_hour = _hours(cron) == set(range(24))
    fires, current = [], start - _MINUTE
    while True:
        naive = _wall(current, zone)
        scheduled = next(CronSim(cron, naive))
        if every_hour:
            upcoming = current + (scheduled - naive)
        else:
            upcoming = scheduled.replace(tzinfo=zone, fold=0).astimezone(UTC)
        if upcoming >= end:
            return fires
        if upcoming > current:
            if upcoming >= start:
                fires.append(upcoming)
            current = upcoming
        else:  # Airflow raises "next schedule shouldn't be earlier" here (issue 30088)
            current += _MINUTE


RULES = (
    Rule("cronlapse (cronsim, Debian cron)", cronlapse_fires),
    Rule("Kubernetes (robfig/cron v3)", every_match_fires),
    Rule("Nomad (periodic)", every_match_fires),
    Rule("systemd (OnCalendar=)", first_pass_fires),
    Rule("Airflow (cron timetables)", airflow_fires),
)


def explain(cron: str, zone: ZoneInfo, year: int) -> str:
    """The side-by-side table for every change of ``zone`` in ``year``."""
    lines = [f"{cron} in {zone.key}, {year}"]
    found = changes(zone, year)
    if not found:
        return "\n".join([*lines, f"{zone.key} does not change its UTC offset in {year}"]) + "\n"
    width = max(len(rule.name) for rule in RULES) + 2
    for change in found:
        start, end = change.instant - MARGIN, change.instant + MARGIN
        first, last = _wall(start, zone), _wall(end - _MINUTE, zone)
        lines += ["", change.describe(), f"  fires from {first:%H:%M} to {last:%H:%M}, local:"]
        table = [(rule.name, rule.fires(cron, zone, start, end)) for rule in RULES]
        for name, fires in table:
            listed = ", ".join(_local(fire, zone) for fire in fires) or "none"
            head, indent = f"  {name:<{width}}", " " * (width + 2)
            lines += textwrap.wrap(listed, 100, initial_indent=head, subsequent_indent=indent)
        differ = [name.split(" (")[0] for name, fires in table[1:] if fires != table[0][1]]
        lines.append(f"  differ from cronlapse: {', '.join(differ)}" if differ else "  all agree")
    return "\n".join(lines) + "\n"


def _hours(cron: str) -> set[int]:
    """The hours the expression's hour field allows."""
    before = datetime(2000, 12, 31, 23, 59)
    return {fire.hour for fire in _take(CronSim(f"0 {cron.split()[1]} * * *", before), 24)}


def _take(fires: Iterator[datetime], count: int) -> list[datetime]:
    return [fire for _, fire in zip(range(count), fires, strict=False)]


def _wall_matches(cron: str, zone: ZoneInfo, start: datetime, end: datetime) -> set[datetime]:
    """The naive wall times from ``start`` to ``end`` (with a day to spare) that match."""
    first = _wall(start, zone) - _DAY
    last = _wall(end, zone) + _DAY
    matches = set()
    for fire in CronSim(cron, first):
        if fire > last:
            return matches
        matches.add(fire)
    return matches


def _minutes(start: datetime, end: datetime) -> Iterator[datetime]:
    instant = start
    while instant < end:
        yield instant
        instant += _MINUTE


def _wall(instant: datetime, zone: ZoneInfo) -> datetime:
    return instant.astimezone(zone).replace(tzinfo=None)


def _utc_offset(instant: datetime, zone: ZoneInfo) -> timedelta:
    return instant.astimezone(zone).utcoffset() or timedelta(0)


def _local(instant: datetime, zone: ZoneInfo) -> str:
    local = instant.astimezone(zone)
    return f"{local:%H:%M}{_offset(local.utcoffset() or timedelta(0))}"


def _offset(offset: timedelta) -> str:
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
