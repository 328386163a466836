"""The live clock's anchor is exact: at speed 1 the tick is the Unix time, whatever fraction of a
second the database was created at; a change of speed continues from the moment the tick reached
began."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from cronlapse.service.clock import Anchor, LiveClock

WALLS = st.floats(1_000_000_000, 4_000_000_000, allow_nan=False)
LATER = st.floats(0, 1_000_000, allow_nan=False)


class Wall:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@given(WALLS, LATER)
def test_a_first_start_at_speed_1_reads_the_unix_time_ever_after(
    start: float, later: float
) -> None:
    """The anchor was (now, floor(now)): every tick then began up to 0.97 s after its second,
    for the life of the database."""
    wall = Wall(start)
    clock = LiveClock.resume(None, 1.0, wall)
    wall.now = start + later
    assert clock.now() == math.floor(wall.now)
    restarted = LiveClock.resume(Anchor.loads(clock.anchor.dumps()), 1.0, wall)
    assert restarted.now() == math.floor(wall.now)


@given(WALLS, LATER)
def test_a_restart_at_speed_1_makes_an_older_first_starts_anchor_exact(
    created: float, later: float
) -> None:
    """A database created before the fix keeps (now, floor(now)) in ``meta``: the next start
    at speed 1 reads the Unix time again."""
    wall = Wall(created + later)
    saved = Anchor(created, math.floor(created), 1.0)
    clock = LiveClock.resume(saved, 1.0, wall)
    assert clock.now() == math.floor(wall.now)
    assert clock.now() >= saved.tick_at(wall.now), "no tick goes back"


def test_a_change_of_speed_continues_from_when_the_tick_reached_began() -> None:
    """At wall 10.5 at speed 1, tick 10 began at wall 10.0: at speed 2 from then, tick 11
    begins at 10.5, not half a second later."""
    wall = Wall(10.5)
    faster = LiveClock.resume(Anchor(0.0, 0, 1.0), 2.0, wall)
    assert faster.now() == 11
    wall.now = 10.75
    assert faster.now() == 11
    wall.now = 11.0
    assert faster.now() == 12


@given(WALLS, st.floats(0.5, 1000), st.floats(0.5, 1000), LATER)
def test_a_change_of_speed_never_moves_the_tick_back(
    start: float, before: float, after: float, later: float
) -> None:
    wall = Wall(start)
    saved = LiveClock.resume(None, before, wall).anchor
    wall.now = start + later
    reached = saved.tick_at(wall.now)
    assert LiveClock.resume(saved, after, wall).now() >= reached
