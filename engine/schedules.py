"""When a job fires: the schedule kinds, as lazy iterators over integer ticks.

Every schedule answers two questions in O(1) or O(log n), never by listing future times:
``first_at_or_after(tick)`` (the engine walks a job forward with it) and ``contains(tick)``
(status queries for a time that was never materialised). Calendar schedules (cron, daily, weekly,
monthly in a time zone) live in :mod:`engine.calendar` and follow the same protocol.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from engine.values import value


@runtime_checkable
class Schedule(Protocol):
    """The protocol every schedule kind implements; ticks are non-negative integers."""

    def first_at_or_after(self, tick: int) -> int | None:
        """The earliest fire tick that is ``>= tick``, or None when the schedule has ended."""
        ...

    def contains(self, tick: int) -> bool:
        """Whether ``tick`` is one of the schedule's fire ticks."""
        ...

    def fire_ticks(self, low: int, high: int) -> Iterator[int]:
        """The fire ticks in ``[low, high]``, increasing: those ``first_at_or_after`` gives
        walked from ``low``, for a reader of a long stretch (a cron schedule walks once)."""
        ...

    def describe(self) -> str:
        """A short human-readable description, for tables and the detail pane."""
        ...


@value
class Once:
    """A single occurrence at ``at``."""

    at: int

    def first_at_or_after(self, tick: int) -> int | None:
        return self.at if tick <= self.at else None

    def contains(self, tick: int) -> bool:
        return tick == self.at

    def fire_ticks(self, low: int, high: int) -> Iterator[int]:
        return iter((self.at,) if low <= self.at <= high else ())

    def describe(self) -> str:
        return f"once at {self.at}"


@value
class Every:
    """Occurrences at ``first + k * interval`` for every k >= 0 (``interval`` > 0)."""

    first: int
    interval: int

    def __post_init__(self) -> None:
        if self.interval <= 0:
            raise ValueError("The interval of an Every schedule must be positive")

    def first_at_or_after(self, tick: int) -> int | None:
        if tick <= self.first:
            return self.first
        steps = -(-(tick - self.first) // self.interval)
        return self.first + steps * self.interval

    def contains(self, tick: int) -> bool:
        return tick >= self.first and (tick - self.first) % self.interval == 0

    def fire_ticks(self, low: int, high: int) -> Iterator[int]:
        first = self.first_at_or_after(low)
        return iter(range(first, high + 1, self.interval) if first is not None else ())

    def describe(self) -> str:
        return f"every {self.interval} from {self.first}"


def last_at_or_before(schedule: Schedule, tick: int, lower: int) -> int | None:
    """The latest fire tick in ``[lower, tick]``, or None: a binary search over
    ``first_at_or_after``, so it costs O(log(tick - lower)) calls for any schedule kind."""
    if lower > tick:
        return None
    first = schedule.first_at_or_after(lower)
    if first is None or first > tick:
        return None
    low, high = first, tick
    while low < high:
        middle = (low + high + 1) // 2
        found = schedule.first_at_or_after(middle)
        if found is not None and found <= tick:
            low = found
        else:
            high = middle - 1
    return low


def next_fire_times(schedule: Schedule, from_tick: int, n: int) -> list[int]:
    """The first ``n`` fire ticks at or after ``from_tick`` (fewer if the schedule ends)."""
    ticks: list[int] = []
    tick = schedule.first_at_or_after(from_tick) if n > 0 else None
    while tick is not None:
        ticks.append(tick)
        if len(ticks) == n:
            break
        tick = schedule.first_at_or_after(tick + 1)
    return ticks
