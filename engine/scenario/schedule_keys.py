"""Schedules and times, as every job-reading place writes them: ``at``, ``every`` (with ``first``),
``daily``, ``weekly``, ``monthly``, ``cron``, the job's ``timezone`` and its calendar's ``dst``
rule.

``cron`` may be a list of expressions, fired where any fires
(:class:`~engine.schedules.kinds.AnyOf`); beside it, ``first`` is one more run and ``repeat`` runs
again that many ticks after each run until the next cron time
(:class:`~engine.schedules.kinds.Repeating`). That is what a systemd timer with several triggers is
(systemd.timer(5): it elapses at the earliest and starts its one unit), written so that ``cronlapse
import systemd`` makes one job of it.

Times (``at``, ``first``) are ticks, ``+N``/``+2h`` from when the command runs, or, with the
scenario's clock, a time of day or an ISO 8601 time (:mod:`engine.schedules.targets`, which the
dashboard's go-to reads too). Calendar schedules are read in the clock's zone, or in the job's
``timezone``, and fire at DST changes as ``dst`` names (:class:`~engine.schedules.calendar.DstRule`:
Debian cron's by default, or Kubernetes', Nomad's or systemd's, which their importers set).
"""

from __future__ import annotations

import dataclasses

from engine.model.digits import is_digits
from engine.scenario.errors import path_index, path_key
from engine.scenario.schema import MAX_TICK, Reader
from engine.scenario.settings import past_year_9999, strip_field
from engine.scenario.yaml_source import Node, Scalar, Sequence
from engine.schedules.calendar import (
    CronSchedule,
    DstRule,
    ScheduleError,
    daily,
    monthly,
    weekly,
)
from engine.schedules.clock import Clock, ClockError, parse_zone
from engine.schedules.kinds import AnyOf, Every, Once, Repeating, Schedule
from engine.schedules.targets import TargetError, is_relative, parse_target

SCHEDULE_KEYS = (
    "at",
    "every",
    "first",
    "daily",
    "weekly",
    "monthly",
    "cron",
    "repeat",
    "timezone",
    "dst",
)
_COMPANIONS = ("first", "repeat", "timezone", "dst")
_CALENDAR_KEYS = ("daily", "weekly", "monthly", "cron")
"""Schedule keys that go with a schedule rather than being one."""
_SHORT_FORMS = {
    "weekly": 'DAYS@HH:MM such as mon,fri@09:00, or {days: [mon, fri], at: "09:00"}',
    "monthly": 'DAY@HH:MM such as 15@09:00 or last@18:00, or {day: 15, at: "09:00"}',
}
_DST_NAMES = {rule.value: rule for rule in DstRule}
"""The ``dst`` values: the systems whose rule at DST changes a calendar schedule can follow."""
_CRON_FIELD_KEYS = {"day-of-week": "days", "day-of-month": "day", "minute": "at", "hour": "at"}
"""Which key of ``weekly``/``monthly`` a cron field of the expression they build came from."""


