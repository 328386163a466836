"""The engine's current tick, shared by every part that stamps an event or sets a timer.

One small object, given to the parts at composition (:mod:`engine.core`), rather than the engine
itself: a part that only needs to know what time it is depends on this and nothing else. The
engine moves it forward (``Engine.advance``) and reads it back as ``Engine.now``; a keyframe
restores it with the rest of the state, so a rewind puts the clock back too.

Not to be confused with :class:`engine.schedules.clock.Clock`, which maps ticks to wall-clock time
in a zone.
"""

from __future__ import annotations

from engine.rewind.journal import JournaledPart


class TickClock(JournaledPart):
    """``now``: the tick whose processing may still be open (see :mod:`engine.core`)."""

    def __init__(self, now: int = 0) -> None:
        self.now = now

    def scalars(self) -> tuple:
        return (self.now,)

    def restore_scalars(self, values: tuple) -> None:
        (self.now,) = values
