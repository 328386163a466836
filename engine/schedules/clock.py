"""The one place where integer ticks meet wall-clock time.

The engine only knows integer ticks; calendar schedules (cron, daily, weekly, monthly) only know
wall-clock times in a zone. A :class:`Clock` maps between the two: tick ``t`` is the instant
``epoch + t * tick_seconds``. All arithmetic is done on UTC instants, never on local wall times,
because adding a timedelta to a zone-aware datetime in Python moves the *wall clock* and lands on
the wrong instant across a DST change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_EPOCH = "1970-01-01T00:00:00"
"""Local midnight at the start of 1970 in the clock's zone: fixed, so runs are reproducible
(never "now"), and in UTC tick ``t`` with one-second ticks is simply Unix time ``t``."""

_MICROSECOND = timedelta(microseconds=1)


class ClockError(ValueError):
    """An invalid clock setting; ``field`` names the setting, the message says what was expected."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field


def parse_zone(name: str, field: str = "timezone") -> ZoneInfo:
    """The IANA time zone called ``name``; ``field`` names the setting in the error message."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError, TypeError):
        raise ClockError(
            field,
            f"unknown time zone {name!r}: expected an IANA name such as 'Europe/Berlin' or 'UTC'",
        ) from None


_FIRST_INSTANT = datetime(1, 1, 2, tzinfo=UTC)
"""The earliest epoch: schedules look a moment before the epoch (a cron run due at tick 0),
and the day before it is the margin that keeps that look inside the calendar."""


def parse_time(text: str, zone: ZoneInfo, field: str = "epoch") -> datetime:
    """An ISO 8601 time as an aware datetime in ``zone``.

    A time with an offset is an exact instant (the offset picks one pass of a repeated hour). A
    local time without offset is read in ``zone``: in a repeated hour it means the first pass
    (as cron does), and a local time that the clocks skip is refused rather than guessed.
    """
    try:
        parsed = datetime.fromisoformat(text)
    except (ValueError, TypeError):
        raise ClockError(
            field,
            "expected an ISO 8601 time such as 2026-03-28T00:00:00 or "
            f"2026-03-28T00:00:00+01:00, got {text!r}",
        ) from None
    out_of_range = ClockError(
        field, f"{text} is out of range: expected a time from 0001-01-02 to 9999-12-31 (UTC)"
    )
    try:
        local = (
            parsed.replace(tzinfo=zone, fold=0)
            if parsed.tzinfo is None
            else parsed.astimezone(zone)
        )
        instant = local.astimezone(UTC)
        exists = (
            parsed.tzinfo is not None or instant.astimezone(zone).replace(tzinfo=None) == parsed
        )
    except OverflowError:
        raise out_of_range from None
    if instant < _FIRST_INSTANT:
        raise out_of_range
    if not exists:
        raise ClockError(
            field,
            f"{text} does not exist in {zone.key} (the clocks skip it at a DST change): "
            "give a UTC offset or another time",
        )
    return local


@dataclass(frozen=True, slots=True, eq=False)
class Clock:
    """Maps engine ticks to aware datetimes in ``zone``: tick ``t`` is ``epoch + t * tick_seconds``.

    ``epoch`` must be aware; it is stored converted to ``zone`` so that it prints in local time.
    Two clocks are equal when their epochs are the same instant: Python compares two datetimes
    of one zone by wall time, and in a repeated hour the two passes have one wall time (the
    remembered fire ticks of :mod:`engine.schedules.calendar` are keyed by the clock).
    """

    epoch: datetime
    zone: ZoneInfo
    tick_seconds: int = 1

    def __post_init__(self) -> None:
        if self.epoch.tzinfo is None:
            raise ClockError("epoch", "expected a time with a zone or UTC offset, got a naive one")
        if (
            isinstance(self.tick_seconds, bool)
            or not isinstance(self.tick_seconds, int)
            or self.tick_seconds <= 0
        ):
            raise ClockError(
                "tick", f"expected a positive whole number of seconds, got {self.tick_seconds!r}"
            )
        object.__setattr__(self, "epoch", self.epoch.astimezone(self.zone))

    def key(self) -> tuple:
        """What tells clocks apart: the epoch as an instant (its wall time and UTC offset), the
        zone and the tick."""
        epoch = self.epoch
        return epoch, epoch.utcoffset(), self.zone, self.tick_seconds

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Clock):
            return NotImplemented
        return self.key() == other.key()

    def __hash__(self) -> int:
        # The zone and the tick alone, which equal clocks share: hashing the epoch works out its
        # UTC offset twice (key() and the aware datetime's own hash), and the calendar's
        # remembered fire ticks hash a schedule's clock at each question (18,825 in the demo's
        # week): 4,300 instructions a hash with the epoch, 1,800 without (callgrind). A process
        # has a clock or a few, told apart by __eq__.
        return hash((self.zone, self.tick_seconds))

    @classmethod
    def parse(cls, epoch: str | None, timezone: str = "UTC", tick: int = 1) -> Clock:
        """A clock from scenario settings; ``epoch`` defaults to :data:`DEFAULT_EPOCH` locally."""
        zone = parse_zone(timezone)
        start = parse_time(DEFAULT_EPOCH if epoch is None else epoch, zone)
        return cls(start, zone, tick)

    def to_datetime(self, tick: int) -> datetime:
        """The instant of ``tick`` as an aware datetime in the clock's zone."""
        instant = self.epoch.astimezone(UTC) + timedelta(seconds=tick * self.tick_seconds)
        return instant.astimezone(self.zone)

    def names(self, tick: int) -> bool:
        """Whether the clock can name ``tick``: a date stops at the year 9999, a tick need not
        (an interval of 10**14 ticks is a schedule like any other)."""
        try:
            self.to_datetime(tick)
        except OverflowError:
            return False
        return True

    def to_tick_ceil(self, moment: datetime) -> int:
        """The first tick at or after ``moment``: a time between two ticks happens at the next one.

        Rounding up, never down, keeps a job from firing before its scheduled time.
        """
        if moment.tzinfo is None:
            raise ValueError("to_tick_ceil needs an aware datetime, got a naive one")
        elapsed = (moment.astimezone(UTC) - self.epoch.astimezone(UTC)) // _MICROSECOND
        return -(-elapsed // (self.tick_seconds * 1_000_000))

    def format(self, tick: int) -> str:
        """The instant of ``tick`` as ISO 8601 with UTC offset, e.g. 2026-03-29T03:00:00+02:00."""
        return self.to_datetime(tick).isoformat()


class TickTimes:
    """:meth:`Clock.format` of many ticks of one clock (``cronlapse run`` prints the wall time
    of each tick with events: 10,064 in the demo's week). The epoch's UTC instant and the
    length of a tick are worked out once here, where :meth:`Clock.to_datetime` works them out
    at each call; a :class:`Clock` keeps neither, as a pickled one holds its fields alone.
    24,700 to 17,600 instructions a tick (callgrind), of which ``isoformat`` is 11,000."""

    __slots__ = ("_start", "_tick", "_zone")

    def __init__(self, clock: Clock) -> None:
        self._start = clock.epoch.astimezone(UTC)
        self._tick = timedelta(seconds=clock.tick_seconds)
        self._zone = clock.zone

    def format(self, tick: int) -> str:
        """``clock.format(tick)``: a timedelta times a whole number is exact, as is the sum."""
        return (self._start + self._tick * tick).astimezone(self._zone).isoformat()
