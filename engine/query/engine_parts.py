"""What the query reads: the parts of one engine, handed over by the engine that composes them.

The query sits below the engine (:mod:`engine.core` builds it), so it is given the parts rather
than the engine: the same objects for the engine's whole life (a rewind changes their state
in place and never replaces them), so a question costs a lookup, not a copy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.model.values import value

if TYPE_CHECKING:
    from engine.model.policies import Policy
    from engine.model.records import Job, Occurrence
    from engine.parts.cursors import JobCursors
    from engine.parts.notifications import Outbox
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.ready import ReadyQueue
    from engine.parts.tick_clock import TickClock
    from engine.parts.workers import Workforce
    from engine.rules.backfill import Backfills
    from engine.rules.overlap import OverlapControl
    from engine.rules.pools import Pools
    from engine.rules.run_dependencies import RunDependencies


@value
class EngineParts:
    """The parts of an engine that the query reads, and never changes."""

    clock: TickClock
    policy: Policy
    cursors: JobCursors
    store: OccurrenceStore
    workforce: Workforce
    outbox: Outbox
    ready: ReadyQueue
    pools: Pools | None
    overlap: OverlapControl
    run_dependencies: RunDependencies
    backfills: Backfills

    @property
    def now(self) -> int:
        return self.clock.now

    @property
    def jobs(self) -> Mapping[str, Job]:
        return self.cursors.jobs

    @property
    def occurrences(self) -> Mapping[tuple[str, int], Occurrence]:
        """The materialised runs: with :attr:`cursors`, what makes these parts a
        :class:`~engine.parts.ranges.RunBook`."""
        return self.store.runs
