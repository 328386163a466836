"""Calendar schedules: cron expressions in a time zone, plus daily/weekly/monthly sugar over them.

Fire times come from cronsim. By default they follow Debian cron's rules at DST changes: a job
at a fixed local time that falls in the spring-forward gap runs once when the clocks jump, a
fixed-time job in the repeated fall-back hour runs once (first pass), and the other jobs (minute
or hour field starting with ``*``) follow real time and run in both passes. A schedule can follow
another system's rule instead (:class:`DstRule`, a job's ``dst:``).

A :class:`CronSchedule` turns those fire times into engine ticks through its :class:`Clock`: a fire
time between two ticks happens at the next tick (ceil), several fire times that round to the same
tick collapse into one fire, and fire times before the epoch are ignored.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone
from enum import StrEnum
from zoneinfo import ZoneInfo

from cronsim import CronSim, CronSimError

from engine.model.values import value
from engine.schedules.clock import Clock

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

_MICROSECOND = timedelta(microseconds=1)
FIRE_TICKS_CACHED = 16_384
"""Cron answers remembered (:func:`_first_fire_tick`): a few MB at most."""
_SECOND = timedelta(seconds=1)
_DAY = timedelta(days=1)

_AT = re.compile(r"(\d{1,2}):(\d{2})")


class DstRule(StrEnum):
    """How a calendar schedule fires at DST changes: each system's rule, as ``cronlapse explain
    dst`` lists them (docs/schedules.md, "Other schedulers at DST changes")."""

    CRON = "cron"
    """Debian cron's (cronsim's), the default: a fixed-time job keeps wall time (a time in the
    gap runs at the jump, a repeated time once), any other follows real time."""
    KUBERNETES = "kubernetes"
    """robfig/cron v3's: every instant whose wall time matches fires, so a time in the gap is
    skipped and a repeated time runs in both passes."""
    NOMAD = "nomad"
    """Nomad's ``periodic`` block: as Kubernetes."""
    SYSTEMD = "systemd"
    """systemd's ``OnCalendar=``: a time in the gap is skipped, a repeated time runs once, in
    the first pass."""

    def describe(self) -> str:
        return f"{self.value}'s DST rule"


