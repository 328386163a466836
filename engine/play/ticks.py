"""The one way to play a tick: the phases of a tick, timed commands, and the driver that runs them.

Every entry point (the seed 001 protocol, the CronJobScheduler facade, the scenario runner, the
history behind the dashboard) hands its commands to a :class:`TickDriver` with the tick *and the
phase* they belong to, so the order within a tick is written once, here:

1. :attr:`Phase.BEFORE_EVENTS`: commands given while the engine rests at the start of the tick,
   before anything of it has happened (seed 001: a line between two ``TICK`` lines; seed 000:
   every call, at its ``current_time``);
2. the engine's own events of the tick (attempt ends, timeouts, backoff expiries, notification
   tries, then occurrences falling due): ``Engine.begin_tick``;
3. :attr:`Phase.AFTER_EVENTS`: a scenario timeline's commands of the tick;
4. automatic dispatch: ``Engine.settle``;
5. :attr:`Phase.AFTER_DISPATCH`: a command a user issues while looking at the settled tick (the
   dashboard); the tick settles again after each one, so what it made ready is dispatched.

A driver only moves forward. Going back is the history's job (it rolls the engine back and tells
the driver where it stands with :meth:`TickDriver.settled_at`).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

from engine.core import Engine
from engine.model.commands import Command, Result
from engine.model.values import value


class Phase(IntEnum):
    """Where in its tick a timed command runs; commands of one tick run in this order."""

    BEFORE_EVENTS = 0
    AFTER_EVENTS = 1
    AFTER_DISPATCH = 2


class _Stage(IntEnum):
    """How far the processing of the engine's current tick (``engine.now``) has gone."""

    START = 0
    """Nothing of the tick has happened: BEFORE_EVENTS commands may still run."""
    EVENTS = 1
    """The tick's own events have run; dispatch has not."""
    SETTLED = 2
    """Dispatched: only AFTER_DISPATCH commands may still run at this tick."""


_START = _Stage.START
"""Read once: in Python 3.11 an enum member read through its class costs a tenth of a
microsecond (the enum metaclass's ``__getattr__`` hook), and every command of the facades
checks the stage (seed 000's maximum workload sends 140,000)."""

_LATEST_STAGE = {
    Phase.BEFORE_EVENTS: _Stage.START,
    Phase.AFTER_EVENTS: _Stage.EVENTS,
    Phase.AFTER_DISPATCH: _Stage.SETTLED,
}
"""The latest stage at which commands of each phase can still run."""


@value
class TimedCommand:
    """A command and the place in time it runs at."""

    tick: int
    phase: Phase
    command: Command


class OutOfOrder(ValueError):
    """A command was given for a place in time the driver has already passed."""


class TickDriver:
    """Plays an engine forward through ticks and the commands given for them."""

    __slots__ = ("_stage", "engine")

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._stage = _Stage.START

    def apply(self, timed: TimedCommand) -> Result:
        """Run everything before ``timed``'s place in time, then the command itself."""
        self.reach(timed.tick, timed.phase)
        result = self.engine.apply(timed.command)
        if timed.phase is Phase.AFTER_DISPATCH:
            self.engine.settle()
        return result

    def apply_now(self, command: Command) -> Result:
        """Run ``command`` at the start of the engine's current tick, before its events: what
        the facades' commands do, with nothing to build per call. (Their commonest calls, seed
        000's schedule and complete and seed 001's SUBMIT, call the engine's method for the
        command directly: a facade only ever rests at the start of a tick between calls; and
        seed 000's moves to a later tick with ``Engine.advance``, which is all :meth:`start`
        does from the start of a tick.)"""
        if self._stage is not _START:
            raise OutOfOrder(
                f"tick {self.engine.now} (before_events) has passed: the engine is at tick "
                f"{self.engine.now} ({self._stage.name.lower()})"
            )
        return self.engine.apply(command)

    def reach(self, tick: int, phase: Phase) -> None:
        """Run everything that comes before the commands of ``phase`` at ``tick``."""
        engine = self.engine
        if tick == engine.now and phase is Phase.BEFORE_EVENTS and self._stage is _Stage.START:
            return  # the common case of the facades: nothing to run first
        if tick > engine.now:
            engine.advance(tick)
            self._stage = _Stage.START
        elif tick < engine.now or _LATEST_STAGE[phase] < self._stage:
            raise OutOfOrder(
                f"tick {tick} ({phase.name.lower()}) has passed: the engine is at tick "
                f"{engine.now} ({self._stage.name.lower()})"
            )
        if phase >= Phase.AFTER_EVENTS and self._stage is _Stage.START:
            engine.begin_tick()
            self._stage = _Stage.EVENTS
        if phase is Phase.AFTER_DISPATCH and self._stage is _Stage.EVENTS:
            engine.settle()
            self._stage = _Stage.SETTLED

    def finish(self, tick: int) -> None:
        """Play ``tick`` to its end (its own events and its dispatch), and every tick before."""
        self.reach(tick, Phase.AFTER_DISPATCH)

    def start(self, tick: int) -> None:
        """Play every tick before ``tick`` and rest at its start, as seed 001's ``TICK`` does."""
        engine = self.engine
        now = engine.now  # read once: a property's call, and every facade call may move time
        if tick > now:
            engine.advance(tick)
            self._stage = _START
        elif tick < now:
            raise OutOfOrder(f"tick {tick} has passed: the engine is at tick {now}")

    def settled_at(self, tick: int) -> None:
        """The engine was rolled back to the end of ``tick`` (``-1``: before anything ran)."""
        self._stage = _Stage.SETTLED if self.engine.now == tick else _Stage.START


def at_ticks(
    commands: Iterable[tuple[int, Command]], phase: Phase = Phase.AFTER_EVENTS
) -> list[TimedCommand]:
    """``(tick, command)`` pairs as timed commands of one phase (by default a timeline's)."""
    return [TimedCommand(tick, phase, command) for tick, command in commands]
