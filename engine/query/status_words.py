"""Seed 003's words for where a run, and a job, stand: ``created``, ``scheduled``, ``running``,
``succeeded``, ``failed``, ``cancelled``.

The seed's lifecycle (its "Statuses" list) is coarser than the engine's states, and one of its
words depends on the clock: a run is ``created`` until it is less than the scheduling window
(two minutes, ``Policy.scheduling_window``) from its time, then ``scheduled`` ("When there is less
than 2 minutes to run the job changes the status to scheduled"); a run that fell due and waits
(for a worker, a dependency or a backoff) is still ``scheduled``. A job's word is its current
run's: the one running, else its earliest run still to come or waiting, else its last run's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model.records import OccurrenceState
from engine.schedules.kinds import last_at_or_before

if TYPE_CHECKING:
    from engine.query.engine_parts import EngineParts

S = OccurrenceState

STATUSES = ("created", "scheduled", "running", "succeeded", "failed", "cancelled")
"""Every word, in the order of a run's life."""

_WORDS = {
    S.BLOCKED: "scheduled",
    S.QUEUED: "scheduled",
    S.RETRY_PENDING: "scheduled",
    S.RUNNING: "running",
    S.SUCCEEDED: "succeeded",
    S.FAILED: "failed",
    S.CANCELLED: "cancelled",
}


def run_word(state: OccurrenceState, scheduled: int, now: int, window: int) -> str:
    """The seed's word for a run in ``state`` scheduled at ``scheduled``, at tick ``now``."""
    if state is S.SCHEDULED:
        return "scheduled" if scheduled - now < window else "created"
    return _WORDS[state]


def job_word(parts: EngineParts, job_id: str) -> str | None:
    """The seed's word for a job (None if there is no such job, or it was deleted)."""
    job = parts.cursors.live(job_id)
    if job is None:
        return None
    window, now = parts.policy.scheduling_window or 0, parts.now
    records = parts.occurrences
    waiting = list(job.open)
    if any(records[(job_id, tick)].state is S.RUNNING for tick in waiting):
        return "running"
    if job.next_due is not None:
        waiting.append(job.next_due)
    current = min(waiting) if waiting else last_at_or_before(job.spec.schedule, now, 0)
    state = None if current is None else parts.cursors.occurrence_state(job_id, current)
    if current is None or state is None:
        return "created"
    return run_word(state, current, now, window)
