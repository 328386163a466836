"""Moving through a history, and saying what each move changed.

Every move returns a :class:`Change`: the events the move added (forward) or undid (backward).
Views update their indexes from those events, so a step costs what it changed, not the size of
the run. Events undone by a rewind are copied out of the log *before* the rewind, because a
history rewinds by truncating the log in place (a keyframe's restore): the copy stays valid,
since the state at a tick does not depend on how it was reached.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from engine.core import Engine
from engine.model.commands import Command, Result
from engine.model.events import Event
from engine.play.history import History
from tui.model.collector import collector_paused


@dataclass(frozen=True, slots=True)
class Change:
    """What one move did to the state on screen."""

    before: int
    after: int
    events: Sequence[Event]
    """Forward: the events added, in order. Backward: the events undone, in order."""
    forward: bool
    rebuild: bool = False
    """The engine was replaced in a way the events do not describe: rebuild every view."""
    command: bool = False
    """A user command was applied: it may change state without an event (a manual dispatch
    creates due occurrences silently), so views look again even when ``events`` is empty."""

    @property
    def moved(self) -> bool:
        return self.before != self.after or bool(self.events) or self.rebuild or self.command


def merge(changes: Sequence[Change]) -> Change:
    """Consecutive forward changes as one (a fast-forward that redraws every few slices)."""
    events: list[Event] = []
    for change in changes:
        assert change.forward, "only forward changes merge"
        events.extend(change.events)
    return Change(
        changes[0].before,
        changes[-1].after,
        events,
        forward=True,
        rebuild=any(change.rebuild for change in changes),
    )


class Navigator:
    """Steps, jumps and seeks through a :class:`History`, each returning a :class:`Change`."""

    def __init__(self, history: History) -> None:
        self.history = history
        self.start = 0
        """The first tick to go to: 0, or where a live service's journal starts (its history
        has nothing before, and tick 0 is 1970)."""

    @property
    def engine(self) -> Engine:
        return self.history.engine

    @property
    def tick(self) -> int:
        return self.history.tick

    # ---------------------------------------------------------------- moves

    def step(self, count: int = 1) -> Change:
        """``count`` event ticks forward (positive) or back (negative)."""
        if count >= 0:
            return self._forward(lambda: self.history.forward(count))
        return self.seek(self._back_target(-count))

    def first(self) -> Change:
        return self.seek(self.start)

    def last(self) -> Change:
        """The last tick: ``until`` when the run has one, else its horizon (end_target)."""
        return self.seek(self.end_target())

    def end_target(self) -> int:
        """Where ``end`` goes: ``until``, or the horizon of an open-ended run; from the horizon
        itself, a chunk further (each press plays a bounded stretch, never "forever")."""
        history = self.history
        target = history.last_tick()
        if history.open_ended and history.tick >= target:
            target = history.tick + history.horizon_chunk
        return target

    def seek(self, tick: int) -> Change:
        history = self.history
        tick = max(self.start, tick)
        if history.until is not None:
            tick = min(tick, max(history.until, history.tick))
        if tick >= history.tick:
            return self._forward(lambda: history.seek(tick))
        before, log = history.tick, history.engine.log
        undone = list(log[log.first_index_at(tick + 1) :])
        with collector_paused():
            history.seek(tick)
        return Change(before, history.tick, undone, forward=False)

    # -------------------------------------------------------------- commands

    def apply(self, command: Command) -> tuple[Result, Change]:
        """A user command at the current tick (a new future when rewound)."""
        history = self.history
        results: list[Result] = []
        change = self._forward(lambda: results.append(history.apply(command)))
        if results[0].accepted:
            change = dataclasses.replace(change, command=True)
        return results[0], change

    def redo(self) -> Change | None:
        """Bring back the future the last command discarded; None if there is none."""
        before = self.history.tick
        with collector_paused():
            redone = self.history.redo_branch()
        if not redone:
            return None
        return Change(before, self.history.tick, (), forward=True, rebuild=True)

    # ------------------------------------------------------------- internals

    def _forward(self, move) -> Change:
        history = self.history
        before, engine = history.tick, history.engine
        mark = len(engine.log)
        with collector_paused():
            move()
        if history.engine is not engine or len(history.engine.log) < mark:
            return Change(before, history.tick, (), forward=True, rebuild=True)
        return Change(before, history.tick, list(engine.log[mark:]), forward=True)

    def _back_target(self, count: int) -> int:
        """The tick ``count`` event ticks before the current one (the start when there are
        fewer)."""
        ticks = self.history.event_ticks
        index = bisect.bisect_left(ticks, self.history.tick)
        if index - count < 0:
            return self.start
        return max(self.start, ticks[index - count])
