"""systemd calendar events (``OnCalendar=``, systemd.time(7)) read, and written as cron.

An event is ``[WEEKDAYS] [[YEAR-]MONTH-DAY] [HOUR:MINUTE[:SECOND]] [ZONE]``; each of the date and
time components is ``*``, a value, a list ``a,b``, a range ``a..b`` or a repetition ``a/n`` or
``a..b/n`` (``a`` then every ``n`` up to the end). ``MONTH~DAY`` counts days from the month's end
(``~1`` is the last day; ``~7/1`` the last seven). A weekday and a date both restricted must both
match, unlike cron. The words ``minutely``, ``hourly``, ``daily``, ``weekly``, ``monthly``,
``quarterly``, ``semiannually``, ``yearly`` and ``annually`` are the normalised forms systemd gives
(with its other spellings). What ``calendar_spec_from_string`` in systemd's
``src/shared/calendarspec.c`` accepts is read, and only what it rejects is refused: a trailing
comma after the weekdays, ``UTC`` in any case, two-digit years (``26`` is 2026), fractional and
ranged seconds, ``@SECONDS`` (one instant); and it refuses days more than 28 from a month's end.

A scenario's schedule is a five-field cron expression read with minute ticks, so an event becomes
one when it can: seconds must be ``00``, no year may be named, and a weekday together with a day
of the month must pick the n-th (days 1-7, 8-14, 15-21, 22-28: ``#n``) or the last (``~7/1``:
``L``) such weekday of the month. An event systemd runs that cron cannot say is
:class:`NoCronForm` (listed as not imported); one systemd rejects is refused with what was
expected, but for a zone alone (:class:`ZoneAlone`), also listed, as a timer ignores the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.model.digits import is_digits

SPECIAL = {
    "minutely": "*-*-* *:*:00",
    "hourly": "*-*-* *:00:00",
    "daily": "*-*-* 00:00:00",
    "weekly": "Mon *-*-* 00:00:00",
    "monthly": "*-*-01 00:00:00",
    "quarterly": "*-01,04,07,10-01 00:00:00",
    "semiannually": "*-01,07-01 00:00:00",
    "semi-annually": "*-01,07-01 00:00:00",
    "biannually": "*-01,07-01 00:00:00",
    "bi-annually": "*-01,07-01 00:00:00",
    "yearly": "*-01-01 00:00:00",
    "annually": "*-01-01 00:00:00",
    "anually": "*-01-01 00:00:00",
}
"""systemd.time(7)'s special expressions and what they stand for."""

WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
"""Cron's numbering: Sunday is 0."""
_WEEKDAY_NAMES = {name: n for n, name in enumerate(WEEKDAYS)} | {
    "sunday": 0,
    "monday": 1,
    "tuesday": 2,
    "wednesday": 3,
    "thursday": 4,
    "friday": 5,
    "saturday": 6,
}
_WEEK_ORDER = (1, 2, 3, 4, 5, 6, 0)
"""systemd's weekday ranges run Monday to Sunday (``Sat..Sun`` is valid, ``Sun..Mon`` is not)."""

EVENT_FORM = "WEEKDAYS YEAR-MONTH-DAY HOUR:MINUTE[:SECOND] [ZONE]"
"""What an event is made of, for the messages that refuse one."""

_END_OF_MONTH_DAYS = 28
"""systemd refuses days more than 28 from a month's end (``chain_valid``)."""
_MICROSECONDS = 1_000_000
_SECOND_PART = re.compile(
    r"([0-9]+(?:\.[0-9]+)?)(?:\.\.([0-9]+(?:\.[0-9]+)?))?(?:/([0-9]+(?:\.[0-9]+)?))?"
)
_DATE = re.compile(r"(?:(?P<year>[^-~]+)-)?(?P<month>[^-~]+)(?P<sep>[-~])(?P<day>[^-~]+)")
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+/-]*")


class CalendarError(ValueError):
    """An event that cannot be read (or written as cron); ``column`` is 0-based in the event."""

    def __init__(self, message: str, column: int = 0) -> None:
        super().__init__(message)
        self.column = column


class NoCronForm(CalendarError):
    """An event systemd reads and runs but that no cron expression says (a year, seconds other
    than ``:00``...): an importer lists its line as not imported, as it does a date that never
    comes, rather than refusing the whole fleet for it."""


class ZoneAlone(CalendarError):
    """A zone with no event before it (``OnCalendar=UTC``), which systemd refuses:
    ``calendar_spec_from_string`` takes a zone only after a space, so the zone is read as the
    event and fails. A timer ignores such a line (with a warning) and keeps its other triggers,
    so an importer lists it as not imported, as systemd drops it."""


