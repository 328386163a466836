"""The dispatcher: the ready queue, and the assignment of ready runs to idle workers.

Each job with due runs waits in the ready queue as *one* implicit entry, its front: its earliest
due run without a record. Only when a worker takes the front is the run materialised, and the
job's next due run becomes its front. A run with a record (a retry, or a backlog materialised by
a priority change) waits as an entry of its own. The queue's order is the policy's
(:mod:`engine.parts.ready`, :mod:`engine.parts.aging_queue`); the worker is the idle one with the
lowest id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.records import Job, Occurrence, OccurrenceState
from engine.model.values import value
from engine.parts.ready import ReadyQueue, make_ready_queue
from engine.parts.ready_entry import OCCURRENCE, ReadyEntry
from engine.rewind.journal import JournaledPart

if TYPE_CHECKING:
    from engine.core import Engine

QUEUED, RETRY_PENDING = OccurrenceState.QUEUED, OccurrenceState.RETRY_PENDING
"""Read once: in Python 3.11 an enum member read through its class costs a tenth of a
microsecond (the enum metaclass's ``__getattr__`` hook)."""


@value
class Assignment:
    """One attempt started by a dispatch."""

    job_id: str
    scheduled: int
    attempt: int
    worker_id: str


class Dispatcher(JournaledPart):
    """The ready queue and the fronts of the jobs in it."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.ready: ReadyQueue = make_ready_queue(engine.policy)
        self._pools = engine.pools

    def containers(self) -> tuple[ReadyQueue, ...]:
        return (self.ready,)

    def release(self, job: Job) -> None:
        """Give the job a front if its cursor run is due (or block it on unmet dependencies);
        else put it back on the due heap for its next run."""
        if job.front is not None:
            return
        engine = self._engine
        cursors = engine.cursors
        engine.journal.touch(job)
        waits = job.upstream_runs and not job.unmet_dependencies
        if waits and not engine.run_dependencies.gate(job):
            return  # its cursor run waits for an upstream run (engine/rules/run_dependencies.py)
        if job.spec.overlap is not None and not job.unmet_dependencies:
            engine.overlap.release(
                job
            )  # a limited job's runs wait as records (engine/rules/overlap.py)
            return
        scheduled = job.next_due
        if scheduled is None or scheduled > (
            cursors.created_through if job.paused_through is None else cursors.created_limit(job)
        ):
            cursors.wait_for_due(job)
            return
        if job.unmet_dependencies:
            # The runs from the cursor on are BLOCKED by arithmetic; the job leaves the due heap
            # until its last dependency succeeds (or a cascade cancels it).
            if job.blocked_from is None:
                job.blocked_from = scheduled
                engine.log.add(ev.OccurrenceBlocked, engine.now, job.job_id, scheduled)
            return
        since = job.runnable_since or 0
        spec = job.spec
        entry = (
            spec.job_id,  # the job's own ``job_id`` is a property: a call per release
            scheduled,
            job.order_key,
            (job.spec_for(scheduled) if job.backlog else spec).priority,
            scheduled if scheduled >= since else since,
            job.submission,
            None,
        )
        job.front = entry
        self.ready.push(entry)

    def take_front(self, job: Job) -> ReadyEntry | None:
        """Withdraw a job's implicit front from the ready queue, if it has one."""
        entry = job.front
        if entry is not None:
            self._engine.journal.touch(job)
            job.front = None
            self.ready.remove(entry)
        return entry

    def push_ready(self, occurrence: Occurrence) -> None:
        """A run with a record may run now (a retry after its backoff, a materialised one)."""
        job = self._engine.jobs[occurrence.job_id]
        self.ready.push(
            (
                occurrence.job_id,
                occurrence.scheduled,
                job.order_key,
                occurrence.priority,
                occurrence.ready_since,
                job.submission,
                occurrence,
            )
        )

    def assign(self, assignments: list[Assignment] | None = None) -> None:
        """The best ready runs to the idle workers, until one or the other runs out; each
        attempt started is appended to ``assignments`` if given (a dispatch's answer)."""
        engine = self._engine
        workforce, start = engine.workforce, engine.attempts.start
        ready, idle, pools = self.ready, workforce.idle, self._pools
        while idle and ready:
            entry = ready.pop(engine.now)
            if entry is None:
                break
            if pools is not None and pools.set_aside(entry):
                continue  # its pool is full: it waits there (engine/rules/pools.py)
            occurrence = entry[OCCURRENCE]
            if occurrence is None:
                occurrence = self._take(entry)
                if occurrence is None:
                    continue
            elif occurrence.state is not QUEUED and occurrence.state is not RETRY_PENDING:
                continue
            worker = workforce.take_idle()
            assert worker is not None
            number = start(occurrence, worker)
            if assignments is not None:
                assignments.append(
                    Assignment(occurrence.job_id, occurrence.scheduled, number, worker.worker_id)
                )

    def _take(self, entry: ReadyEntry) -> Occurrence | None:
        """Materialise the front ``entry`` stands for (None if it is no longer the front)."""
        engine = self._engine
        job_id, scheduled, _, _, ready_since, _, _ = entry
        job = engine.jobs[job_id]
        if job.front is not entry:
            return None
        engine.journal.touch(job)
        job.front = None
        occurrence = engine.store.materialise(job, scheduled, QUEUED)
        occurrence.ready_since = ready_since
        engine.cursors.advance(job)
        if job.next_due is not None or job.spec.overlap is not None or job.upstream_runs:
            self.release(job)  # else it has no run left to release (a one-time job's, mostly)
        return occurrence