class ScheduleError(ValueError):
    """An invalid schedule; ``field`` names the culprit (a cron field, ``at``, ``days``...)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class NeverFires(ScheduleError):
    """An expression whose every field is valid but that names no date there is (the 31st of
    February). Cron, Kubernetes and systemd accept such a schedule and never run it, so an
    importer leaves its job out and says so, where a scenario refuses it as a mistake."""

    def __init__(self, expression: str) -> None:
        parts = expression.split()
        super().__init__(
            "day-of-month",
            f"day-of-month field {parts[2]!r} never occurs in month field {parts[3]!r}",
        )
        self.expression = expression
        """The expression, its fields separated by single spaces."""


def parse_schedule_expression(expression: str) -> str:
    """The five-field cron expression for ``expression`` (a nickname is resolved).

    Raises :class:`ScheduleError` naming the wrong field and what it accepts. Each field is
    checked alone with the other four left as ``*``, so the error points at the culprit even
    though cronsim itself stops at the first problem it meets.
    """
    if not isinstance(expression, str):
        raise ScheduleError("expression", f"expected a cron expression as text, got {expression!r}")
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
    if _accepted(text):  # what every valid expression costs; the probes below name the culprit
        return text
    for index, (name, part) in enumerate(zip(FIELDS, parts, strict=True)):
        probe = ["*"] * len(FIELDS)
        probe[index] = part
        if not _accepted(" ".join(probe)):
            raise ScheduleError(
                name,
                f"{name} field {part!r} is invalid: expected {_EXPECTED[name]}, {_FORMS}",
            )
    raise NeverFires(text)  # every field alone is valid: cronsim's cross-field check failed


@functools.lru_cache(maxsize=1024)
def _accepted(expression: str) -> bool:
    """Whether cronsim takes the expression. Remembered: a fleet repeats a few expressions over
    thousands of jobs (a generated 10k-job scenario checks 11 expressions 9,000 times), and
    cronsim's parse is most of what checking one costs."""
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
    one_list = isinstance(days, Sequence) and not isinstance(days, str)
    terms = [str(day).strip() for day in days] if one_list else []
    if not terms or any(len(term.split()) != 1 or "," in term for term in terms):
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
    """A cron expression (or nickname) read in ``clock``'s zone, firing at engine ticks, with
    ``dst``'s behaviour at DST changes.

    Each query starts cronsim at the requested time, so it costs a handful of steps whatever
    the distance from the epoch; answers are remembered across schedules with the same
    expression and clock (:func:`_first_fire_tick`).
    """

    expression: str
    clock: Clock
    dst: DstRule = DstRule.CRON
    cron: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cron", parse_schedule_expression(self.expression))

    def __hash__(self) -> int:
        # What equal schedules share, the expression and the clock's zone and tick (see
        # Clock.__hash__), and not the rule: the remembered fire ticks (_first_fire_tick) hash
        # the schedule at each question, 18,825 in the demo's week, and dataclass's hash, which
        # calls the clock's and the rule's (Enum's) __hash__ in Python, took 3,200 instructions
        # a question, this one 1,950 (callgrind).
        clock = self.clock
        return hash((self.expression, clock.zone, clock.tick_seconds))

    def first_at_or_after(self, tick: int) -> int | None:
        return _first_fire_tick(self, tick)

    def contains(self, tick: int) -> bool:
        return tick >= 0 and self.first_at_or_after(tick) == tick

    def fire_ticks(self, low: int, high: int) -> Iterator[int]:
        """The fire ticks in ``[low, high]``, increasing: those :meth:`first_at_or_after`
        gives walked from ``low``, from one cronsim walk rather than a fresh one per fire
        (2.5 times faster, for counting a long backlog)."""
        first = self.first_at_or_after(low)
        if first is None or first > high:
            return
        yield first
        clock, previous = self.clock, first
        for fire in _fire_times_after(self.cron, clock.zone, clock.to_datetime(first), self.dst):
            tick = clock.to_tick_ceil(fire)
            if tick > high:
                return
            if tick > previous:  # fire times within one tick are one fire
                previous = tick
                yield tick

    def count_fire_ticks(self, low: int, high: int) -> int:
        """``len(list(self.fire_ticks(low, high)))``, without walking every fire.

        A day whose UTC offset holds from its first fire to its last fires once at each time of
        day the expression names. So once such a day has been walked whole, a later one whose
        first fire is at the same time of day counts as that day did, and the walk restarts
        after its last fire: a backlog of minutely runs costs a cronsim start a day, and a walk
        only of its first days and its DST changes. With ticks longer than a minute two fires
        can fall in one tick, so those clocks are walked fire by fire."""
        clock = self.clock
        if clock.tick_seconds > 60 or low > high:
            return sum(1 for _ in self.fire_ticks(low, high))
        after = _before_tick(clock, low)
        if after is None:
            return 0
        zone = clock.zone
        fires = _fire_times_after(self.cron, zone, after, self.dst)
        fire = next(fires, None)
        count, previous, model = 0, low - 1, None
        previous_day: date | None = None  # the first day is entered part-way: never a model
        while fire is not None:
            day = fire.date()
            starts_like_model = model is not None and (fire.hour, fire.minute) == model.first
            if starts_like_model and day != previous_day:
                last = fire.replace(hour=model.last[0], minute=model.last[1])
                last_tick = clock.to_tick_ceil(last)
                if last_tick <= high and _steady(fire, last, zone):
                    count, previous, previous_day = count + model.fires, last_tick, day
                    fires = _fire_times_after(self.cron, zone, last, self.dst)
                    fire = next(fires, None)
                    continue
            first, last, walked = fire, fire, 0
            while fire is not None and fire.date() == day:
                tick = clock.to_tick_ceil(fire)
                if tick > high:
                    return count
                if tick > previous:  # fire times within one tick are one fire
                    count, previous, walked = count + 1, tick, walked + 1
                last = fire
                fire = next(fires, None)
            whole = previous_day is not None and day != previous_day
            worth_skipping = walked >= _DAY_WORTH_SKIPPING and fire is not None
            if whole and worth_skipping and _steady(first, last, zone):
                model = _FiringDay((first.hour, first.minute), (last.hour, last.minute), walked)
            previous_day = day
        return count

    def describe(self) -> str:
        rule = "" if self.dst is DstRule.CRON else f", {self.dst.describe()}"
        return f"cron {' '.join(self.expression.split())} ({self.clock.zone.key}{rule})"


_DAY_WORTH_SKIPPING = 4
"""Fires a day must have for counting to skip days like it: skipping a day starts cronsim
anew, which costs about what walking four fires does."""


@value
class _FiringDay:
    """A day walked whole at one UTC offset: the local times of its first and last fire, and
    how many fires it had (:meth:`CronSchedule.count_fire_ticks`)."""

    first: tuple[int, int]
    last: tuple[int, int]
    fires: int


def _steady(start: datetime, end: datetime, zone: ZoneInfo) -> bool:
    """Whether the UTC offset is the same from ``start`` to ``end`` (within a day).

    Read from the instants: a wall time the clocks skip, made by ``replace``, carries the
    offset from before the jump, and converting it to its own zone would not move it."""
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    offset = _offset(start, zone)
    return _offset(end, zone) == offset and _offset_change(start, end, zone, offset) is None


