"""The live clock: wall time to ticks (one tick is one second), ``--speed N`` times faster.

Ticks are seconds of the engine's clock (:class:`engine.schedules.clock.Clock` at its default epoch,
Unix time in UTC), so ``at: "2026-12-01T09:00:00Z"`` and ``daily: "09:00"`` mean what they say. At
speed 1 the tick is the Unix time. At speed N the clock runs N ticks per wall second from an
anchor ``(wall, tick)``, the wall time at which that tick began; the anchor is kept in the
database, so a restart continues the same timeline (the downtime counts as N times its length)
and a restart at another speed re-anchors at the tick the old speed had reached, from when it
began.

The wall time is injectable: tests drive it by hand.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.schedules.clock import Clock

ENGINE_CLOCK = Clock.parse(None, "UTC")
"""The clock that reads times in job documents: tick ``t`` is Unix time ``t`` in UTC."""


@dataclass(frozen=True, slots=True)
class Anchor:
    """At wall time ``wall`` the tick was ``tick``; ticks advance ``speed`` per wall second."""

    wall: float
    tick: int
    speed: float

    def tick_at(self, wall: float) -> int:
        return self.tick + math.floor((wall - self.wall) * self.speed)

    def wall_at(self, tick: int) -> float:
        """The wall time at which ``tick`` begins."""
        return self.wall + (tick - self.tick) / self.speed

    def dumps(self) -> str:
        return json.dumps({"wall": self.wall, "tick": self.tick, "speed": self.speed})

    @classmethod
    def loads(cls, text: str) -> Anchor:
        values = json.loads(text)
        return cls(float(values["wall"]), int(values["tick"]), float(values["speed"]))


class LiveClock:
    """The tick now; never earlier than a tick already reached (the wall clock may step back)."""

    def __init__(self, anchor: Anchor, wall: Callable[[], float] = time.time) -> None:
        self.anchor = anchor
        self.wall = wall

    @classmethod
    def resume(
        cls, saved: Anchor | None, speed: float, wall: Callable[[], float] = time.time
    ) -> LiveClock:
        """The clock continuing ``saved`` (None: a first start, at the Unix time) at ``speed``.

        Every anchor it makes is exact: its wall time is when its tick began. A first start's
        is the current second, ``(floor(now), floor(now))``; it was ``(now, floor(now))``, which
        made every tick begin up to a second after its time, for the life of the database. At
        speed 1 a saved anchor less than a second behind the Unix time is such an anchor, made
        exact again; a change of speed continues from when the tick reached began."""
        now = wall()
        if saved is None:
            second = math.floor(now)
            return cls(Anchor(float(second), second, speed), wall)
        if speed == saved.speed == 1.0 and 0.0 < saved.wall - saved.tick < 1.0:
            return cls(Anchor(float(saved.tick), saved.tick, speed), wall)
        if saved.speed == speed:
            return cls(saved, wall)
        reached = saved.tick_at(now)
        began = min(now, saved.wall_at(reached))
        return cls(Anchor(began, reached, speed), wall)

    def now(self) -> int:
        return self.anchor.tick_at(self.wall())
