"""The ticks at which something happened, as far as a history has been played: its steps.

A :class:`~engine.play.history.History` keeps them for stepping and scrubbing without replaying: the
furthest run so far has seen them, and a command that changes the future forgets those after it.
"""

from __future__ import annotations

import bisect
from operator import itemgetter

from engine.model.events import EventLog

_tick_of = itemgetter(0)
"""A stored event's tick: its first field."""


class EventTicks:
    def __init__(self) -> None:
        self.ticks: list[int] = []
        """Ticks with at least one event, in order."""
        self.reached = -1
        """The furthest tick whose events are known."""

    def record(self, log: EventLog, through: int) -> None:
        """Take the ticks of ``log``'s events after the furthest known, up to ``through``."""
        if through <= self.reached:
            return
        ticks = self.ticks
        # Every event's first field is its tick (no event is built), and the log is in tick
        # order: the distinct ticks, in order, are a dict's keys (in C, not a loop per event).
        # Read from the stored fields alone: each event's kind looked up and paired with them
        # too (``stored_since``) cost 12 M instructions more in a recording at a quarter of
        # seed 000's sizes.
        stored = log.records(log.first_index_at(self.reached + 1), len(log))
        new = list(dict.fromkeys(map(_tick_of, stored.fields)))
        if new and ticks and ticks[-1] == new[0]:
            del new[0]
        ticks += new
        self.reached = through

    def forget_after(self, tick: int) -> None:
        del self.ticks[bisect.bisect_right(self.ticks, tick) :]
        self.reached = min(self.reached, tick)

    def has_events(self, tick: int) -> bool:
        index = bisect.bisect_left(self.ticks, tick)
        return index < len(self.ticks) and self.ticks[index] == tick

    def after(self, tick: int) -> int | None:
        """The first known tick with events after ``tick``, or None."""
        index = bisect.bisect_right(self.ticks, tick)
        return self.ticks[index] if index < len(self.ticks) else None
