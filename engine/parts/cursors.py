"""Job cursors: the jobs, and the lazy walk of each one's schedule.

Each job keeps a cursor, ``next_due``: every schedule tick before it has been materialised (or
skipped). The runs from the cursor on that have fallen due are implicit: their state follows by
arithmetic from the cursor, the tick up to which due runs were created (``created_through``), a
pause, a skip range or a cancelled range, so a backlog of a million runs costs nothing until a
worker takes one. The due heap holds, for each job that waits for its next run to fall due, the
tick it falls due at.

Creation follows dispatch: under automatic dispatch every processed tick creates what fell due;
under manual dispatch (seed 000) only a Dispatch command does, and a job scheduled after the last
one has created nothing yet (``dispatches`` counts them).

Given the occurrence store: a cursor walks past the runs that have a record, and a run's state
is its record's when it has one (:meth:`JobCursors.occurrence_state`). Its methods that move a
job's cursor leave touching the job (:mod:`engine.rewind.journal`) to their callers, which all
change more of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from heapq import heapify, heappop, heappush
from typing import TYPE_CHECKING

from engine.model.ordering import java_order_key
from engine.model.records import Job, JobSpec, OccurrenceState
from engine.rewind.heap import Heap
from engine.rewind.journal import JournaledPart
from engine.schedules.kinds import Once

if TYPE_CHECKING:
    from engine.parts.occurrences import OccurrenceStore

S = OccurrenceState


class JobCursors(JournaledPart):
    """The jobs by id, their cursors and the due heap."""

    def __init__(self, store: OccurrenceStore) -> None:
        self._store = store
        self.jobs: dict[str, Job] = {}
        self.due = Heap()
        """(tick, submission, job id): the next tick at which each waiting job falls due."""
        self.created_through = -1
        """Latest tick at which due occurrences were created (by dispatch; every tick in auto)."""
        self.dispatches = 0
        """How often due occurrences were created; a job scheduled after the last time has none."""
        self.undispatched_submissions = False
        """Whether a job was scheduled since the last creation of due occurrences."""
        self.submissions = 0

    def tables(self) -> tuple[tuple[str, dict], ...]:
        return (("job", self.jobs),)

    def containers(self) -> tuple[Heap, ...]:
        return (self.due,)

    def scalars(self) -> tuple:
        return (
            self.created_through,
            self.dispatches,
            self.undispatched_submissions,
            self.submissions,
        )

    def restore_scalars(self, values: tuple) -> None:
        (
            self.created_through,
            self.dispatches,
            self.undispatched_submissions,
            self.submissions,
        ) = values

    # -------------------------------------------------------------- jobs

    def add(self, spec: JobSpec, first: int | None, runnable_since: int | None = None) -> Job:
        """A new job, its cursor on ``first``, its first run from now on; ``runnable_since``:
        the tick from which it may run, when it has no dependencies to wait for."""
        self.submissions = submission = self.submissions + 1
        job_id = spec.job_id
        job = Job(  # positional: a keyword call costs a third more
            spec,
            submission,
            java_order_key(job_id),
            first,
            self.dispatches,
            first,
            spec.fail_attempts,
            0,
            runnable_since,
        )
        self.jobs[job_id] = job
        self.undispatched_submissions = True
        return job

    def add_runnable(self, spec: JobSpec, first: int, now: int) -> Job:
        """:meth:`add` then :meth:`wait_for_due` for a job without dependencies, runnable from
        ``now``, whose first run is ``first``: what :meth:`engine.core.Engine.schedule_checked`
        does for each of seed 000's hundred thousand jobs, its due entry pushed here rather
        than through ``wait_for_due``'s checks."""
        job = self.add(spec, first, now)
        due, item = self.due, (first, job.submission, spec.job_id)
        heappush(due.items, item)
        if due.pushed is not None:  # keyframes are recorded (engine.rewind.heap)
            due.pushed.append(item)
        return job

    def live(self, job_id: str) -> Job | None:
        """The job, unless it does not exist or was deleted."""
        job = self.jobs.get(job_id)
        return None if job is None or job.deleted else job

    def wait_for_due(self, job: Job) -> None:
        """Put the job on the due heap for its cursor's tick (a stale entry is skipped later)."""
        if job.next_due is not None and job.paused_through is None:
            # Onto the heap's list with heapq: a call fewer for every job than a method.
            due, item = self.due, (job.next_due, job.submission, job.spec.job_id)
            heappush(due.items, item)
            if due.pushed is not None:  # keyframes are recorded (engine.rewind.heap)
                due.pushed.append(item)

    def compact_due(self) -> int:
        """Drop the due heap's entries that no longer hold (a job whose cursor moved on since
        its entry was pushed, or a second entry for the same tick: a pause and a resume push
        one each time), so the heap holds an entry a waiting job rather than one for each time
        a job was put back on it; returns how many were dropped. What the heap gives is the
        same: :meth:`create_due` skips those entries. Not while keyframes are recorded (their
        logs follow the heap's pushes and pops): then nothing is dropped."""
        due = self.due
        if due.pushed is not None:
            return 0
        items, jobs = due.items, self.jobs
        kept = {
            item: None
            for item in items
            if (job := jobs.get(item[2])) is not None and job.next_due == item[0]
        }
        dropped = len(items) - len(kept)
        if dropped:
            items[:] = kept
            heapify(items)
        return dropped

    # ------------------------------------------------------------ creation

    def create_due(self, now: int) -> Sequence[Job]:
        """Create what fell due through ``now``; the jobs whose cursor run just fell due."""
        self.created_through = now
        if self.undispatched_submissions:
            # Counted only when it matters, so that settling a tick twice changes nothing.
            self.dispatches += 1
            self.undispatched_submissions = False
        due = self.due
        items = due.items
        if not items or items[0][0] > now:
            return ()  # what most ticks create, told without a call to the heap
        fallen: list[Job] = []
        jobs, popped = self.jobs, due.popped
        # Popped in place with heapq (``Heap.pop_through`` written out): a call fewer a job.
        while items and items[0][0] <= now:
            entry = heappop(items)
            if popped is not None:  # keyframes are recorded (engine.rewind.heap)
                popped.append(entry)
            tick, _, job_id = entry
            job = jobs[job_id]
            # A stale entry is skipped, and so is a duplicate (equal entries pop one after the
            # other).
            if (
                job.next_due == tick
                and job.paused_through is None
                and not (fallen and fallen[-1] is job)
            ):
                fallen.append(job)
        return fallen

    def next_due_tick(self) -> int | None:
        """The tick the first waiting job falls due at, if any; asked once per tick the engine
        plays, so read without a call to the heap (as
        :meth:`engine.parts.timers.Timers.next_tick` does)."""
        items = self.due.items
        return items[0][0] if items else None

    def created_limit(self, job: Job) -> int:
        """The last tick whose runs of ``job`` were created (a pause holds it back)."""
        if job.paused_through is not None:
            return min(job.paused_through, self.created_through)
        return self.created_through

    def is_created(self, job: Job, scheduled: int) -> bool:
        """Whether a dispatch since the job's submission created ``scheduled`` (paused: before)."""
        return (
            scheduled <= self.created_limit(job)
            and self.dispatches > job.dispatches_at_submit
            and not job.deleted
        )

    def occurrence_state(self, job_id: str, scheduled: int) -> OccurrenceState | None:
        """The state of ``(job_id, scheduled)``: its record's, else by arithmetic for a run not
        materialised; None when it is no run of the job (or there is no such job)."""
        store = self._store
        occurrence = store.records.get((job_id, scheduled))
        if occurrence is not None:
            return occurrence.state
        if store.archive is not None:
            archived = store.archived_state((job_id, scheduled))
            if archived is not None:
                return archived
        job = self.jobs.get(job_id)
        return None if job is None else self.implicit_state(job, scheduled)

    def forgotten_before(self, job_id: str) -> int | None:
        """The tick before which the job's archived runs were forgotten, if any were (see
        :meth:`engine.core.Engine.forget_archived`)."""
        archive = self._store.archive
        return None if archive is None else archive.forgotten_before(job_id)

    def implicit_state(self, job: Job, scheduled: int) -> OccurrenceState | None:
        """The state of a run of ``job`` that has no record, by arithmetic; None if it is not a
        run of the job (or one the cursor passed)."""
        if not job.fires_at(scheduled) or (job.skipped and self.is_skipped(job, scheduled)):
            return None
        cancelled = job.cancelled_backlog
        if cancelled is not None and cancelled.first <= scheduled <= cancelled.last:
            return S.CANCELLED
        if job.next_due is None or scheduled < job.next_due:
            return None
        if not self.is_created(job, scheduled):
            return S.SCHEDULED
        return S.BLOCKED if job.unmet_dependencies or job.blocked_from is not None else S.QUEUED

    # --------------------------------------------------------------- walk

    def advance(self, job: Job) -> None:
        """Move ``next_due`` past the occurrence just materialised. The caller has touched
        ``job`` (each changes more of it, or materialises a waiting run of it, which touches
        it): a touch fewer per run taken."""
        assert job.next_due is not None
        tick = job.next_due + 1
        schedule = job.spec.schedule
        if job.backlog:
            candidate = job.first_fire(tick)
        elif type(schedule) is Once:
            # A one-time job's cursor was on its one run: none follows. Told here rather than
            # by its schedule's ``first_at_or_after``: a call fewer for every run of seed 001
            # (its benchmark with 3,000 jobs: 991.6 M to 990.7 M instructions, callgrind).
            candidate = None
        else:  # ``first_fire`` without a backlog, written out: a call fewer per run taken
            since = job.spec_since
            candidate = schedule.first_at_or_after(tick if tick >= since else since)
        job.next_due = None if candidate is None else self.walk(job, candidate)

    def walk(self, job: Job, candidate: int | None) -> int | None:
        """The first schedule tick from ``candidate`` on that is neither materialised nor skipped;
        skip ranges and backlog definitions the cursor has passed are dropped. The caller has
        touched ``job`` (each sets its cursor with the answer): a touch fewer per run taken."""
        records, archive, job_id = self._store.records, self._store.archive, job.spec.job_id
        while candidate is not None:
            if job.backlog and candidate > job.backlog[0][0]:
                job.backlog = job.backlog[1:]
                continue
            if job.skipped and candidate > job.skipped[0][0]:
                through = job.skipped[0][1]
                if candidate <= through:
                    candidate = job.first_fire(through + 1)
                else:
                    job.skipped = job.skipped[1:]
                continue
            key = (job_id, candidate)
            if key not in records and (archive is None or key not in archive):
                return candidate
            candidate = job.first_fire(candidate + 1)
        return None

    @staticmethod
    def is_skipped(job: Job, scheduled: int) -> bool:
        return any(after < scheduled <= through for after, through in job.skipped)