class ScheduleReader:
    """Reads schedule keys; calendar schedules and times of day need the scenario's clock."""

    def __init__(self, reader: Reader, clock: Clock | None, clock_failed: bool = False) -> None:
        self.reader = reader
        self.clock = clock
        self.clock_failed = clock_failed
        """The file's clock is wrong (and reported): do not also say that a clock is missing."""

    def schedule(
        self, fields: dict[str, Node], path: str, now: int, zone: Clock | None = None
    ) -> Schedule | None:
        """The schedule the keys among ``fields`` give; none at all means once, at ``now``.
        Times and calendars are read in ``zone`` (a modified job's own) when given, else in the
        scenario's clock; a ``timezone`` key overrides either."""
        given = [key for key in SCHEDULE_KEYS if key in fields and key not in _COMPANIONS]
        if "first" in fields and given not in (["every"], ["cron"]):
            self.reader.error(
                fields["first"], path_key(path, "first"), "first only goes with every or cron"
            )
            return None
        if "repeat" in fields and given != ["cron"]:
            message = "repeat only goes with cron: again every N ticks after each run"
            self.reader.error(fields["repeat"], path_key(path, "repeat"), message)
            return None
        if "timezone" in fields and not given:
            message = "timezone goes with a schedule: at, every, daily, weekly, monthly or cron"
            self.reader.error(fields["timezone"], path_key(path, "timezone"), message)
            return None
        if "dst" in fields and not set(given) & set(_CALENDAR_KEYS):
            message = "dst goes with a calendar schedule: daily, weekly, monthly or cron"
            self.reader.error(fields["dst"], path_key(path, "dst"), message)
            return None
        if len(given) > 1:
            second = given[1]
            self.reader.error(
                fields[second],
                path_key(path, second),
                f"a job has one schedule: give {given[0]} or {second}, not both",
            )
            return None
        if not given:
            return Once(now)
        clock = self.clock if zone is None else zone
        if "timezone" in fields:
            clock = self._zone(fields["timezone"], path_key(path, "timezone"))
            if clock is None:
                return None
        key = given[0]
        node, key_path = fields[key], path_key(path, key)
        if key == "at":
            return self._once(node, key_path, now, clock)
        if key == "every":
            first = fields.get("first")
            interval = self.reader.integer(node, key_path, 1, MAX_TICK)
            start = now if first is None else self.time(first, path_key(path, "first"), now, clock)
            return None if interval is None or start is None else Every(start, interval)
        dst = DstRule.CRON
        if "dst" in fields:
            read = self.reader.choice(fields["dst"], path_key(path, "dst"), _DST_NAMES)
            if read is None:
                return None
            dst = read
        if key == "cron":
            return self._cron(fields, path, now, clock, dst)
        return self._calendar(key, node, key_path, clock, dst)

    def _cron(
        self, fields: dict[str, Node], path: str, now: int, clock: Clock | None, dst: DstRule
    ) -> Schedule | None:
        """``cron``, one expression or a list, with its ``first`` and ``repeat``."""
        node, cron_path = fields["cron"], path_key(path, "cron")
        items = [(node, cron_path)]
        if isinstance(node, Sequence):
            items = [(item, path_index(cron_path, n)) for n, item in enumerate(node.items)]
            if not items:
                self.reader.error(node, cron_path, "expected at least one cron expression")
                return None
        parts = [self._calendar("cron", item, item_path, clock, dst) for item, item_path in items]
        if "first" in fields:
            first = self.time(fields["first"], path_key(path, "first"), now, clock)
            parts.append(None if first is None else Once(first))
        repeat = None
        if "repeat" in fields:
            repeat = self.reader.integer(fields["repeat"], path_key(path, "repeat"), 1, MAX_TICK)
            if repeat is None:
                return None
        read = [part for part in parts if part is not None]
        if len(read) < len(parts):
            return None
        schedule = read[0] if len(read) == 1 else AnyOf(tuple(read))
        return schedule if repeat is None else Repeating(schedule, repeat)

    def _zone(self, node: Node, path: str) -> Clock | None:
        """The scenario's clock read in the job's own ``timezone``."""
        if self.clock is None:
            self._no_clock(node, path, "a timezone")
            return None
        name = self.reader.string(node, path, "an IANA zone such as Europe/Berlin")
        if name is None:
            return None
        try:
            return dataclasses.replace(self.clock, zone=parse_zone(name))
        except ClockError as error:
            self.reader.error(node, path, strip_field(error))
            return None

    def _once(self, node: Node, path: str, now: int, clock: Clock | None) -> Once | None:
        at = self.time(node, path, now, clock)
        if at is None:
            return None
        if at < now:
            named = _tick_text if clock is None else clock.format  # a clock names times by date
            message = f"{named(at)} is before {named(now)}, when this job is scheduled"
            self.reader.error(node, path, f"{message}: it would never run")
            return None
        return Once(at)

    def time(self, node: Node, path: str, now: int, clock: Clock | None) -> int | None:
        """A tick; ``+N`` or ``+2h`` from ``now``; with a clock also a time of day (``14:30``,
        on the day of ``now``) or an ISO 8601 time, in the clock's zone, rounded up to a tick."""
        value = node.value if isinstance(node, Scalar) else None
        text = node.text.strip() if isinstance(node, Scalar) else ""
        if isinstance(value, bool) or not isinstance(value, int | str):
            self.reader.expected(node, path, "a tick, +N, +2h, a time such as 14:30 or an ISO time")
            return None
        if isinstance(value, int) and not is_relative(text):
            return self._named(node, path, self.reader.tick(node, path), clock)
        words = text if isinstance(value, int) else value
        if clock is None and not is_relative(words) and not is_digits(words.strip()):
            self._no_clock(node, path, "a time of day or an ISO time")
            return None
        try:
            tick = parse_target(words, now, clock)
        except TargetError as error:
            self.reader.error(node, path, str(error))
            return None
        if tick > MAX_TICK:
            self.reader.error(node, path, f"{words} is tick {tick}: expected at most {MAX_TICK}")
            return None
        return self._named(node, path, tick, clock)

    def _named(self, node: Node, path: str, tick: int | None, clock: Clock | None) -> int | None:
        """``tick``, unless the clock cannot name it: every view shows a run's time as a date."""
        if tick is not None and clock is not None and not clock.names(tick):
            self.reader.error(node, path, past_year_9999(clock, tick))
            return None
        return tick

    def _calendar(
        self, key: str, node: Node, path: str, clock: Clock | None, dst: DstRule
    ) -> Schedule | None:
        if clock is None:
            self._no_clock(node, path, f"a {key} schedule")
            return None
        fields: dict[str, Node] = {}
        try:
            if key == "daily":
                expression = daily(self._text(node, path, '"HH:MM"'))
            elif key == "cron":
                expression = self._text(node, path, "a cron expression such as '30 2 * * *'")
            elif isinstance(node, Scalar) and isinstance(node.value, str):
                expression = self._short_calendar(key, node, path)
            else:
                wanted = ("days", "at") if key == "weekly" else ("day", "at")
                fields = self.reader.mapping(node, path, wanted, required=wanted) or {}
                if len(fields) < 2:
                    return None
                at = self._text(fields["at"], path_key(path, "at"), '"HH:MM"')
                if key == "weekly":
                    expression = weekly(self._days(fields["days"], path_key(path, "days")), at)
                else:
                    expression = monthly(self._day(fields["day"], path_key(path, "day")), at)
            return CronSchedule(expression, clock, dst)
        except _Reported:
            return None
        except ScheduleError as error:
            key = _CRON_FIELD_KEYS.get(error.field, error.field)
            culprit = fields.get(key, node)
            culprit_path = path_key(path, key) if key in fields else path
            self.reader.error(culprit, culprit_path, strip_field(error))
            return None

    def _short_calendar(self, key: str, node: Scalar, path: str) -> str:
        """``weekly: mon,fri@09:00`` and ``monthly: last@06:00``: one word for the command line."""
        assert isinstance(node.value, str)
        when, at_sign, at = node.value.partition("@")
        if not at_sign:
            self.reader.expected(node, path, _SHORT_FORMS[key])
            raise _Reported
        if key == "weekly":
            return weekly([day.strip() for day in when.split(",")], at)
        day = when.strip()
        return monthly(int(day) if is_digits(day) else day, at)

    def _no_clock(self, node: Node, path: str, what: str) -> None:
        if not self.clock_failed:  # a wrong clock is reported already, at itself
            message = f"{what} needs a clock: add clock: {{epoch: ..., timezone: ...}}"
            self.reader.error(node, path, message)

    def _days(self, node: Node, path: str) -> list[str]:
        items = self.reader.sequence(node, path, "a list of weekdays such as [mon, fri]")
        if items is None:
            raise _Reported
        for index, item in enumerate(items):
            if not isinstance(item, Scalar):
                self.reader.expected(item, path_index(path, index), "a weekday such as mon")
                raise _Reported
        return [item.text for item in items if isinstance(item, Scalar)]

    def _day(self, node: Node, path: str) -> int | str:
        value = node.value if isinstance(node, Scalar) else None
        if not isinstance(value, int | str) or isinstance(value, bool):
            self.reader.expected(node, path, "a day of the month, 1-31 or last")
            raise _Reported
        return value

    def _text(self, node: Node, path: str, what: str) -> str:
        value = self.reader.string(node, path, what)
        if value is None:
            raise _Reported
        return value


class _Reported(Exception):
    """A problem already recorded; unwinds out of a calendar key."""


def _tick_text(tick: int) -> str:
    return f"tick {tick}"
