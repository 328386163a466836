"""The dispatcher: the ready queue, and the assignment of ready runs to idle workers.

Each job with due runs waits in the ready queue as *one* implicit entry, its front: its earliest
due run without a record. Only when a worker takes the front is the run materialised, and the
job's next due run becomes its front. A run with a record (a retry, or a backlog materialised by
a priority change) waits as an entry of its own. The queue's order is the policy's
(:mod:`engine.parts.ready`, :mod:`engine.parts.aging_queue`); the worker is the idle one with the
lowest id.

Given the ready queue (shared with the pools, which hand back the runs they set aside), the tick
clock, the journal, the event log, the job cursors, the occurrence store, the workforce and the
pools. Connected after construction (:meth:`Dispatcher.connect`) to the attempts it starts and
the rules that decide whether a job's cursor run may wait in the queue (run dependencies,
overlap): each of them calls the dispatcher back (a retry, a run its rule lets go), so the
circle is closed by connecting, not by an order of construction.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.records import Job, Occurrence, OccurrenceState
from engine.model.values import value
from engine.parts.ready import ReadyQueue
from engine.parts.ready_entry import OCCURRENCE, ReadyEntry
from engine.rewind.journal import JournaledPart

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.parts.attempts import Attempts
    from engine.parts.cursors import JobCursors
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.tick_clock import TickClock
    from engine.parts.workers import Workforce
    from engine.rewind.journal import ChangeJournal
    from engine.rules.overlap import OverlapControl
    from engine.rules.pools import Pools
    from engine.rules.run_dependencies import RunDependencies

QUEUED, RETRY_PENDING, RUNNING = (
    OccurrenceState.QUEUED,
    OccurrenceState.RETRY_PENDING,
    OccurrenceState.RUNNING,
)
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

    def __init__(
        self,
        ready: ReadyQueue,
        clock: TickClock,
        journal: ChangeJournal,
        log: EventLog,
        cursors: JobCursors,
        store: OccurrenceStore,
        workforce: Workforce,
        pools: Pools | None,
    ) -> None:
        self.ready = ready
        self._clock = clock
        self._journal = journal
        self._log = log
        self._cursors = cursors
        self._jobs = cursors.jobs
        self._store = store
        self._workforce = workforce
        self._pools = pools
        self._attempts: Attempts
        self._run_dependencies: RunDependencies
        self._overlap: OverlapControl

    def connect(
        self, attempts: Attempts, run_dependencies: RunDependencies, overlap: OverlapControl
    ) -> None:
        """The attempts a dispatch starts and the rules a release consults, built after the
        dispatcher (see the module docstring)."""
        self._attempts = attempts
        self._run_dependencies = run_dependencies
        self._overlap = overlap

    def containers(self) -> tuple[ReadyQueue, ...]:
        return (self.ready,)

    def release(self, job: Job) -> None:
        """Give the job a front if its cursor run is due (or block it on unmet dependencies);
        else put it back on the due heap for its next run."""
        self.release_all((job,))

    def release_all(self, jobs: Iterable[Job]) -> None:
        """:meth:`release` each of ``jobs`` in turn: one loop, with what every job reads looked
        up once, for a dispatch whose tick many jobs fall due at (seed 000's dispatches release
        a hundred thousand jobs in all, a dozen or more each)."""
        cursors, touch, push = self._cursors, self._journal.touch, self.ready.push
        for job in jobs:
            if job.front is not None:
                continue
            touch(job)
            waits = job.upstream_runs and not job.unmet_dependencies
            if waits and not self._run_dependencies.gate(job):
                continue  # its cursor run waits for an upstream run (rules/run_dependencies.py)
            spec = job.spec
            if spec.overlap is not None and not job.unmet_dependencies:
                self._overlap.release(job)  # a limited job's runs wait as records (overlap.py)
                continue
            scheduled = job.next_due
            if scheduled is None or scheduled > (
                cursors.created_through
                if job.paused_through is None
                else cursors.created_limit(job)
            ):
                cursors.wait_for_due(job)
                continue
            if job.unmet_dependencies:
                # The runs from the cursor on are BLOCKED by arithmetic; the job leaves the due
                # heap until its last dependency succeeds (or a cascade cancels it).
                if job.blocked_from is None:
                    job.blocked_from = scheduled
                    self._log.add(ev.OccurrenceBlocked, self._clock.now, spec.job_id, scheduled)
                continue
            since = job.runnable_since or 0
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
            push(entry)

    def take_front(self, job: Job) -> ReadyEntry | None:
        """Withdraw a job's implicit front from the ready queue, if it has one."""
        entry = job.front
        if entry is not None:
            self._journal.touch(job)
            job.front = None
            self.ready.remove(entry)
        return entry

    def push_ready(self, occurrence: Occurrence) -> None:
        """A run with a record may run now (a retry after its backoff, a materialised one)."""
        job_id, scheduled = occurrence.key  # not its properties: a call each
        job = self._jobs[job_id]
        self.ready.push(
            (
                job_id,
                scheduled,
                job.order_key,
                occurrence.priority,
                occurrence.ready_since,
                job.submission,
                occurrence,
            )
        )

    def assign(self, assignments: list[Assignment] | None = None) -> None:
        """The best ready runs to the idle workers, until one or the other runs out; each
        attempt started is appended to ``assignments`` if given (a dispatch's answer).

        A job's front is materialised here, for its attempt to start at once: straight into
        RUNNING, a move of the state index fewer, unless the job has an overlap rule, which the
        release that follows consults about its active runs (an attempt of a RUNNING run must be
        running: it may be terminated). That is written out in the loop, not called: every run
        of seed 001 starts from a front."""
        # The attempts and the idle pool are held, not their bound methods: binding one made a
        # method object per call, and seed 001 calls this once per attempt to take one run (its
        # benchmark script with 3,000 jobs: 817.2 M to 813.8 M instructions, callgrind).
        workforce, attempts, now = self._workforce, self._attempts, self._clock.now
        ready, pool, pools = self.ready, workforce.idle, self._pools
        idle, workers = pool.ids, workforce.workers
        # Not ``while idle and ready``: a pop from an empty queue answers None, and asking the
        # queue first was a call from C (its ``__bool__``) per assignment.
        while idle:
            entry = ready.pop(now)
            if entry is None:
                break
            if pools is not None and pools.set_aside(entry):
                continue  # its pool is full: it waits there (engine/rules/pools.py)
            occurrence = entry[OCCURRENCE]
            if occurrence is None:
                job_id, scheduled, _, _, ready_since, _, _ = entry
                job = self._jobs[job_id]
                if job.front is not entry:
                    continue  # no longer its job's front
                self._journal.touch(job)
                job.front = None
                limited = job.spec.overlap is not None
                occurrence = self._store.materialise(job, scheduled, QUEUED if limited else RUNNING)
                occurrence.ready_since = ready_since
                cursors = self._cursors
                cursors.advance(job)
                upcoming = job.next_due
                if (
                    upcoming is not None
                    and upcoming > cursors.created_through
                    and not limited
                    and not job.upstream_runs
                ):
                    # Its next run is not due yet: back on the due heap, where ``release_all``
                    # puts it after its checks (its other outcomes need a due run, an overlap
                    # rule or upstream runs). Nearly every run taken goes this way: the demo's
                    # week, 7,605.5 M to 7,490.1 M instructions of its play, callgrind.
                    cursors.wait_for_due(job)
                elif upcoming is not None or limited or job.upstream_runs:
                    # ``release``'s own call, a frame fewer per run taken (a sweep's variant of
                    # the demo's first day, 2,116.5 M to 2,113.4 M instructions, callgrind); else
                    # it has no run left to release (mostly one-time jobs)
                    self.release_all((job,))
            elif occurrence.state is not QUEUED and occurrence.state is not RETRY_PENDING:
                continue
            worker = workers[pool.pop()]  # the pool's own pop: a call fewer than a wrapper
            number = attempts.start(occurrence, worker)
            if assignments is not None:
                assignments.append(
                    Assignment(occurrence.job_id, occurrence.scheduled, number, worker.worker_id)
                )
