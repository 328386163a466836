"""When a job fires: the schedule kinds, as lazy iterators over integer ticks.

Every schedule answers two questions in O(1) or O(log n), never by listing future times:
``first_at_or_after(tick)`` (the engine walks a job forward with it) and ``contains(tick)``
(status queries for a time that was never materialised). Calendar schedules (cron, daily, weekly,
monthly in a time zone) live in :mod:`engine.schedules.calendar` and follow the same protocol.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from engine.model.values import value


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
        first = self.first
        if tick <= first:
            return first
        # The first tick from ``tick`` on with first's remainder, by one ``%`` where a ceiling
        # division took more steps: the engine asks at every run it makes (70,593 times in the
        # demo's week, 2,040 to 1,380 instructions a call with its loop; callgrind).
        return tick + (first - tick) % self.interval

    def contains(self, tick: int) -> bool:
        return tick >= self.first and (tick - self.first) % self.interval == 0

    def fire_ticks(self, low: int, high: int) -> Iterator[int]:
        first = self.first_at_or_after(low)
        return iter(range(first, high + 1, self.interval) if first is not None else ())

    def describe(self) -> str:
        return f"every {self.interval} from {self.first}"


@value
class AnyOf:
    """The union of ``parts``: fires where any of them fires, once. A systemd timer with several
    triggers (two ``OnCalendar=`` lines, or one and ``OnBootSec=``) elapses at the earliest and
    starts its one unit (systemd.timer(5)), so it is one job with this schedule, not a job per
    trigger: two jobs would start two runs at an instant both fire, each with its own overlap
    rule and its own catch-up."""

    parts: tuple[Schedule, ...]

    def first_at_or_after(self, tick: int) -> int | None:
        found = [fire for part in self.parts if (fire := part.first_at_or_after(tick)) is not None]
        return min(found, default=None)

    def contains(self, tick: int) -> bool:
        return any(part.contains(tick) for part in self.parts)

    def fire_ticks(self, low: int, high: int) -> Iterator[int]:
        previous = None
        for tick in heapq.merge(*(part.fire_ticks(low, high) for part in self.parts)):
            if tick != previous:  # parts that fire at one tick are one fire
                previous = tick
                yield tick

    def count_fire_ticks(self, low: int, high: int) -> int:
        """How many fire ticks in ``[low, high]``: a walk, since parts may share ticks."""
        return sum(1 for _ in self.fire_ticks(low, high))

    def describe(self) -> str:
        return " or ".join(part.describe() for part in self.parts)


@value
class Repeating:
    """``anchors``' fire ticks, and after each, again every ``interval`` ticks until the next
    one: systemd's ``OnUnitActiveSec=`` counts from the unit's last start (systemd.timer(5)),
    whichever trigger started it, so a calendar run restarts the count."""

    anchors: Schedule
    interval: int

    def __post_init__(self) -> None:
        if self.interval <= 0:
            raise ValueError("The interval of a Repeating schedule must be positive")

    def first_at_or_after(self, tick: int) -> int | None:
        after = self.anchors.first_at_or_after(tick)
        last = last_at_or_before(self.anchors, tick, 0)
        if last is None:
            return after
        repeat = last + -(-(tick - last) // self.interval) * self.interval
        return repeat if after is None else min(repeat, after)

    def contains(self, tick: int) -> bool:
        return tick >= 0 and self.first_at_or_after(tick) == tick

    def fire_ticks(self, low: int, high: int) -> Iterator[int]:
        tick = self.first_at_or_after(low)
        while tick is not None and tick <= high:
            yield tick
            tick = self.first_at_or_after(tick + 1)

    def count_fire_ticks(self, low: int, high: int) -> int:
        """How many fire ticks in ``[low, high]``: a walk, one step a fire."""
        return sum(1 for _ in self.fire_ticks(low, high))

    def describe(self) -> str:
        return f"{self.anchors.describe()}, then every {self.interval} after each run"


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
