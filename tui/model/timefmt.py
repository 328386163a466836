"""Ticks as people read them, and what people type to name a tick.

The dashboard shows wall-clock time only through the scenario's :class:`~engine.clock.Clock`
(never the machine's clock), so the same tick always reads the same.
"""

from __future__ import annotations

import re

from engine.clock import Clock, ClockError, parse_time

_RELATIVE = re.compile(r"([+-])\s*(\d+)\s*([smhdw]?)\Z")
_TIME_OF_DAY = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?\Z")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


class TargetError(ValueError):
    """Text that does not name a tick; the message says what would."""


def wall(clock: Clock | None, tick: int) -> str:
    """``Mon 2026-03-23 14:05:00 CET`` (empty without a clock)."""
    if clock is None:
        return ""
    try:
        return clock.to_datetime(tick).strftime("%a %Y-%m-%d %H:%M:%S %Z")
    except (OverflowError, ValueError):
        return "(out of range)"


def compact(clock: Clock | None, tick: int) -> str:
    """``Mon 03-23 14:05 CET`` (seconds shown when ticks are shorter than a minute)."""
    if clock is None:
        return ""
    try:
        moment = clock.to_datetime(tick)
    except (OverflowError, ValueError):
        return "(out of range)"
    return moment.strftime(
        "%a %m-%d %H:%M %Z" if clock.tick_seconds >= 60 else "%a %m-%d %H:%M:%S %Z"
    )


def short(clock: Clock | None, tick: int) -> str:
    """A table cell: ``Mon 14:05`` with minute ticks or longer, ``14:05:07`` with shorter."""
    if clock is None:
        return ""
    try:
        moment = clock.to_datetime(tick)
    except (OverflowError, ValueError):
        return "?"
    return moment.strftime("%a %H:%M" if clock.tick_seconds >= 60 else "%H:%M:%S")


def span(ticks: int, clock: Clock | None) -> str:
    """A length of time: ticks, plus ``(2h05m)`` when a clock says how long a tick is."""
    if clock is None:
        return f"{ticks}"
    seconds = ticks * clock.tick_seconds
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        text = f"{days}d{hours:02d}h"
    elif hours:
        text = f"{hours}h{minutes:02d}m"
    elif minutes:
        text = f"{minutes}m{seconds:02d}s" if seconds else f"{minutes}m"
    else:
        text = f"{seconds}s"
    return f"{ticks} ({text})"


def parse_target(text: str, now: int, clock: Clock | None) -> int:
    """The tick ``text`` names: ``1234``; ``+10``/``-10`` ticks from now; ``+2h``, ``-30m``,
    ``+1d`` (s, m, h, d, w); with a clock also ``14:30`` (today, in the scenario's zone) or an ISO
    time such as ``2026-03-24T09:00``."""
    value = text.strip()
    if not value:
        raise TargetError("type a tick, +N/-N, +2h, a time such as 14:30 or 2026-03-24T09:00")
    if value.isdigit():
        return int(value)
    relative = _RELATIVE.match(value)
    if relative is not None:
        sign, amount, unit = relative.groups()
        ticks = int(amount)
        if unit:
            seconds = ticks * _UNIT_SECONDS[unit]
            tick_seconds = clock.tick_seconds if clock is not None else 1
            ticks = -(-seconds // tick_seconds)
        target = now + ticks if sign == "+" else now - ticks
        return _not_negative(target, value)
    if clock is None:
        raise TargetError(
            f"{value!r} is not a tick; this run has no clock, so times of day do not apply"
        )
    of_day = _TIME_OF_DAY.match(value)
    if of_day is not None:
        hour, minute, second = (int(part or 0) for part in of_day.groups())
        if hour > 23 or minute > 59 or second > 59:
            raise TargetError(f"{value!r} is not a time of day (HH:MM or HH:MM:SS)")
        day = clock.to_datetime(now).date().isoformat()
        value = f"{day}T{hour:02d}:{minute:02d}:{second:02d}"
    try:
        moment = parse_time(value.replace(" ", "T", 1), clock.zone, "time")
    except ClockError as error:
        raise TargetError(str(error).removeprefix("time: ")) from None
    return _not_negative(clock.to_tick_ceil(moment), text.strip())


def _not_negative(tick: int, text: str) -> int:
    if tick < 0:
        raise TargetError(f"{text} is before tick 0, where the run starts")
    return tick
