"""Time travel: a recorded run of the engine that steps, rewinds and seeks to any tick.

A :class:`History` owns an engine and the commands that drive it: the scenario's timeline (part of
the world being simulated) and the commands a user issues while watching (the user's branch).
Its position is a tick; the state shown is the state at the *end* of that tick (its own events,
its commands, its dispatch). Ticks at which something happened are the steps.

Exactness comes from determinism: the engine's state at a tick is a pure function of its policy,
seed and the commands before it, so any state can be rebuilt by replay. While it records, the
history takes a keyframe (:mod:`engine.rewind.frames`) every :data:`SPAN_COST` ticks and events;
nothing else is kept while the engine plays. Any move backwards restores the last keyframe at or
before the target and replays from there, at most one span; a move forward past a keyframe
restores it rather than replaying up to it. A restore costs what changed between the state left
and the keyframe, not the size of the state, and an engine that archives its finished runs
(:mod:`engine.parts.run_archive`) is rewound the same way (its archive is truncated).

Commands after a rewind: a user command issued at tick T discards the user commands recorded
after T (the scenario's own timeline stays: it is the world, not the user's edit) and the future
is recomputed from T. Until the next command, ``redo_branch()`` brings the discarded commands back
and removes the new one, like redo after an undo in an editor. The future replaced may hold no user
command at all (the file's own): issued while rewound, a command still replaces a future that was
played, and redo and :meth:`History.futures` bring that one back as they would any other.

A history may start later than tick 0 (``start``): from an engine already played to the end of
that tick (the live dashboard on a service whose early journal was deleted, which starts from a
snapshot of its state). Its first keyframe is that state; nothing goes back before it, and a
command cannot be given at it (the keyframe is all there is of that tick).
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter

from engine.core import Engine
from engine.model.commands import Command, Outcome, Result, refused
from engine.model.events import Event
from engine.model.problems import Code
from engine.play.event_ticks import EventTicks
from engine.play.ticks import Phase, TickDriver, TimedCommand
from engine.rewind.frames import Frames

HORIZON_CHUNK = 1_000
"""Ticks by which an open-ended run's horizon (:meth:`History.last_tick`) grows."""
SPAN_COST = 1_000
"""Ticks played plus events between two keyframes taken while recording: what a rewind replays at
most, against the time and memory of a keyframe. A step back and a seek are what a user waits
on, so the span is short: twice as long took the recording from 1.60x to 1.53x a bare play's
instructions at seed 000's sizes (callgrind) and a tenth off the keyframes' memory, and doubled
the replay behind every step back and seek: in one quiet run the median step back went from 1 ms
to 10 ms and the worst from 10.8 ms to 15.2 ms, against a 16 ms target, for a recording still
over 1.5x. ``benchmarks/history.py --span-costs 1000,2000`` measures both sides."""


@dataclass(slots=True)
class _Branch:
    """The future the last command issued while rewound replaced, kept for redo: the user
    commands it discarded (none when that future was the timeline's own) and the command."""

    discarded: list[TimedCommand]
    replaced_by: TimedCommand


@dataclass(slots=True)
class _Span:
    """The keyframes one run forward of a history takes: where its steps end, one is taken when
    the span since the last is due (:data:`SPAN_COST`). Only the rare steps come here: the
    commands' steps are counted in :meth:`History._run_to`'s loop."""

    driver: TickDriver
    frames: Frames
    labels: list[int]
    steps: EventTicks
    """The steps known, brought up to each keyframe as it is taken, while the span's events are
    still in the processor's caches: one pass over seed 000's 111,000 events at the end of its
    recording took 26 ms, the passes at its 205 keyframes 11 to 16 ms."""
    events: Callable[[], int]
    """The events stored in the engine's log, counted in C
    (:meth:`engine.model.event_log.EventLog.growth`)."""
    start: int
    """Where the run starts: not a step of it."""
    limit: int
    """The span's cost at which a keyframe is due (no limit behind the furthest keyframe)."""
    last: int | None
    """The last tick of a bounded run, a keyframe too when ahead of the furthest (else None):
    going back to the end then restores it rather than replaying a span."""

    def spent_then(self, cost: int) -> int:
        """What :meth:`History._run_to` counts for a span that has cost ``cost`` so far."""
        return cost - self.events()

    def end_step(self, tick: int, spent: int) -> int:
        """The step at ``tick`` ended: take a keyframe there if one is due; the span's count."""
        cost = spent + self.events()
        if tick != self.start and (cost >= self.limit or (tick == self.last and cost > 0)):
            self.driver.finish(tick)
            self.frames.take(tick)
            self.labels.append(tick)
            self.steps.record(self.driver.engine.log, tick)
            return -self.events()
        return spent

    def engine_steps(self, tick: int, before: int, spent: int) -> tuple[int, int]:
        """Play the ticks after ``tick`` and before ``before`` at which the engine has something
        to do on its own (after tick -1, tick 0), each a step; the last played and the count."""
        next_event_tick = self.driver.engine.next_event_tick
        while (upcoming := next_event_tick() if tick >= 0 else 0) is not None:
            if upcoming >= before:
                break
            self.driver.finish(upcoming)
            tick = upcoming
            spent = self.end_step(tick, spent + 1)
        return tick, spent


