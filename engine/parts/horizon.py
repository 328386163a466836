"""The history horizon: how far back each job's archived runs must stay for the live rules.

An engine that archives its finished runs can forget them
(:meth:`engine.core.Engine.forget_archived`), but the rules still read some finished runs by their
ticks: the cursor walks past runs that have a record (a run cancelled ahead of it), a deadline or a
start deadline checks the run it watches, a backfill asks whether each run of its range exists, and
a run dependency reads its upstream job's latest run at or before each of its own. Each job's
*floor* is the earliest tick any of those can still ask about, never later than the horizon asked
for: its archived runs from the floor on are kept (and its latest one before it: its status word
reads it, and so does a dependent created later, whose runs read their upstream's latest run at or
before each of theirs), the rest forgotten. Every tick a rule reads from then on is at or after the
floor, because each of them only moves forward (a cursor, a deadline's next run, a backfill's next
tick), or starts from now (a new schedule's walk), or is refused behind the floor (a backfill whose
range reaches behind it: :mod:`engine.rules.backfill`).
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.model.records import Job
from engine.rules.run_dependencies import upstream_reads


def retention_floors(jobs: Mapping[str, Job], horizon: int) -> dict[str, int]:
    """Each job's floor: the earliest tick its own rules or its dependents' still read of its
    runs, or ``horizon`` if that is earlier."""
    floors = {job_id: _own_floor(job, horizon) for job_id, job in jobs.items()}
    for job in jobs.values():
        if not job.upstream_runs:
            continue
        for tick in _reading_ticks(job):
            for upstream, read in upstream_reads(job, tick, jobs.get):
                if read < floors[upstream.job_id]:
                    floors[upstream.job_id] = read
    return floors


def _own_floor(job: Job, horizon: int) -> int:
    return min((horizon, *_reading_ticks(job)))


def _reading_ticks(job: Job) -> list[int]:
    """The ticks of the job's runs that its rules may still ask about (the earliest of each)."""
    backfill = job.backfill
    ticks = (
        job.next_due,
        job.blocked_from,
        job.held,
        job.held_from,
        job.deadline_next,
        job.start_next,
        None if backfill is None else backfill.next,
        None if backfill is None else backfill.waiting_for,
    )
    return [tick for tick in ticks if tick is not None]
