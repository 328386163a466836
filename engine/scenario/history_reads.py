"""What the rest of a scenario reads back of the history, so that a headless play may forget the
rest (:meth:`engine.core.Engine.forget_archived`) and still answer every entry and check as an
engine that forgot nothing.

A timeline entry or a check reads a finished run when it names one: a cancel, a report or a
status query of a run, a check of a run's state or attempts; a backfill reads its job's runs from
its first tick, and its upstream jobs' latest runs at or before it. A check that counts runs by
state (``StateCount``) reads the whole history: while one is still to come, nothing is forgotten.
"""

from __future__ import annotations

from engine.core import Engine
from engine.model.commands import BackfillJob
from engine.rules.run_dependencies import upstream_reads
from engine.scenario.checks import StateCount
from engine.scenario.model import Scenario

_NOTHING = 2**63 - 1


class HistoryReads:
    """The earliest tick each suffix of a scenario's timeline and checks reads, worked out once."""

    def __init__(self, scenario: Scenario) -> None:
        self._entries = _suffix_minima(
            [getattr(entry.action, "scheduled", None) for entry in scenario.timeline]
        )
        self._checks = _suffix_minima(
            [getattr(check.check, "scheduled", None) for check in scenario.expectations]
        )
        self._backfills = [
            (index, entry.action)
            for index, entry in enumerate(scenario.timeline)
            if isinstance(entry.action, BackfillJob)
        ]
        self._last_count = max(
            (i for i, e in enumerate(scenario.expectations) if isinstance(e.check, StateCount)),
            default=-1,
        )

    def read_from(self, engine: Engine, entry: int, expectation: int) -> int | None:
        """The earliest tick whose runs the timeline from its ``entry``-th entry on and the
        checks from the ``expectation``-th on may read, capped at ``engine.now``; None if one
        of those checks reads the whole history."""
        if expectation <= self._last_count:
            return None
        earliest = min(engine.now, self._entries[entry], self._checks[expectation])
        for index, backfill in self._backfills:
            if index >= entry:
                earliest = min(earliest, _backfill_reads_from(engine, backfill))
        return earliest


def _suffix_minima(ticks: list[int | None]) -> list[int]:
    """Element ``i``: the least tick from the ``i``-th on (one more element, for none left)."""
    minima = [_NOTHING] * (len(ticks) + 1)
    for index in range(len(ticks) - 1, -1, -1):
        tick = ticks[index]
        minima[index] = minima[index + 1] if tick is None else min(tick, minima[index + 1])
    return minima


def _backfill_reads_from(engine: Engine, backfill: BackfillJob) -> int:
    """Its first tick, or its upstream jobs' latest runs at or before it; 0 for a job not
    scheduled yet, whose upstream jobs are not known."""
    job = engine.query.job(backfill.job_id)
    if job is None:
        return 0
    reads = upstream_reads(job, backfill.first, engine.query.job)
    return min([backfill.first, *(read for _, read in reads)])