@dataclass(frozen=True, slots=True)
class CalendarEvent:
    """The sets an event matches; ``None`` is "any"."""

    weekdays: frozenset[int] | None
    years: frozenset[int] | None
    months: frozenset[int] | None
    days: frozenset[int] | None
    last_days: bool
    """``days`` counts from the month's end (1 is the last day)."""
    hours: frozenset[int]
    minutes: frozenset[int]
    seconds: frozenset[float]
    timezone: str | None
    seconds_text: str = "00"
    """The seconds as written, for the message that says they cannot be cron."""

    def cron(self) -> str:
        """The five-field cron expression matching the same minutes (see the module docstring)."""
        if self.years is not None:
            raise NoCronForm(
                f"a year ({_values(self.years)}) cannot be written as cron, which has no year "
                "field: expected '*' for the year"
            )
        if self.seconds != frozenset({0}):
            raise NoCronForm(
                f"seconds {self.seconds_text}: a scenario's tick is a minute, so expected "
                "':00' seconds (or HH:MM)"
            )
        day, weekday = self._day_fields()
        return " ".join(
            (
                _field(self.minutes, 0, 59),
                _field(self.hours, 0, 23),
                day,
                "*" if self.months is None else _field(self.months, 1, 12),
                weekday,
            )
        )

    def _day_fields(self) -> tuple[str, str]:
        if self.weekdays is None:
            if self.days is None:
                return "*", "*"
            if not self.last_days:
                return _field(self.days, 1, 31), "*"
            if self.days == frozenset({1}):
                return "L", "*"
            raise NoCronForm(
                "days counted from the month's end other than the last (~1) cannot be written as "
                "cron: expected ~1, or a weekday with ~7/1 (the last such weekday)"
            )
        weekdays = sorted(self.weekdays)
        if self.days is None:
            return "*", _field(self.weekdays, 0, 6)
        if self.last_days and self.days == frozenset(range(1, 8)):
            return "*", ",".join(f"{day}L" for day in weekdays)
        for week in range(1, 5):
            if not self.last_days and self.days == frozenset(range(week * 7 - 6, week * 7 + 1)):
                return "*", ",".join(f"{day}#{week}" for day in weekdays)
        raise NoCronForm(
            "a weekday and a day of the month together must both match in systemd, which cron "
            "can only say for the n-th weekday: expected days 1..7, 8..14, 15..21, 22..28 or ~7/1"
        )

    def shifted(self, minutes: int) -> CalendarEvent | None:
        """The event ``minutes`` later (a delay), or None when that cannot be one event: the
        times must stay a product of hours and minutes, and cross midnight only on every day."""
        times = {hour * 60 + minute + minutes for hour in self.hours for minute in self.minutes}
        every_day = self.weekdays is None and self.days is None and self.months is None
        if max(times) >= 1440 and not every_day:
            return None
        times = {time % 1440 for time in times}
        hours = frozenset(time // 60 for time in times)
        minute_set = frozenset(time % 60 for time in times)
        if len(hours) * len(minute_set) != len(times):
            return None
        return replace(self, hours=hours, minutes=minute_set)


def parse_calendar_event(text: str) -> CalendarEvent:
    """Read ``text`` (one ``OnCalendar=`` value); raises :class:`CalendarError`, or
    :class:`NoCronForm` for ``@SECONDS``, one instant."""
    if text.strip().startswith("@"):
        raise _instant(text.strip())
    tokens = [(match.group(), match.start()) for match in re.finditer(r"\S+", text)]
    if tokens and tokens[0][0].lower() in SPECIAL and len(tokens) <= 2:  # ``daily Europe/Paris``
        expanded = [(word, tokens[0][1]) for word in SPECIAL[tokens[0][0].lower()].split()]
        tokens = expanded + tokens[1:]
    if not tokens:
        raise CalendarError("expected a calendar event such as 'Mon..Fri *-*-* 02:30:00'")
    weekdays: frozenset[int] | None = None
    if re.fullmatch(r"[A-Za-z][A-Za-z.,-]*", tokens[0][0]) and not _is_zone(tokens, 0):
        weekdays = _weekdays(*tokens[0])
        tokens = tokens[1:]
    date = clock = zone = None
    for index, (token, column) in enumerate(tokens):
        if ":" in token and clock is None:
            clock = (token, column)
        elif date is None and clock is None and re.match(r"[\d*]", token):
            date = (token, column)
        elif index == len(tokens) - 1 and _ZONE.fullmatch(token) and not _is_day(token):
            zone = token
        else:
            raise CalendarError(
                f"{token!r}: expected {EVENT_FORM}, in this order, each part optional", column
            )
    if zone is not None and weekdays is None and date is None and clock is None and _names(zone):
        raise ZoneAlone(
            f"a zone alone, which systemd refuses (it ignores the line): a zone follows an "
            f"event, as in 'daily {zone}'"
        )
    years, months, days, last = _date(*date) if date else (None, None, None, False)
    hours, minutes, seconds = _time(*clock) if clock else (frozenset({0}),) * 2 + (_ZERO,)
    if zone is not None and zone.upper() == "UTC":  # systemd reads " UTC" in any case
        zone = "UTC"
    written = clock[0].split(":")[2] if clock and clock[0].count(":") == 2 else "00"
    return CalendarEvent(
        weekdays, years, months, days, last, hours, minutes, seconds, zone, written
    )


def _instant(text: str) -> CalendarError:
    """``@SECONDS``: systemd's one instant (UTC), which a calendar schedule cannot be."""
    seconds = text[1:]
    if not is_digits(seconds):
        return CalendarError(f"{text!r}: expected @ and the seconds since 1970-01-01 UTC")
    try:
        instant = datetime.fromtimestamp(int(seconds), UTC)
    except (OverflowError, ValueError, OSError):
        return CalendarError(f"{text!r}: expected a time before the year 10000")
    return NoCronForm(
        f"{text} is a single instant, {instant:%Y-%m-%dT%H:%M:%S} UTC: not yet supported (a "
        "calendar schedule repeats)"
    )


_ZERO: frozenset[float] = frozenset({0})


def _is_zone(tokens: list[tuple[str, int]], index: int) -> bool:
    """A lone first token that is not a weekday is the zone (``UTC``)."""
    return index == len(tokens) - 1 and not _is_day(tokens[index][0])


def _names(zone: str) -> bool:
    """Whether ``zone`` names a time zone (``UTC`` in any case, as systemd reads it)."""
    if zone.upper() == "UTC":
        return True
    try:
        ZoneInfo(zone)
    except (ValueError, ZoneInfoNotFoundError):
        return False
    return True


def _is_day(token: str) -> bool:
    return re.split(r"[,.-]", token)[0].lower() in _WEEKDAY_NAMES


def _weekdays(token: str, column: int) -> frozenset[int]:
    days: set[int] = set()
    parts = token.split(",")
    if len(parts) > 1 and parts[-1] == "":  # systemd allows a trailing comma (``Wed, 17:48``)
        parts.pop()
    for part in parts:
        ends = re.split(r"\.\.|-", part)
        if len(ends) > 2 or any(end.lower() not in _WEEKDAY_NAMES for end in ends):
            raise CalendarError(
                f"weekday {part!r}: expected Mon, Tue, ... Sun, a list Mon,Wed or a range Mon..Fri",
                column,
            )
        first, last = (
            _WEEK_ORDER.index(_WEEKDAY_NAMES[end.lower()]) for end in (ends[0], ends[-1])
        )
        if first > last:
            raise CalendarError(
                f"weekday range {part!r} runs backwards: weeks run Mon..Sun", column
            )
        days.update(_WEEK_ORDER[first : last + 1])
    return frozenset(days)


def _date(
    token: str, column: int
) -> tuple[frozenset[int] | None, frozenset[int] | None, frozenset[int] | None, bool]:
    match = _DATE.fullmatch(token)
    if match is None:
        raise CalendarError(
            f"date {token!r}: expected YEAR-MONTH-DAY or MONTH-DAY (~DAY counts from the end)",
            column,
        )
    year = match["year"]
    years = None if year is None else _years(year, column)
    months = _component(match["month"], 1, 12, "month", column + match.start("month"))
    days = _component(match["day"], 1, 31, "day", column + match.start("day"))
    last = match["sep"] == "~"
    if last and days is not None:
        days = _from_the_end(match["day"], column + match.start("day"))
    return years, months, days, last


def _years(text: str, column: int) -> frozenset[int] | None:
    """The years, two digits read as systemd reads them (``fix_year``: 0-69 are 2000-2069,
    70-99 are 1970-1999)."""
    found = _component(text, 0, 2199, "year", column)
    if found is None:
        return None
    years = frozenset(year + (2000 if year < 70 else 1900 if year < 100 else 0) for year in found)
    if min(years) < 1970:
        raise CalendarError(f"year {text!r}: expected values from 1970 to 2199", column)
    return years


def _from_the_end(text: str, column: int) -> frozenset[int]:
    """``~a/n`` steps toward the end (a, a-n, ... days before it), unlike ``-a/n``; systemd
    refuses a day more than 28 from the end, and a repetition that cannot repeat."""
    days: set[int] = set()
    for part in text.split(","):
        start, _, step = part.partition("/")
        if step and (not is_digits(start) or not is_digits(step) or int(step) == 0):
            raise CalendarError(f"day ~{part!r}: expected ~N/STEP", column)
        found = _component(start, 1, 31, "day", column) or frozenset(range(1, 32))
        if max(found) > _END_OF_MONTH_DAYS:
            raise CalendarError(
                f"day ~{part}: systemd refuses days more than 28 days from the month's end: "
                "expected 1-28",
                column,
            )
        if step:
            first = int(start)
            if first - int(step) < 1:
                raise CalendarError(
                    f"day ~{part}: a repetition must repeat: expected {first} - {step} to be at "
                    "least 1 (systemd refuses it)",
                    column,
                )
            days.update(range(first, 0, -int(step)))
        else:
            days.update(found)
    return frozenset(days)


def _time(token: str, column: int) -> tuple[frozenset[int], frozenset[int], frozenset[float]]:
    parts = token.split(":")
    if len(parts) not in (2, 3):
        raise CalendarError(f"time {token!r}: expected HOUR:MINUTE or HOUR:MINUTE:SECOND", column)
    hours = _component(parts[0], 0, 23, "hour", column) or frozenset(range(24))
    minute_column = column + len(parts[0]) + 1
    minutes = _component(parts[1], 0, 59, "minute", minute_column) or frozenset(range(60))
    seconds: frozenset[float] = _ZERO
    if len(parts) == 3:
        second_column = minute_column + len(parts[1]) + 1
        seconds = _seconds(parts[2], second_column)
    return hours, minutes, seconds


def _seconds(text: str, column: int) -> frozenset[float]:
    """Seconds, which systemd reads to the microsecond: ``*``, values, ranges ``a..b`` and
    repetitions ``a/n``, each possibly fractional (``00:00:00.5``, ``*:*:10..20``)."""
    if text == "*":
        return frozenset(float(second) for second in range(60))
    last = 60 * _MICROSECONDS - 1
    values: set[float] = set()
    for part in text.split(","):
        match = _SECOND_PART.fullmatch(part)
        if match is None:
            raise CalendarError(
                f"second {part!r}: expected 0-59: a number, a range a..b or a repetition a/n, "
                "fractions allowed",
                column,
            )
        start = _microseconds(match[1])
        stop = None if match[2] is None else _microseconds(match[2])
        step = _microseconds(match[3]) if match[3] else (_MICROSECONDS if stop else 0)
        end = last if stop is None else stop
        if start > last or end > last or start > end or (match[3] and step == 0):
            raise CalendarError(f"second {part!r}: expected values from 0 to 59", column)
        if step and start + step > end:
            raise CalendarError(
                f"second {part!r}: a repetition must repeat (systemd refuses it)", column
            )
        points = range(start, end + 1, step) if step else (start,)
        values.update(point / _MICROSECONDS for point in points)
    return frozenset(values)


def _microseconds(text: str) -> int:
    whole, _, fraction = text.partition(".")
    return int(whole) * _MICROSECONDS + int((fraction + "000000")[:6])


def _component(text: str, low: int, high: int, name: str, column: int) -> frozenset[int] | None:
    """The values of one component, None for ``*``."""
    if text == "*":
        return None
    values: set[int] = set()
    for part in text.split(","):
        match = re.fullmatch(r"(\d+)(?:\.\.(\d+))?(?:/(\d+))?", part)
        if match is None:
            raise CalendarError(
                f"{name} {part!r}: expected '*', a number, a list a,b, a range a..b or a "
                f"repetition a/n ({low}-{high})",
                column,
            )
        start = int(match[1])
        end = int(match[2]) if match[2] else (high if match[3] else start)
        step = int(match[3]) if match[3] else 1
        if not low <= start <= end <= high or step == 0:
            raise CalendarError(f"{name} {part!r}: expected values from {low} to {high}", column)
        if match[3] and not match[2] and start + step > high:  # systemd refuses these too
            raise CalendarError(
                f"{name} {part!r}: a repetition must repeat: expected {start} + {step} to be at "
                f"most {high}",
                column,
            )
        values.update(range(start, end + 1, step))
    return frozenset(values)


def _field(values: frozenset[int], low: int, high: int) -> str:
    """A cron field for ``values``: ``*``, ``*/n``, ``a-b/n`` or a list of values and ranges."""
    ordered = sorted(values)
    if ordered == list(range(low, high + 1)):
        return "*"
    step = ordered[1] - ordered[0] if len(ordered) > 2 else 0
    if step > 1 and ordered == list(range(ordered[0], ordered[-1] + 1, step)):
        to_the_end = high - ordered[-1] < step
        if ordered[0] == low and to_the_end:
            return f"*/{step}"
        return f"{ordered[0]}-{high if to_the_end else ordered[-1]}/{step}"
    runs: list[list[int]] = []
    for value in ordered:
        if runs and value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    return ",".join(f"{run[0]}-{run[-1]}" if len(run) > 2 else _values(run) for run in runs)


def _values(values: frozenset[int] | frozenset[float] | list[int]) -> str:
    return ",".join(f"{value:g}" for value in sorted(values))
