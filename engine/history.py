"""Time travel: a recorded run of the engine that steps, rewinds and seeks to any tick.

A :class:`History` owns an engine and the commands that drive it: the scenario's timeline (part of
the world being simulated) and the commands a user issues while watching (the user's branch).
Its position is a tick; the state shown is the state at the *end* of that tick (its own events,
its commands, its dispatch). Ticks at which something happened are the steps.

Exactness comes from determinism: the engine's state at a tick is a pure function of its policy,
seed and the commands before it, so any state can be rebuilt by replay. While it runs forward the
history leaves a restore point (:meth:`Engine.mark`, see :mod:`engine.journal`) after every tick
it plays, which costs microseconds; ``seek`` backwards rolls the engine back to the restore point
of the last played tick at or before the target. A step back therefore costs what changed in that
step, whatever the size of the state. Forwards, within what was already played, the history either
replays the ticks in between or returns to the furthest state and rolls back from there,
whichever touches fewer events.

Commands after a rewind: a user command issued at tick T discards the user commands recorded
after T (the scenario's own timeline stays: it is the world, not the user's edit) and the future
is recomputed from T. Until the next command, ``redo_branch()`` brings the discarded commands back
and removes the new one, like redo after an undo in an editor.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.commands import Command, Result
from engine.core import Engine
from engine.events import Event
from engine.journal import Mark
from engine.ticks import Phase, TickDriver, TimedCommand

REPLAY_COST = 8
"""How much more replaying an event costs than undoing or redoing one (measured, roughly)."""


@dataclass(slots=True)
class _Branch:
    """User commands discarded by the last command issued while rewound, kept for redo."""

    discarded: list[TimedCommand]
    replaced_by: TimedCommand


@dataclass(slots=True)
class _Recording:
    """What the furthest run so far has seen: the ticks with events, for stepping and scrubbing."""

    event_ticks: list[int] = field(default_factory=list)
    reached: int = -1
    """The furthest tick whose events are known."""


class History:
    """A recorded, rewindable run of one engine."""

    def __init__(
        self,
        new_engine: Callable[[], Engine],
        timeline: Sequence[TimedCommand] = (),
        until: int | None = None,
    ) -> None:
        self._new_engine = new_engine
        self._scenario: dict[int, list[TimedCommand]] = {}
        for timed in timeline:
            self._scenario.setdefault(timed.tick, []).append(timed)
        self._scenario_ticks = sorted(self._scenario)
        self._user: list[TimedCommand] = []
        self._branch: _Branch | None = None
        self.until = until
        self._recording = _Recording()
        self._engine = new_engine()
        self._driver = TickDriver(self._engine)
        self._tick = -1
        self._marks: list[tuple[int, Mark]] = [(-1, self._engine.mark())]
        self._head_marks: list[tuple[int, Mark]] = []
        """While the engine keeps a head: the restore points up to it."""
        self._run_to(0)

    # --------------------------------------------------------------- reading

    @property
    def engine(self) -> Engine:
        """The engine at the current tick. Read it; change it only through :meth:`apply`."""
        return self._engine

    @property
    def tick(self) -> int:
        return self._tick

    @property
    def event_ticks(self) -> Sequence[int]:
        """Ticks with at least one event, as far as the run has been recorded."""
        return self._recording.event_ticks

    @property
    def recorded_through(self) -> int:
        return self._recording.reached

    def events_at(self, tick: int) -> list[Event]:
        """The events of one tick, in order (only for ticks up to the current one)."""
        log = self._engine.log
        low = log.first_index_at(tick)
        high = log.first_index_at(tick + 1)
        return list(log[low:high])

    def last_tick(self) -> int:
        """The last tick one can step to: ``until``, else the last recorded event tick."""
        if self.until is not None:
            return self.until
        return max(self._recording.reached, self._tick)

    # -------------------------------------------------------------- stepping

    def seek(self, tick: int) -> None:
        """Make ``tick`` the current tick; the state is that of a fresh run to ``tick``."""
        self._seek(max(0, tick))

    def _seek(self, tick: int) -> None:
        if tick < self._tick:
            self._rewind_to(tick)
        elif tick > self._tick and self._head_is_cheaper(tick):
            head_tick = self._head_marks[-1][0]
            self._marks = [*self._head_marks, (head_tick, self._engine.restore_head())]
            self._tick = head_tick
            self._driver.settled_at(head_tick)
            if tick < head_tick:
                self._rewind_to(tick)
        self._run_to(tick)

    def step_forward(self) -> bool:
        """Move to the next tick with events; False when there is none before the end.

        Beyond what has been recorded, the engine's next timer may turn out to be idle (a
        timeout for an attempt that already ended), so ticks are played until one has events."""
        moved = False
        while (upcoming := self._next_event_tick_after(self._tick)) is not None:
            self.seek(upcoming)
            moved = True
            if self._has_events(upcoming):
                break
        return moved

    def _has_events(self, tick: int) -> bool:
        ticks = self._recording.event_ticks
        index = bisect.bisect_left(ticks, tick)
        return index < len(ticks) and ticks[index] == tick

    def step_back(self) -> bool:
        """Move to the previous tick with events; False at the first."""
        index = bisect.bisect_left(self._recording.event_ticks, self._tick)
        if index == 0:
            if self._tick == 0:
                return False
            self.seek(0)
            return True
        self.seek(self._recording.event_ticks[index - 1])
        return True

    def forward(self, steps: int) -> int:
        """Step forward up to ``steps`` event ticks; returns how many were taken."""
        taken = 0
        while taken < steps and self.step_forward():
            taken += 1
        return taken

    def back(self, steps: int) -> int:
        """Step back up to ``steps`` event ticks at once; returns how many were taken."""
        ticks = self._recording.event_ticks
        index = bisect.bisect_left(ticks, self._tick)
        target_index = max(0, index - steps)
        taken = index - target_index
        if taken == 0:
            return 0
        self.seek(ticks[target_index])
        return taken

    # ------------------------------------------------------------- commands

    def apply(self, command: Command) -> Result:
        """Apply a user command at the current tick, starting a new future from here."""
        timed = TimedCommand(self._tick, Phase.AFTER_DISPATCH, command)
        future = [c for c in self._user if c.tick > self._tick]
        result = self._driver.apply(timed)
        if not result.accepted:
            return result
        self._forget_head()
        self._drop_marks_from(self._tick)
        self._marks.append((self._tick, self._engine.mark(self._marks[-1][1])))
        self._user = [c for c in self._user if c.tick <= self._tick] + [timed]
        self._branch = _Branch(future, timed) if future else None
        self._forget_recording_after(self._tick - 1)
        self._record(self._engine)
        return result

    def redo_branch(self) -> bool:
        """Bring back the future the last command discarded; False if there is none."""
        branch = self._branch
        if branch is None:
            return False
        self._redo(branch)
        return True

    def _redo(self, branch: _Branch) -> None:
        self._branch = None
        self._user.remove(branch.replaced_by)
        self._user.extend(branch.discarded)
        self._forget_recording_after(branch.replaced_by.tick - 1)
        tick = self._tick
        self._forget_head()
        self._drop_marks_from(branch.replaced_by.tick)
        self._rewind_to(tick)
        self._run_to(tick)

    # ------------------------------------------------------------- internals

    def _next_command_tick(self, after: int) -> int | None:
        """The first tick after ``after`` with a scenario or user command."""
        ticks = self._scenario_ticks
        index = bisect.bisect_right(ticks, after)
        found = ticks[index] if index < len(ticks) else None
        for timed in self._user:
            if timed.tick > after and (found is None or timed.tick < found):
                found = timed.tick
        return found

    def _head_is_cheaper(self, tick: int) -> bool:
        """Whether returning to the head and rolling back beats replaying up to ``tick``."""
        span = self._engine.head_log_span()
        if span is None:
            return False
        lowest, head = span
        marks = self._head_marks
        index = bisect.bisect_right(marks, tick, key=lambda pair: pair[0]) - 1
        at_target = marks[index][1].log_length
        replay = at_target - len(self._engine.log)
        return (head - lowest) + (head - at_target) < REPLAY_COST * replay

    def _forget_head(self) -> None:
        self._engine.drop_head()
        self._head_marks = []

    def _rewind_to(self, tick: int) -> None:
        """Roll the engine back to the last restore point at or before ``tick``."""
        if not self._engine.has_head:
            self._head_marks = list(self._marks)
        index = bisect.bisect_right(self._marks, tick, key=lambda pair: pair[0]) - 1
        mark_tick, mark = self._marks[index]
        del self._marks[index + 1 :]
        self._engine.rollback(mark)
        self._tick = mark_tick
        self._driver.settled_at(mark_tick)

    def _drop_marks_from(self, tick: int) -> None:
        """Restore points at or after ``tick`` no longer describe the run (a command changed it)."""
        index = bisect.bisect_left(self._marks, tick, key=lambda pair: pair[0])
        del self._marks[max(index, 1) :]

    def _run_to(self, target: int) -> None:
        """Run forward, one tick where something happens at a time, to the end of ``target``."""
        engine = self._engine
        while self._tick < target:
            upcoming = engine.next_event_tick() if self._tick >= 0 else 0
            command_tick = self._next_command_tick(self._tick)
            step = target
            for candidate in (upcoming, command_tick):
                if candidate is not None and self._tick < candidate < step:
                    step = candidate
            self._play_tick(step)
            self._marks.append((self._tick, engine.mark(self._marks[-1][1])))
            if self._head_marks and self._tick >= self._head_marks[-1][0]:
                self._forget_head()
        self._record(engine)

    def _play_tick(self, tick: int) -> None:
        """The tick's commands, scenario's before user's within a phase, then the tick's end."""
        commands = [*self._scenario.get(tick, ()), *(c for c in self._user if c.tick == tick)]
        driver = self._driver
        for timed in sorted(commands, key=lambda timed: timed.phase):
            driver.apply(timed)
        driver.finish(tick)
        self._tick = tick

    def _record(self, engine: Engine) -> None:
        recording = self._recording
        if self._tick <= recording.reached:
            return
        log = engine.log
        start = log.first_index_at(recording.reached + 1)
        ticks = recording.event_ticks
        for index in range(start, len(log)):
            tick = log[index].tick
            if not ticks or ticks[-1] != tick:
                ticks.append(tick)
        recording.reached = self._tick

    def _forget_recording_after(self, tick: int) -> None:
        recording = self._recording
        del recording.event_ticks[bisect.bisect_right(recording.event_ticks, tick) :]
        recording.reached = min(recording.reached, tick)

    def _next_event_tick_after(self, tick: int) -> int | None:
        ticks = self._recording.event_ticks
        index = bisect.bisect_right(ticks, tick)
        if index < len(ticks):
            return ticks[index]
        engine = self._engine
        candidates = (engine.next_event_tick(), self._next_command_tick(tick))
        upcoming = [t for t in candidates if t is not None and t > tick]
        if self.until is not None:
            upcoming = [t for t in upcoming if t <= self.until]
        return min(upcoming, default=None)
