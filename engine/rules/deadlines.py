"""Deadline alerts: a run not finished ``deadline`` ticks after its scheduled tick raises a
notification (Airflow's deadline alerts, formerly SLA misses).

A job with a deadline keeps one timer: at ``scheduled + deadline`` for its next run to check
(``Job.deadline_next``). When it fires, a run that was created and is not final yet (waiting,
blocked, running or waiting for a retry) has missed its deadline: a ``DeadlineMissed`` event
and a ``deadline_missed`` notification to the job's subscribers. A run that finished by then
(at that very tick included: attempts end before deadlines are checked), was skipped, or was
never created (its job paused) has not. Then the timer moves to the job's next run. The cost
is one timer per run of a job that asks for a deadline, whether the run is late or not.

Given the tick clock, the journal, the event log, the job cursors (a run's state), the
occurrence store, the timers and the outbox.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.records import Job, NotifyOn, OccurrenceState
from engine.parts.timers import TimerKind

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.parts.cursors import JobCursors
    from engine.parts.notifications import Outbox
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.tick_clock import TickClock
    from engine.parts.timers import Timers
    from engine.rewind.journal import ChangeJournal

S = OccurrenceState
_LATE = frozenset({S.QUEUED, S.BLOCKED, S.RUNNING, S.RETRY_PENDING})


class Deadlines:
    """Checks each run of a job with a deadline once; owns no state beyond the job records."""

    def __init__(
        self,
        clock: TickClock,
        journal: ChangeJournal,
        log: EventLog,
        cursors: JobCursors,
        store: OccurrenceStore,
        timers: Timers,
        outbox: Outbox,
    ) -> None:
        self._clock = clock
        self._journal = journal
        self._log = log
        self._cursors = cursors
        self._jobs = cursors.jobs
        self._records = store.runs
        self._timers = timers
        self._outbox = outbox

    def start(self, job: Job) -> None:
        """Set the timer for the job's first run (a new job with a deadline)."""
        self._watch(job, job.next_due)

    def check(self, job_id: str, scheduled: int) -> None:
        """The deadline of the run at ``scheduled`` has come: alert if it is late, then watch
        the job's next run."""
        job = self._jobs[job_id]
        if job.deadline_next != scheduled:
            return  # stale
        state = self._cursors.occurrence_state(job_id, scheduled)
        if state in _LATE:
            deadline = job.spec.deadline
            self._log.add(ev.DeadlineMissed, self._clock.now, job_id, scheduled, deadline)
            record = self._records.get((job_id, scheduled))
            attempts = len(record.attempts) if record is not None else 0
            self._outbox.notify_run(job_id, scheduled, attempts, NotifyOn.DEADLINE_MISSED)
        self._watch(job, None if job.deleted else job.first_fire(scheduled + 1))

    def _watch(self, job: Job, scheduled: int | None) -> None:
        self._journal.touch(job)
        job.deadline_next = scheduled
        deadline = job.spec.deadline
        if scheduled is not None and deadline is not None:
            self._timers.add(scheduled + deadline, TimerKind.DEADLINE, (job.job_id, scheduled))
