"""Deadline alerts: a run not finished ``deadline`` ticks after its scheduled tick raises a
notification (Airflow's deadline alerts, formerly SLA misses).

A job with a deadline keeps one timer: at ``scheduled + deadline`` for its next run to check
(``Job.deadline_next``). When it fires, a run that was created and is not final yet (waiting,
blocked, running or waiting for a retry) has missed its deadline: a ``DeadlineMissed`` event
and a ``deadline_missed`` notification to the job's subscribers. A run that finished by then
(at that very tick included: attempts end before deadlines are checked), was skipped, or was
never created (its job paused) has not. Then the timer moves to the job's next run. The cost
is one timer per run of a job that asks for a deadline, whether the run is late or not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.records import Job, NotifyOn, OccurrenceState
from engine.parts.timers import TimerKind

if TYPE_CHECKING:
    from engine.core import Engine

S = OccurrenceState
_LATE = frozenset({S.QUEUED, S.BLOCKED, S.RUNNING, S.RETRY_PENDING})


class Deadlines:
    """Checks each run of a job with a deadline once; owns no state beyond the job records."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def start(self, job: Job) -> None:
        """Set the timer for the job's first run (a new job with a deadline)."""
        self._watch(job, job.next_due)

    def check(self, job_id: str, scheduled: int) -> None:
        """The deadline of the run at ``scheduled`` has come: alert if it is late, then watch
        the job's next run."""
        engine = self._engine
        job = engine.jobs[job_id]
        if job.deadline_next != scheduled:
            return  # stale
        state = engine.occurrence_state(job_id, scheduled)
        if state in _LATE:
            deadline = job.spec.deadline
            engine.log.add(ev.DeadlineMissed, engine.now, job_id, scheduled, deadline)
            record = engine.occurrences.get((job_id, scheduled))
            attempts = len(record.attempts) if record is not None else 0
            engine.notifications.notify_run(job_id, scheduled, attempts, NotifyOn.DEADLINE_MISSED)
        self._watch(job, None if job.deleted else job.first_fire(scheduled + 1))

    def _watch(self, job: Job, scheduled: int | None) -> None:
        engine = self._engine
        engine.journal.touch(job)
        job.deadline_next = scheduled
        deadline = job.spec.deadline
        if scheduled is not None and deadline is not None:
            engine.timers.add(scheduled + deadline, TimerKind.DEADLINE, (job.job_id, scheduled))
