"""Missed runs: which of the runs that fell due while a job was paused run when it resumes.

The job's ``catch_up`` chooses among them (skip: none, latest: the last one, all: every one),
as Airflow's ``catchup`` (False: latest, True: all) and systemd's ``Persistent=`` (true: latest,
false: skip) do. Two limits come before it (docs/semantics.md):

- ``catch_up_window: W`` (Temporal's catch-up window, Kubernetes' ``startingDeadlineSeconds``):
  a missed run scheduled more than W ticks before the resume is skipped whatever ``catch_up``
  says;
- ``max_missed: M`` (Kubernetes' rule with M = 100): when more than M runs were missed (within
  the window), a ``TooManyMissedRuns`` event says so and only the latest runs (none under
  ``catch_up: skip``), as the current CronJob controller records ``TooManyMissedTimes`` and
  still creates the most recent missed run (``mostRecentScheduleTime``; the controller before
  1.21 started none). Counting stops at M + 1, so the cost is bounded by M, not by the length
  of the pause.

Skipped runs are one range (``OccurrencesSkipped``), never a record each.
"""

from __future__ import annotations

from engine.model import events as ev
from engine.model.records import CatchUp, Job
from engine.schedules.kinds import last_at_or_before


def skip_through(
    now: int, log: ev.EventLog, job: Job, mode: CatchUp, paused_through: int
) -> int | None:
    """The last tick of the runs a resume at ``now`` skips, ``(paused_through, through]``; None:
    none. Too many missed runs are said on ``log``."""
    spec = job.spec
    missed = last_at_or_before(spec.schedule, now, paused_through + 1)
    if missed is None:
        return None
    floor = paused_through
    if spec.catch_up_window is not None:
        floor = max(floor, now - spec.catch_up_window - 1)
    if spec.max_missed is not None:
        counted = _count_fires(job, floor + 1, missed, spec.max_missed + 1)
        if counted > spec.max_missed:
            log.add(ev.TooManyMissedRuns, now, job.job_id, counted, spec.max_missed)
            if mode is CatchUp.ALL:
                mode = CatchUp.LATEST
    if mode is CatchUp.SKIP:
        through = missed
    elif mode is CatchUp.LATEST:
        through = max(floor, missed - 1)
    else:
        through = floor
    return through if through > paused_through else None


def _count_fires(job: Job, low: int, high: int, stop: int) -> int:
    """How many runs of the job fall in ``[low, high]``, counting no further than ``stop``."""
    count = 0
    tick = job.spec.schedule.first_at_or_after(low)
    while tick is not None and tick <= high and count < stop:
        count += 1
        tick = job.spec.schedule.first_at_or_after(tick + 1)
    return count