@functools.lru_cache(maxsize=FIRE_TICKS_CACHED)
def _first_fire_tick(schedule: CronSchedule, tick: int) -> int | None:
    """:meth:`CronSchedule.first_at_or_after`, remembered: each answer is a fresh cronsim walk,
    and the same questions come again and again (the API's next runs of every job on one
    expression, a status query's binary search), so a fleet on a few expressions pays once."""
    clock = schedule.clock
    after = _before_tick(clock, tick)
    if after is None:
        return None
    fire = next(_fire_times_after(schedule.cron, clock.zone, after, schedule.dst), None)
    return None if fire is None else clock.to_tick_ceil(fire)


def _before_tick(clock: Clock, tick: int) -> datetime | None:
    """The instant the fire times mapping to ``tick`` or later come after: tick t-1's, and at
    tick 0 a microsecond before the epoch (fire times are whole seconds), taken in UTC (in local
    time, right after a spring-forward jump, it would be a wall time the clocks skip). None
    past the year 9999, where fire times end."""
    if tick <= 0:
        return clock.epoch.astimezone(UTC) - _MICROSECOND
    try:
        return clock.to_datetime(tick - 1)
    except OverflowError:
        return None


def _fire_times_after(
    cron: str, zone: ZoneInfo, after: datetime, rule: DstRule
) -> Iterator[datetime]:
    """The fire times of five-field ``cron`` in ``zone`` strictly after ``after``, increasing.

    Debian cron's rule picks the walk: a job whose minute and hour are both fixed (neither
    starts with ``*``) keeps to local wall time, any other job follows real time. Kubernetes'
    and Nomad's follow real time always; systemd's too, without a repeated wall time's second
    pass. Ends when cronsim finds nothing for 50 years or the search leaves years 1-9999.
    """
    bound = after.astimezone(UTC)
    minute, hour = cron.split()[:2]
    fixed_time = not minute.startswith("*") and not hour.startswith("*")
    try:
        if rule is DstRule.CRON and fixed_time:
            yield from _wall_clock_fires(cron, zone, bound)
        elif rule is DstRule.SYSTEMD:
            yield from (fire for fire in _real_time_fires(cron, zone, bound) if _first_pass(fire))
        else:
            yield from _real_time_fires(cron, zone, bound)
    except OverflowError:
        return


def _first_pass(local: datetime) -> bool:
    """Whether ``local`` (an instant in its zone) is not the second pass of a repeated wall
    time: converting an instant sets ``fold`` 1 in the second pass, and only a repeated wall
    time has another offset with ``fold`` 0."""
    return local.fold == 0 or local.replace(fold=0).utcoffset() == local.utcoffset()


def _wall_clock_fires(cron: str, zone: ZoneInfo, bound: datetime) -> Iterator[datetime]:
    """Fixed-time jobs, walked by cronsim in local wall time (its Debian cron mode).

    A time in the spring-forward gap moves to the jump, a repeated time takes its first pass.
    Started in the second pass of a repeated hour, cronsim can answer a first-pass time that is
    before its start: every answer must be later than the previous one, or it is skipped.
    """
    previous = bound
    for fire in CronSim(cron, bound.astimezone(zone)):
        instant = fire.astimezone(UTC)
        if instant > previous:
            previous = instant
            yield fire


def _real_time_fires(cron: str, zone: ZoneInfo, bound: datetime) -> Iterator[datetime]:
    """Jobs that follow real time: an instant fires when the wall time it shows matches.

    Each stretch of constant UTC offset is walked by cronsim in that fixed offset, restarting at
    every offset change. cronsim run in the zone itself steps across a change from wherever it
    started, so its answer depends on the start (in Australia/Lord_Howe, whose DST is 30 minutes,
    ``*/15 0 * * *`` from before the April change skips 00:00 and 00:15 the next day).
    """
    after, offset = bound, _offset(bound, zone)
    while True:
        for fire in CronSim(cron, after.astimezone(timezone(offset))):
            instant = fire.astimezone(UTC)
            change = _offset_change(after, instant, zone, offset)
            if change is not None:
                break
            after = instant
            yield instant.astimezone(zone)
        else:
            return
        after, offset = change - _MICROSECOND, _offset(change, zone)


def _offset(instant: datetime, zone: ZoneInfo) -> timedelta:
    return instant.astimezone(zone).utcoffset() or timedelta(0)


def _offset_change(
    start: datetime, end: datetime, zone: ZoneInfo, offset: timedelta
) -> datetime | None:
    """The first whole second in (``start``, ``end``] whose UTC offset is not ``offset``, if any.

    Looks a day at a time (no zone changes its offset twice within a day), then bisects; zone
    changes happen on whole seconds.
    """
    low = start.replace(microsecond=0)
    while low < end:
        high = low + _DAY if end - low > _DAY else end
        if _offset(high, zone) != offset:
            while high - low > _SECOND:
                middle = low + _SECOND * ((high - low) // _SECOND // 2)
                if _offset(middle, zone) == offset:
                    low = middle
                else:
                    high = middle
            return high
        low = high
    return None
