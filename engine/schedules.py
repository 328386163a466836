"""When a job fires: the schedule kinds, as lazy iterators over integer ticks.

Every schedule answers two questions in O(1) or O(log n), never by listing future times:
``first_at_or_after(tick)`` (the engine walks a job forward with it) and ``contains(tick)``
(status queries for a time that was never materialised). Calendar schedules (cron, daily, weekly,
monthly in a time zone) live in :mod:`engine.calendar` and follow the same protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@runtime_checkable
class Schedule(Protocol):
    """The protocol every schedule kind implements; ticks are non-negative integers."""

    def first_at_or_after(self, tick: int) -> int | None:
        """The earliest fire tick that is ``>= tick``, or None when the schedule has ended."""
        ...

    def contains(self, tick: int) -> bool:
        """Whether ``tick`` is one of the schedule's fire ticks."""
        ...

    def describe(self) -> str:
        """A short human-readable description, for tables and the detail pane."""
        ...


@dataclass(frozen=True, slots=True)
class Once:
    """A single occurrence at ``at``."""

    at: int

    def first_at_or_after(self, tick: int) -> int | None:
        return self.at if tick <= self.at else None

    def contains(self, tick: int) -> bool:
        return tick == self.at

    def describe(self) -> str:
        return f"once at {self.at}"


@dataclass(frozen=True, slots=True)
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

    def describe(self) -> str:
        return f"every {self.interval} from {self.first}"