class History:
    """A recorded, rewindable run of one engine."""

    def __init__(
        self,
        new_engine: Callable[[], Engine],
        timeline: Sequence[TimedCommand] = (),
        until: int | None = None,
        span_cost: int = SPAN_COST,
        user: Sequence[TimedCommand] = (),
        horizon_chunk: int = HORIZON_CHUNK,
        start: int = -1,
    ) -> None:
        """``new_engine`` makes the engine as it is at the end of tick ``start`` (-1: a new
        engine, before anything ran), each time it is called; the timeline's commands come
        after ``start``."""
        self._new_engine = new_engine
        self._start = start
        self._scenario, self._scenario_ticks = _in_run_order(timeline)
        """In the order the commands run: by tick, then phase (the timeline's order within a
        phase); and their ticks."""
        self._user: list[TimedCommand] = sorted(user, key=lambda timed: timed.tick)
        self._branch: _Branch | None = None
        self.until = until
        self.horizon_chunk = max(1, horizon_chunk)
        self._first_horizon = self._round_up(self._scenario_ticks[-1] if self._scenario else 0)
        """An open-ended run's first horizon: past the scenario's last command."""
        self._recording = EventTicks()
        self._engine = new_engine()
        if start >= 0:  # what it logged getting there is before the history: not its steps
            self._engine.log.truncate(0)
        self._frames = self._engine.record_keyframes()
        self._labels: list[int] = [start]
        """The ticks of the keyframes, in order (the first is the engine ``new_engine`` made)."""
        self._driver = TickDriver(self._engine)
        self._driver.settled_at(start)
        self._tick = start
        self._span_cost = 0
        """Ticks played and events since the keyframe the state follows."""
        self.span_cost_limit = span_cost
        self._run_to(self.first_tick)

    # --------------------------------------------------------------- reading

    @property
    def engine(self) -> Engine:
        """The engine at the current tick. Read it; change it only through :meth:`apply`."""
        return self._engine

    @property
    def tick(self) -> int:
        return self._tick

    @property
    def first_tick(self) -> int:
        """The earliest tick a history goes to: 0, or the tick it started from."""
        return max(0, self._start)

    @property
    def event_ticks(self) -> Sequence[int]:
        """Ticks with at least one event, as far as the run has been recorded."""
        return self._recording.ticks

    @property
    def keyframes(self) -> Sequence[int]:
        """The ticks of the keyframes taken so far (for measuring their cost)."""
        return self._labels

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
        """The end of the run: ``until``, else the horizon of an open-ended run.

        A run without ``until`` never ends, yet a screen needs an end to show and to go to. Its
        horizon is the furthest tick known so far rounded up to ``horizon_chunk`` ticks (at
        least one chunk, and past the scenario's last command): it grows a chunk at a time as
        the run is played further, and comes back when a command forgets the future after it."""
        if self.until is not None:
            return self.until
        return max(self._first_horizon, self._round_up(max(self._recording.reached, self._tick)))

    @property
    def open_ended(self) -> bool:
        """True when the run has no ``until``: its end is a horizon that moves."""
        return self.until is None

    def _round_up(self, tick: int) -> int:
        """The first multiple of the chunk at or after ``tick``, and never 0."""
        chunk = self.horizon_chunk
        return max(chunk, -(-tick // chunk) * chunk)

    # -------------------------------------------------------------- stepping

    def seek(self, tick: int) -> None:
        """Make ``tick`` the current tick (the first tick, if it is before); the state is that of
        a fresh run to ``tick``."""
        self._seek(max(self.first_tick, tick))

    def _seek(self, tick: int) -> None:
        if tick < self._tick:
            self._rewind_to(tick)
        self._run_to(tick)

    def step_forward(self) -> bool:
        """Move to the next tick with events, or past the last of them to ``until``; False at
        the end.

        Beyond what has been recorded, the engine's next timer may turn out to be idle (a
        timeout for an attempt that already ended), so ticks are played until one has events.
        The last tick is a stop as tick 0 is for ``step_back``: a run's expectations are about
        it, and stepping or playing that stopped at the last events never showed it."""
        moved = False
        while (upcoming := self._next_event_tick_after(self._tick)) is not None:
            self.seek(upcoming)
            moved = True
            if self._recording.has_events(upcoming):
                return True
        if self.until is not None and self._tick < self.until:
            self.seek(self.until)
            moved = True
        return moved

    def step_back(self) -> bool:
        """Move to the previous tick with events; False at the first."""
        index = bisect.bisect_left(self._recording.ticks, self._tick)
        if index == 0:
            if self._tick == self.first_tick:
                return False
            self.seek(self.first_tick)
            return True
        self.seek(self._recording.ticks[index - 1])
        return True

    def forward(self, steps: int) -> int:
        """Step forward up to ``steps`` event ticks; returns how many were taken."""
        taken = 0
        while taken < steps and self.step_forward():
            taken += 1
        return taken

    def back(self, steps: int) -> int:
        """Step back up to ``steps`` event ticks at once; returns how many were taken."""
        ticks = self._recording.ticks
        index = bisect.bisect_left(ticks, self._tick)
        target_index = max(0, index - steps)
        taken = index - target_index
        if taken == 0:
            return 0
        self.seek(ticks[target_index])
        return taken

    # ------------------------------------------------------------- commands

    def apply(self, command: Command) -> Result:
        """Apply a user command at the current tick, starting a new future from here; refused
        at the tick a history that starts later started from (see the module's docstring)."""
        tick = self._tick
        if tick == self._start:
            message = f"the history starts at the end of tick {tick}: give a command after it"
            return refused(Outcome.CONFLICT, Code.BEFORE_NOW, message)
        timed = TimedCommand(tick, Phase.AFTER_DISPATCH, command)
        future = [c for c in self._user if c.tick > tick]
        rewound = tick < self._recording.reached
        first_changed = bisect.bisect_left(self._labels, tick)
        if self._frames.base >= first_changed:
            # The command changes the state at the end of this tick, which that keyframe is:
            # the state must follow an earlier one before it is forgotten.
            self._restore(first_changed - 1)
            self._run_to(tick, snap=False)
        result = self._driver.apply(timed)
        if not result.accepted:
            return result
        self._drop_keyframes_from(tick)
        self._user = [c for c in self._user if c.tick <= tick] + [timed]
        self._branch = _Branch(future, timed) if future or rewound else None
        self._recording.forget_after(tick - 1)
        self._recording.record(self._engine.log, self._tick)
        return result

    def redo_branch(self) -> bool:
        """Bring back the future the last command discarded; False if there is none."""
        branch = self._branch
        if branch is None:
            return False
        self._redo(branch)
        return True

    def futures(self) -> tuple[History, History] | None:
        """The future the last command replaced and this one, each as a new history at its start
        (this one is left where it is), for comparing them; None when no command replaced a
        future, that is when the last one was issued at the furthest tick played (the same as
        when :meth:`redo_branch` has nothing to bring back)."""
        branch = self._branch
        if branch is None:
            return None
        kept = [c for c in self._user if c is not branch.replaced_by]
        return (
            History(
                self._new_engine,
                self._scenario,
                self.until,
                user=kept + branch.discarded,
                start=self._start,
            ),
            History(
                self._new_engine, self._scenario, self.until, user=self._user, start=self._start
            ),
        )

    def _redo(self, branch: _Branch) -> None:
        self._branch = None
        tick = self._tick
        changed = branch.replaced_by.tick
        self._seek(changed - 1)
        self._drop_keyframes_from(changed)
        self._user.remove(branch.replaced_by)
        self._user.extend(branch.discarded)
        self._recording.forget_after(changed - 1)
        self._seek(tick)

    @property
    def user_commands(self) -> Sequence[TimedCommand]:
        """The user's commands in force, in tick order (a what-if on a live service's run)."""
        return self._user

    def drop_user_commands(self) -> bool:
        """Forget the user's commands (and the future they set aside): the run is the timeline's
        alone again. The history moves back to before the first of them; False if none."""
        if not self._user:
            return False
        first = self._user[0].tick
        if self._tick >= first:
            self._seek(first - 1)
        self._drop_keyframes_from(first)
        self._user.clear()
        self._branch = None
        self._recording.forget_after(first - 1)
        return True

    def extend(self, timeline: Sequence[TimedCommand]) -> None:
        """Append to the timeline commands that happened since (a live journal's new rows).

        They come in tick order, at or after the timeline's last command and after the current
        tick (move back first): what was recorded from their first tick on is forgotten."""
        if not timeline:
            return
        ticks = [timed.tick for timed in timeline]
        last = self._scenario_ticks[-1] if self._scenario_ticks else ticks[0]
        if ticks[0] <= self._tick or ticks[0] < last or ticks != sorted(ticks):
            raise ValueError(
                f"commands at ticks {ticks[0]}..{ticks[-1]} do not follow the timeline "
                f"(its last command at {last}, the history at {self._tick})"
            )
        self._drop_keyframes_from(ticks[0])
        low = bisect.bisect_left(self._scenario_ticks, ticks[0])
        tail, tail_ticks = _in_run_order([*self._scenario[low:], *timeline])
        self._scenario[low:] = tail
        self._scenario_ticks[low:] = tail_ticks
        self._recording.forget_after(ticks[0] - 1)

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

    def _rewind_to(self, tick: int) -> None:
        """Restore the last keyframe at or before ``tick``."""
        self._restore(bisect.bisect_right(self._labels, tick) - 1)

    def _restore(self, index: int) -> None:
        self._frames.restore(index)
        label = self._labels[index]
        self._tick = label
        self._driver.settled_at(label)
        self._span_cost = 0

    def _drop_keyframes_from(self, tick: int) -> None:
        """Keyframes at or after ``tick`` no longer describe the run (a command changed it)."""
        index = bisect.bisect_left(self._labels, tick)
        if index < len(self._labels):
            self._frames.drop_from(index)
            del self._labels[index:]

    def _run_to(self, target: int, snap: bool = True) -> None:
        """Run forward to the end of ``target``, restoring the furthest keyframe ahead first
        (unless not ``snap``) rather than replaying up to it.

        This is the recording's hot loop, so it does what a bare play does (each command through
        the tick driver, which plays the ticks before it) and little more: a step is a tick with
        commands or, between them, one where the engine has something to do; each counts, with
        its events, towards the next keyframe. Only a keyframe's tick and ``target`` are ended
        explicitly (the next command's tick ends the ticks before it, as in a bare play); the
        commands come from one slice taken before, not a search per tick.

        The loop goes over the commands, not the steps: a step ends where the next begins, so
        its keyframe is looked for then, and only the rare steps (the engine's own, a keyframe)
        make a call. At seed 000's sizes (93,000 commands on 92,002 ticks) a loop over the steps
        indexing the commands cost 494 M instructions more than a bare play's loop, this one
        112 M (callgrind, the loops on those ticks with the driver's calls stubbed out); the
        process of a recording (its timeline's building included) went from 19,189 M to 18,722 M
        with the engine asked less (below)."""
        if snap:
            self._restore_ahead(target)
        engine, driver, log = self._engine, self._driver, self._engine.log
        apply, events = driver.apply, log.growth()
        # Between two commands the engine is asked for its next tick (a Python call with two
        # more) only when the first items of its own heaps are before the command: what
        # ``next_event_tick`` reads, read here in place. At seed 000's sizes it was asked in
        # each of 92,001 gaps and none held anything (112 M instructions).
        timers, due = engine.own_queues()
        span, taken_before = self._span(events), len(self._labels)
        tick = self._tick
        # The span's cost is its steps and its events: ``spent`` counts the steps less the
        # log's length when the span began, so its cost is ``spent + events()``, one call in C.
        spent, limit, last = span.spent_then(self._span_cost), span.limit, span.last
        for timed in self._commands(tick, target):
            step = timed.tick
            if step != tick:  # the step before ends here, then the engine's own ones play
                if spent + events() >= limit or tick == last:
                    spent = span.end_step(tick, spent)
                if step > tick + 1 and (
                    tick < 0 or (timers and timers[0][0] < step) or (due and due[0][0] < step)
                ):
                    tick, spent = span.engine_steps(tick, step, spent)
                tick = step
                spent += 1
            apply(timed)
        if tick < target:
            spent = span.end_step(tick, spent)
            tick, spent = span.engine_steps(tick, target, spent)
            driver.finish(target)
            tick = target
            spent += 1
        spent = span.end_step(tick, spent)
        if len(self._labels) > taken_before:  # a step back from here reads the last ones
            self._frames.work_out_recent()
        self._span_cost = spent + events()
        if tick != self._tick:
            driver.finish(tick)
        self._tick = tick
        self._recording.record(log, tick)

    def _span(self, events: Callable[[], int]) -> _Span:
        """The span a run forward from here continues; keyframes only at the furthest."""
        at_frontier = self._frames.base == len(self._labels) - 1
        limit = self.span_cost_limit if at_frontier else sys.maxsize
        last = self.until if at_frontier else None
        return _Span(
            self._driver,
            self._frames,
            self._labels,
            self._recording,
            events,
            self._tick,
            limit,
            last,
        )

    def _restore_ahead(self, target: int) -> None:
        """Restore the furthest keyframe at or before ``target`` and after the current tick, if
        one is reachable from here; if it is not (an archive goes forward only as far as a rewind
        truncated it), forget the keyframes ahead: the replay records them again."""
        frames, labels = self._frames, self._labels
        ahead = bisect.bisect_right(labels, target) - 1
        if ahead > frames.base and labels[ahead] > self._tick:
            if frames.reachable(ahead):
                self._restore(ahead)
            else:
                self._drop_keyframes_from(labels[frames.base + 1])

    def _commands(self, after: int, through: int) -> list[TimedCommand]:
        """The scenario's and the user's commands at ticks after ``after`` up to ``through``, in
        the order they run: by tick, then phase, the scenario's before the user's."""
        ticks = self._scenario_ticks
        low = bisect.bisect_right(ticks, after)
        commands = self._scenario[low : bisect.bisect_right(ticks, through, low)]
        user = [timed for timed in self._user if after < timed.tick <= through]
        return sorted([*commands, *user], key=_run_order) if user else commands

    def _next_event_tick_after(self, tick: int) -> int | None:
        known = self._recording.after(tick)
        if known is not None:
            return known
        engine = self._engine
        candidates = (engine.next_event_tick(), self._next_command_tick(tick))
        upcoming = [t for t in candidates if t is not None and t > tick]
        if self.until is not None:
            upcoming = [t for t in upcoming if t <= self.until]
        return min(upcoming, default=None)


_run_order = attrgetter("tick", "phase")
"""A timed command's place in the order commands run, ``(tick, phase)``: a key in C, as a
history sorts the whole timeline when it is made."""
_tick_of, _phase_of = attrgetter("tick"), attrgetter("phase")


def _in_run_order(commands: Sequence[TimedCommand]) -> tuple[list[TimedCommand], list[int]]:
    """The commands in the order they run (:data:`_run_order`, a stable sort), and their ticks.

    A timeline of one phase in tick order (a scenario's, a journal's, the benchmark's) is in
    that order already, which C loops over its ticks tell: the sort's key made a tuple per
    command, 220 M instructions for seed 000's 93,000 where this takes 77 M (callgrind). The
    ticks in order are their sort's (a single pass over a sorted list, comparing ints in
    place): with ``operator.le`` mapped over pairs of them this took 99 M."""
    ticks = list(map(_tick_of, commands))
    if len(set(map(_phase_of, commands))) <= 1 and ticks == sorted(ticks):
        return list(commands), ticks
    ordered = sorted(commands, key=_run_order)
    return ordered, list(map(_tick_of, ordered))
