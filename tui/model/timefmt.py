"""Ticks as people read them; what people type to name a tick is :mod:`engine.targets`.

The dashboard shows wall-clock time only through the scenario's :class:`~engine.clock.Clock`
(never the machine's clock), so the same tick always reads the same.
"""

from __future__ import annotations

from engine.clock import Clock


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
