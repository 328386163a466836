"""Headless play: a scenario's timeline applied to a fresh engine in the documented tick order.

Every tick T that has timeline commands or expectations is played by the one tick driver
(:mod:`engine.play.ticks`): the engine's own events of T, the timeline's commands of T in order
(their phase is ``AFTER_EVENTS``; workers and jobs of the sections come first), automatic dispatch;
then the expectations of T, which see that state.

Then the engine runs on to the stop tick (``until``), or, when nothing recurs, until it has
nothing left to do. Time moves only by the engine's event queue, never tick by tick, so a
horizon of 10**12 costs what happens in it, not its length.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from engine.core import Engine
from engine.model.commands import Result
from engine.model.values import value
from engine.play.ticks import TickDriver, TimedCommand
from engine.scenario.checks import EventCount, Mismatch, StatusQuery
from engine.scenario.errors import Position
from engine.scenario.history_reads import HistoryReads
from engine.scenario.model import Scenario, TimelineEntry


@value
class Failure:
    """An answer or a check that did not hold: ``file:line: expected X, got Y``."""

    source: str
    pos: Position | None
    mismatch: Mismatch

    def __str__(self) -> str:
        where = self.source if self.pos is None else f"{self.source}:{self.pos.line}"
        return f"{where}: expected {self.mismatch.expected}, got {self.mismatch.actual}"


@value
class Rejection:
    """A command the engine refused although the timeline stated no answer for it."""

    entry: TimelineEntry
    result: Result


class ScenarioRunner:
    """Steps one scenario on its own engine; ``until`` overrides the scenario's ``clock.until``.

    ``archive``: the engine archives its finished runs (:class:`~engine.core.Engine`), so its
    memory follows live work. ``cronlapse sweep``, ``run`` and ``check`` ask for it; ``run`` and
    ``check`` also release the log's events as they read them (:meth:`release_events`)."""

    def __init__(
        self, scenario: Scenario, until: int | None = None, *, archive: bool = False
    ) -> None:
        self.scenario = scenario
        self.engine: Engine = scenario.new_engine(archive)
        self._driver = TickDriver(self.engine)
        self.until = scenario.until if until is None else until
        self.failures: list[Failure] = []
        self.rejections: list[Rejection] = []
        self.checked = 0
        """How many answers and expectations have been compared so far."""
        self.processed = -1
        """The last tick fully processed (-1 before tick 0)."""
        self._entry = 0
        self._expectation = 0
        self._reads: HistoryReads | None = None
        self.counts_events = any(isinstance(e.check, EventCount) for e in scenario.expectations)
        """Whether an expectation counts the log's events: it reads the whole log, which must
        then be kept."""

    @property
    def stop(self) -> int | None:
        """Where a full run ends: ``until``; without it the last timeline or expect tick for a
        scenario that would never run out of work, or None (until the engine is idle)."""
        if self.until is not None:
            return self.until
        return self.scenario.last_tick if self.scenario.endless else None

    @property
    def entries_played(self) -> int:
        """How many timeline entries (commands and status queries) have been played so far:
        what changes jobs and their rules between two values is a command among them."""
        return self._entry

    def release_events(self, before: int) -> None:
        """Let the log forget its events before index ``before``, which the caller has read,
        unless an expectation still counts them (:attr:`counts_events`)."""
        if not self.counts_events:
            self.engine.log.release(before)

    def history_read_from(self) -> int | None:
        """The earliest tick whose finished runs the rest of the scenario may read back, at
        most now: the engine may forget what lies before it (:meth:`Engine.forget_archived`)
        and answer the rest as if it had not. None while a check still to come reads the whole
        history (see :mod:`engine.scenario.history_reads`)."""
        if self._reads is None:
            self._reads = HistoryReads(self.scenario)
        return self._reads.read_from(self.engine, self._entry, self._expectation)

    def run(self) -> list[Failure]:
        """Play to the end; the failures of the whole run.

        With a stop tick, one :meth:`run_to` it: the driver moves the engine through the ticks
        between the timeline's in the engine's own loop (:meth:`Engine.advance`), where
        :meth:`steps` finishes each tick by calls of its own, for a reader between them (the
        demo's week is 10,000 steps: a sweep's variant of its first day went from 2,165 M to
        2,125 M instructions, callgrind)."""
        stop = self.stop
        if stop is None:
            for _ in self.steps():
                pass
        else:
            self.run_to(stop)
        return self.failures

    def steps(self) -> Iterator[int]:
        """Play to the end, yielding each tick processed (each one where something happened)."""
        stop = self.stop
        while True:
            candidates = [self._next_entry_tick(), self._next_event_tick()]
            ticks = [t for t in candidates if t is not None and (stop is None or t <= stop)]
            if not ticks:
                if stop is not None and self.processed < stop:
                    self.run_to(stop)
                    yield stop
                return
            tick = min(ticks)
            self.run_to(tick)
            yield tick

    def stretches(self, ticks: Callable[[], int]) -> Iterator[int]:
        """Play to the end as :meth:`steps` does, but a stretch of ticks at a time, yielding the
        last tick of each: a stretch reaches at least the step :meth:`steps` would take next
        and at most ``ticks()`` ticks past the last one played (asked before each stretch),
        ends at the next timeline or expect tick or at the stop tick, and the engine plays the
        ticks inside it in its own loop (:meth:`run_to`, as :meth:`run` does), where
        :meth:`steps` finishes each tick by calls of its own. ``ticks()`` of 1 plays the steps
        of :meth:`steps`. Without a stop tick, :meth:`steps`: the end is the tick after which
        the engine has nothing left to do, which only a step at a time finds."""
        stop = self.stop
        if stop is None:
            yield from self.steps()
            return
        while self.processed < stop:
            upcoming = self._next_entry_tick()
            step = min(t for t in (upcoming, self._next_event_tick(), stop) if t is not None)
            tick = min(max(step, self.processed + ticks()), stop)
            if upcoming is not None and upcoming < tick:
                tick = upcoming
            self.run_to(tick)
            yield tick

    def run_to(self, tick: int) -> None:
        """Play every timeline and expect tick up to ``tick``, then leave the engine settled at
        ``tick``."""
        while (upcoming := self._next_entry_tick()) is not None and upcoming <= tick:
            self._play(upcoming)
        if tick > self.processed:
            self._driver.finish(tick)
            self.processed = tick

    # ---------------------------------------------------------------- internals

    def _next_entry_tick(self) -> int | None:
        ticks = []
        if self._entry < len(self.scenario.timeline):
            ticks.append(self.scenario.timeline[self._entry].tick)
        if self._expectation < len(self.scenario.expectations):
            ticks.append(self.scenario.expectations[self._expectation].tick)
        return min(ticks, default=None)

    def _next_event_tick(self) -> int | None:
        if self.processed < 0:
            return 0
        return self.engine.next_event_tick()

    def _play(self, tick: int) -> None:
        engine, timeline, expectations = (
            self.engine,
            self.scenario.timeline,
            self.scenario.expectations,
        )
        while self._entry < len(timeline) and timeline[self._entry].tick == tick:
            self._apply(timeline[self._entry])
            self._entry += 1
        self._driver.finish(tick)
        while (
            self._expectation < len(expectations) and expectations[self._expectation].tick == tick
        ):
            expectation = expectations[self._expectation]
            self._record(expectation.pos, expectation.check.verify(engine))
            self._expectation += 1
        self.processed = tick

    def _apply(self, entry: TimelineEntry) -> None:
        action = entry.action
        if isinstance(action, StatusQuery):
            self._driver.reach(entry.tick, self.scenario.phase)
            result = action.answer(self.engine)
        else:
            result = self._driver.apply(TimedCommand(entry.tick, self.scenario.phase, action))
        if entry.expected is not None:
            self._record(entry.pos, entry.expected.verify(result))
        elif not result.accepted:
            self.rejections.append(Rejection(entry, result))

    def _record(self, pos: Position | None, mismatch: Mismatch | None) -> None:
        self.checked += 1
        if mismatch is not None:
            self.failures.append(Failure(self.scenario.source, pos, mismatch))
