"""Ticks as people read them; what people type to name a tick is :mod:`engine.schedules.targets`.

The dashboard shows wall-clock time only through the scenario's
:class:`~engine.schedules.clock.Clock` (never the machine's clock), so the same tick always reads
the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine.schedules.clock import Clock


@dataclass(frozen=True, slots=True)
class UnixClock(Clock):
    """The clock of a run whose ticks are Unix seconds (a live service's): the panes show such a
    tick as its time, where a scenario's shows its number, since ``1796550308`` (cut to a
    column, ``1796…0308``) says nothing to a reader. A scenario's clock is never one, even one
    whose epoch is 1970: its tick numbers count from its start."""

    @classmethod
    def of(cls, clock: Clock) -> UnixClock:
        return cls(clock.epoch, clock.zone, clock.tick_seconds)


def ticks_are_times(clock: Clock | None) -> bool:
    """Whether a tick is shown as its time rather than its number (:class:`UnixClock`)."""
    return isinstance(clock, UnixClock)


def tick_label(clock: Clock | None, tick: int) -> str:
    """A tick as the panes name it: its number, or a live service's as its time (:func:`short`,
    as a scenario's time columns show it)."""
    return short(clock, tick) if ticks_are_times(clock) else str(tick)


def run_label(job_id: str, scheduled: int, clock: Clock | None) -> str:
    """``job@scheduled``: ``etl@1440``, or a live service's ``etl@09:45:08``."""
    return f"{job_id}@{tick_label(clock, scheduled)}"


def repeated_offset(moment: datetime) -> str:
    """`` +02`` when ``moment``'s local time happens twice (the hour the clocks go back), else
    empty: on a fall-back night two runs at ``Sun 02:30`` are an hour apart, and only the UTC
    offset tells them apart (``+02`` the first pass, ``+01`` the second)."""
    other = moment.replace(fold=1 - moment.fold)
    offset = moment.utcoffset()
    if offset is None or other.utcoffset() == offset:
        return ""
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return f" {sign}{hours:02d}" + (f":{minutes:02d}" if minutes else "")


def wall(clock: Clock | None, tick: int) -> str:
    """``Mon 2026-03-23 14:05:00 CET`` (empty without a clock), with the UTC offset where the
    local time repeats (:func:`repeated_offset`)."""
    if clock is None:
        return ""
    try:
        moment = clock.to_datetime(tick)
    except (OverflowError, ValueError):
        return "(out of range)"
    return moment.strftime("%a %Y-%m-%d %H:%M:%S %Z") + repeated_offset(moment)


def compact(clock: Clock | None, tick: int) -> str:
    """``Mon 03-23 14:05 CET`` (seconds shown when ticks are shorter than a minute; the UTC
    offset where the local time repeats)."""
    if clock is None:
        return ""
    try:
        moment = clock.to_datetime(tick)
    except (OverflowError, ValueError):
        return "(out of range)"
    return moment.strftime(
        "%a %m-%d %H:%M %Z" if clock.tick_seconds >= 60 else "%a %m-%d %H:%M:%S %Z"
    ) + repeated_offset(moment)


def short(clock: Clock | None, tick: int) -> str:
    """A table cell: ``Mon 14:05`` with minute ticks or longer, ``14:05:07`` with shorter;
    ``Sun 02:30 +02`` where the local time repeats."""
    if clock is None:
        return ""
    try:
        moment = clock.to_datetime(tick)
    except (OverflowError, ValueError):
        return "?"
    fmt = "%a %H:%M" if clock.tick_seconds >= 60 else "%H:%M:%S"
    return moment.strftime(fmt) + repeated_offset(moment)


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
