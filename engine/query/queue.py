"""The order of waiting: the ready queue's runs, and the jobs whose next run is about to fall due.

What an explanation of a waiting run reads to say which runs go before it (the ranking itself,
under the policy's order, is the explanation's to state).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model.records import Job, OccurrenceState
from engine.parts.ready_entry import Waiting

if TYPE_CHECKING:
    from engine.query.engine_parts import EngineParts

S = OccurrenceState


def ready_runs(parts: EngineParts) -> list[Waiting]:
    """The ready queue's entries that stand for a waiting run, each once, in the order the queue
    holds them. The queue keeps withdrawn entries (a front taken back, a run no longer waiting)
    until they surface; those are left out."""
    jobs = parts.jobs
    found: dict[tuple[str, int], Waiting] = {}
    for held in parts.ready.contents():
        entry = Waiting(*held)
        occurrence = entry.occurrence
        if occurrence is None:
            if jobs[entry.job_id].front is not held:
                continue
        elif occurrence.state is not S.QUEUED and occurrence.state is not S.RETRY_PENDING:
            continue
        found.setdefault((entry.job_id, entry.scheduled), entry)
    return list(found.values())


def falling_due(parts: EngineParts, through: int) -> list[tuple[int, Job]]:
    """The jobs whose next run falls due by tick ``through``, with that tick, soonest first: the
    due heap's entries that still hold (a job paused or moved on since is left out), each once."""
    jobs = parts.jobs
    found: dict[str, tuple[int, Job]] = {}
    for tick, _, job_id in parts.cursors.due.live():
        job = jobs[job_id]
        if tick <= through and job.next_due == tick and job.paused_through is None:
            found.setdefault(job_id, (tick, job))
    return list(found.values())
