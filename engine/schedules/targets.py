"""What people type to name a tick: ``1234``, ``+10``, ``+2h``, ``14:30`` or an ISO time.

One reader for the dashboard's go-to and for the times in commands (``at``, ``first``), whether
they are typed on the command line or written in a scenario file; times of day and ISO times are
read through the scenario's :class:`~engine.schedules.clock.Clock` only, never the machine's clock.
"""

from __future__ import annotations

import re

from engine.model.digits import is_digits
from engine.schedules.clock import Clock, ClockError, parse_time

_RELATIVE = re.compile(r"([+-])\s*([0-9]+)\s*([smhdw]?)\Z")
_TIME_OF_DAY = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?\Z")
MAX_TARGET = 64
"""The longest text read as a target: an ISO time with fraction and offset takes 32 characters,
and a longer number is a tick no clock names (and, past 4,300 digits, one ``int`` refuses)."""
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


class TargetError(ValueError):
    """Text that does not name a tick; the message says what would."""


def is_relative(text: str) -> bool:
    """Whether ``text`` counts from now (``+10``, ``-30m``) rather than naming a tick."""
    return _RELATIVE.match(text.strip()) is not None


def parse_target(text: str, now: int, clock: Clock | None) -> int:
    """The tick ``text`` names: ``1234``; ``+10``/``-10`` ticks from now; ``+2h``, ``-30m``,
    ``+1d`` (s, m, h, d, w); with a clock also ``14:30`` (today, in the scenario's zone) or an ISO
    time such as ``2026-03-24T09:00``."""
    value = text.strip()
    if not value:
        raise TargetError("type a tick, +N/-N, +2h, a time such as 14:30 or 2026-03-24T09:00")
    if len(value) > MAX_TARGET:
        raise TargetError(f"{len(value)} characters is too long for a tick or a time")
    if is_digits(value):
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
