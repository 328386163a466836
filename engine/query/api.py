"""The query API's one object, :class:`Query`: every question asked of an engine from above the
kernel, one method each. Where answering takes more than a lookup, the method hands over to the
module that owns that meaning (:mod:`~engine.query.runs`, :mod:`~engine.query.backlogs`, ...).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING

import engine.query.backlogs as backlogs
import engine.query.jobs as jobs
import engine.query.queue as queue
import engine.query.rules as rules
import engine.query.runs as runs
import engine.query.status_words as status_words
import engine.query.workers as workers
from engine.model.commands import BackfillJob
from engine.model.records import Attempt, Job, Occurrence, OccurrenceState, Worker
from engine.parts.notifications import Notification, NotificationKey
from engine.parts.ranges import ImplicitRange, implicit_range, runs_in
from engine.parts.ready_entry import Waiting
from engine.query.backlogs import RunCounter
from engine.query.views import (
    CancelledRangeView,
    JobView,
    OccurrenceRow,
    Page,
    PoolUse,
    Upstream,
    WorkerRow,
)
from engine.rules.backfill import Plan, plan

if TYPE_CHECKING:
    from engine.query.engine_parts import EngineParts

RunKey = tuple[str, int]
"""A run's key: its job's id and its scheduled tick."""


class Query:
    """Read-only questions about one engine, asked at its current tick.

    The records answered (jobs, occurrences, workers, notifications) and the mappings that hold
    them are the engine's own objects, not copies, so that a view asking on every frame costs
    a lookup: read them, never change them (every change is a command). A mapping answered
    stays current as the engine moves, rewinds included; a row or a page is a value of the
    moment it was asked."""

    __slots__ = ("_jobs", "_outbox", "_parts", "_records", "_workers")

    def __init__(self, parts: EngineParts) -> None:
        self._parts = parts
        # The tables are the same objects for the engine's whole life (a rewind changes
        # them in place, never replaces them): looked up once here, not on every question.
        self._jobs: Mapping[str, Job] = parts.cursors.jobs
        self._records: Mapping[RunKey, Occurrence] = parts.store.runs
        self._workers: Mapping[str, Worker] = parts.workforce.workers
        self._outbox: Mapping[NotificationKey, Notification] = parts.outbox.records

    # ------------------------------------------------------------------- jobs

    def job(self, job_id: str) -> Job | None:
        """The job, deleted or not; None if it was never scheduled."""
        return self._jobs.get(job_id)

    def live_job(self, job_id: str) -> Job | None:
        """The job, unless it does not exist or was deleted (seed 003: a deleted job is not
        found, though its runs and events stay in the history)."""
        job = self._jobs.get(job_id)
        return None if job is None or job.deleted else job

    def jobs(self) -> Mapping[str, Job]:
        """Every job ever scheduled, deleted ones included, by id in submission order."""
        return self._jobs

    def job_view(self, job_id: str, fire_times: int = 5) -> JobView | None:
        """The job with its status word (active, paused, deleted) and its next fire times."""
        return jobs.job_view(self._parts, job_id, fire_times)

    def job_views(
        self, *, status: str | None = None, offset: int = 0, limit: int = 50
    ) -> Page[JobView]:
        """Jobs in submission order, filtered by status, a page at a time (see
        :func:`engine.query.jobs.list_jobs` for what ``active`` keeps)."""
        return jobs.list_jobs(self._parts, status=status, offset=offset, limit=limit)

    def job_word(self, job_id: str) -> str | None:
        """Seed 003's word for the job (:mod:`engine.query.status_words`); None if there is no
        such job or it was deleted."""
        return status_words.job_word(self._parts, job_id)

    # ------------------------------------------------------------------- runs

    def run(self, job_id: str, scheduled: int) -> OccurrenceRow | None:
        """The run as a row, with a record or implicit; None if ``scheduled`` is not a run of
        the job (or one it skipped)."""
        return runs.run_row(self._parts, job_id, scheduled)

    def run_state(self, job_id: str, scheduled: int) -> OccurrenceState | None:
        """The run's state, by arithmetic for a run without a record; None if it is not a run
        of the job."""
        return self._parts.cursors.occurrence_state(job_id, scheduled)

    def record(self, job_id: str, scheduled: int) -> Occurrence | None:
        """The run's record, if it has one (a worker took it, or something happened to it)."""
        return self._records.get((job_id, scheduled))

    def has_record(self, job_id: str, scheduled: int) -> bool:
        """Whether the run has a record (live or archived): cheaper than :meth:`record` for an
        archived run, which is read back as a new record."""
        return (job_id, scheduled) in self._records

    def record_ticks(self, job_id: str, since: int) -> Iterator[int]:
        """The scheduled ticks of the job's runs with a record (live or archived) from
        ``since`` on, in order: a seek in the job's archived runs, for a reader that asks
        :meth:`has_record` of most of them."""
        return self._parts.store.job_ticks(job_id, since)

    def ready_and_priorities(self) -> dict[RunKey, tuple[int, int]]:
        """Each run with a record: its ``ready_since`` and ``priority`` by key, without reading
        the records back from the archive."""
        return self._parts.store.ready_and_priorities()

    def records(self) -> Mapping[RunKey, Occurrence]:
        """Every run with a record, by key, in the order they were created."""
        return self._records

    def live_records(self) -> Mapping[RunKey, Occurrence]:
        """The runs with a record in the live state: all of :meth:`records` in an engine that
        does not archive; in one that does, those not yet archived. For readers that check the
        live state and have read each archived run as it was archived."""
        return self._parts.store.records

    def live_record_keys(self, state: OccurrenceState) -> Collection[RunKey]:
        """The keys of :meth:`live_records` in ``state``, in the order they entered it."""
        return self._parts.store.live_state_keys(state)

    def archived_count(self) -> int:
        """How many runs the engine has archived, forgotten ones included (0 if it does not
        archive)."""
        archive = self._parts.store.archive
        return 0 if archive is None else archive.total

    def archived_records(self, start: int = 0) -> Iterator[Occurrence]:
        """The archived runs from the ``start``-th on, in the order they were archived, each
        read back as a new record: a reader that follows a run reads what each step archived.
        Raises ValueError if some of them were forgotten (:meth:`is_forgotten`)."""
        archive = self._parts.store.archive
        return iter(()) if archive is None else archive.records(start)

    def follow_archive(self) -> list[Occurrence]:
        """A list the engine appends each run it archives to from now on, as the record it was
        (with no archive, none ever): a reader that checks every run once (the invariant
        checker) takes the runs from it, and empties it, rather than reading each one back from
        the archive's columns. The records are no longer the engine's: never change them."""
        follower: list[Occurrence] = []
        self._parts.store.followers.append(follower)
        return follower

    def is_forgotten(self, job_id: str, scheduled: int) -> bool:
        """Whether the engine forgot what was at ``scheduled`` for the job
        (:meth:`engine.core.Engine.forget_archived`): where :meth:`run` and :meth:`run_state`
        answer None, "no such run" is then not known, only that the history there is gone."""
        return self._parts.store.is_forgotten((job_id, scheduled))

    def forgotten_before(self, job_id: str) -> int | None:
        """The tick before which the job's finished runs were forgotten (all but its latest
        there), or None if none were."""
        return self._parts.cursors.forgotten_before(job_id)

    def record_keys(self, state: OccurrenceState) -> Collection[RunKey]:
        """The keys of the runs with a record in ``state``, in the order they entered it (runs
        without a record are not among them: see :meth:`runs` and :meth:`count_runs`)."""
        return self._parts.store.state_keys(state)

    def attempts(self, job_id: str, scheduled: int) -> list[Attempt]:
        """The run's attempts so far, first first (none for a run without a record)."""
        record = self._records.get((job_id, scheduled))
        return record.attempts if record is not None else []

    def runs(
        self,
        *,
        state: OccurrenceState | None = None,
        job_id: str | None = None,
        worker_id: str | None = None,
        since: int | None = None,
        until: int | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> Page[OccurrenceRow]:
        """Runs by scheduled tick then job id, filtered, a page at a time; runs without a
        record included (a page of a million-run backlog costs the page)."""
        return runs.list_runs(
            self._parts,
            state=state,
            job_id=job_id,
            worker_id=worker_id,
            since=since,
            until=until,
            offset=offset,
            limit=limit,
        )

    def count_runs(self, *, state: OccurrenceState | None = None, job_id: str | None = None) -> int:
        """How many runs (of one job, or of all) are in ``state`` (any state: every run that
        is due or has a record), runs without a record included, by arithmetic where it can."""
        return runs.count_all_runs(self._parts, state=state, job_id=job_id)

    def run_word(self, state: OccurrenceState, scheduled: int) -> str:
        """Seed 003's word for a run in ``state`` scheduled at ``scheduled``, now."""
        window = self._parts.policy.scheduling_window or 0
        return status_words.run_word(state, scheduled, self._parts.now, window)

    # --------------------------------------------------- runs without a record

    def implicit_front(self, job_id: str) -> int | None:
        """The tick of the job's first waiting run without a record, or None (see
        :func:`engine.query.backlogs.implicit_front`)."""
        return backlogs.implicit_front(self._parts, job_id)

    def count_implicit(self, job_id: str, *, offset: int = 0, cap: int) -> int:
        """How many of the job's waiting runs without a record there are from the
        ``offset``-th on, counted up to ``cap`` (each one counted is a schedule query)."""
        return backlogs.count_implicit(self._parts, job_id, offset=offset, cap=cap)

    def cancelled_range(self, job_id: str) -> CancelledRangeView | None:
        """The job's runs cancelled together without records, as one row, if it has any."""
        return backlogs.cancelled_range(self._parts, job_id)

    def implicit_range(self, job_id: str) -> ImplicitRange | None:
        """The job's runs without a record, waiting (QUEUED or BLOCKED) or cancelled together,
        as one range of ticks, if it has any."""
        job = self._jobs.get(job_id)
        return None if job is None else implicit_range(self._parts, job)

    def implicit_runs(self, job_id: str, first: int, last: int) -> Iterator[int]:
        """The ticks of the job's runs in ``[first, last]`` that have no record and were not
        skipped, in order: one schedule step each."""
        return runs_in(self._parts, self._jobs[job_id], first, last)

    def run_counter(self) -> RunCounter:
        """A counter of runs without a record within tick spans, for counting many at once."""
        return RunCounter(self._parts)

    # ------------------------------------------------------ the jobs' cursors

    def created_through(self) -> int:
        """The latest tick through which runs that fell due were created (by a dispatch; every
        processed tick under automatic dispatch)."""
        return self._parts.cursors.created_through

    def dispatches(self) -> int:
        """How often due runs were created; a job scheduled after the last time has none."""
        return self._parts.cursors.dispatches

    def created_limit(self, job_id: str) -> int:
        """The last tick whose runs of the job were created (its pause holds it back)."""
        return self._parts.cursors.created_limit(self._jobs[job_id])

    def next_due(self) -> int | None:
        """The next tick at which a job's run falls due, if any job waits for one (it may be
        one a pause or a change has made stale: a tick to look at, not a promise)."""
        return self._parts.cursors.next_due_tick()

    def falling_due(self, through: int) -> list[tuple[int, Job]]:
        """The jobs whose next run falls due by ``through``, with its tick, soonest first."""
        return queue.falling_due(self._parts, through)

    # ---------------------------------------------------------------- workers

    def worker(self, worker_id: str) -> Worker | None:
        return self._workers.get(worker_id)

    def workers(self) -> Mapping[str, Worker]:
        """Every registered worker, by id in registration order."""
        return self._workers

    def worker_rows(self) -> list[WorkerRow]:
        """Each worker with what it runs and its share of busy ticks, in registration order."""
        return workers.worker_rows(self._parts)

    # ---------------------------------------------------------- notifications

    def notification(self, key: NotificationKey) -> Notification | None:
        return self._outbox.get(key)

    def notifications(self) -> Mapping[NotificationKey, Notification]:
        """The outbox: every notification, by idempotency key, oldest first."""
        return self._outbox

    # ------------------------------------------------- the queue and the rules

    def ready_runs(self) -> list[Waiting]:
        """The runs in the ready queue, each once (see :func:`engine.query.queue.ready_runs`)."""
        return queue.ready_runs(self._parts)

    def ready_queue_empty(self) -> bool:
        """Whether the ready queue holds nothing, withdrawn entries included: at rest with idle
        workers, a dispatch has emptied it of those."""
        return not self._parts.ready

    def pool(self, name: str) -> PoolUse | None:
        """The pool's slots and those running attempts hold; None if the policy has no such
        pool."""
        return rules.pool_use(self._parts, name)

    def active_runs(self, job_id: str) -> int:
        """The job's active runs as its overlap rule counts them: not final, the held one
        left out."""
        return self._parts.overlap.active(self._jobs[job_id])

    def upstream(self, job_id: str, scheduled: int) -> Upstream:
        """The trigger rule and the upstream runs that decide a run of a job with run
        dependencies (see :func:`engine.query.rules.upstream`)."""
        return rules.upstream(self._parts, self._jobs[job_id], scheduled)

    def backfill_plan(self, command: BackfillJob) -> Plan:
        """The runs a backfill would create now, and those it would find, without creating any
        (the dry run); raises :class:`~engine.rules.backfill.BackfillError` for a backfill the
        engine would refuse."""
        return plan(self._parts.cursors, self._parts.now, command)

    def backfill_pending(self, job_id: str, scheduled: int) -> bool:
        """Whether the job's backfill under way has still to create its run at ``scheduled``."""
        return self._parts.backfills.pending(self._jobs[job_id], scheduled)
