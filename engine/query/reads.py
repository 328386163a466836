"""Read-only questions about an engine: track a job or an occurrence, list with filters and paging.

Occurrences without a record (see :mod:`engine.parts.ranges`: QUEUED or BLOCKED from a job's cursor,
or CANCELLED together with their job) are listed and counted too: they are generated lazily from
each job's range and merged in order, so paging through a backlog of a million costs only the page.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from engine.core import Engine
from engine.model.records import (
    Attempt,
    CancelReason,
    Job,
    Occurrence,
    OccurrenceState,
    WorkerState,
)
from engine.parts.ranges import ImplicitRange, RecordTicks, count_runs, implicit_range, runs_in
from engine.schedules.kinds import next_fire_times

S = OccurrenceState


@dataclass(frozen=True, slots=True)
class JobView:
    job: Job
    status: str
    """active, paused or deleted."""
    next_fire_times: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class OccurrenceRow:
    """One occurrence as a table row; ``record`` is None for an implicit (untouched) one."""

    job_id: str
    scheduled: int
    state: OccurrenceState
    record: Occurrence | None
    cancel_reason: CancelReason | None = None
    cancel_cause: str | None = None
    """For a cascade cancellation: the job whose failure started it."""

    @property
    def attempts(self) -> list[Attempt]:
        return self.record.attempts if self.record is not None else []


@dataclass(frozen=True, slots=True)
class WorkerRow:
    worker_id: str
    state: WorkerState
    running: tuple[str, int] | None
    attempt: int | None
    since: int
    utilisation: float
    """Share of the ticks since registration spent running attempts."""


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: list[T]
    offset: int
    more: bool
    """Whether rows follow this page."""


def job_view(engine: Engine, job_id: str, fire_times: int = 5) -> JobView | None:
    job = engine.jobs.get(job_id)
    if job is None:
        return None
    status = "deleted" if job.deleted else "paused" if job.paused_through is not None else "active"
    following: tuple[int, ...] = ()
    if job.next_due is not None and not job.deleted:
        start = max(engine.now, job.next_due)
        following = tuple(next_fire_times(job.spec.schedule, start, fire_times))
    return JobView(job, status, following)


def occurrence_row(engine: Engine, job_id: str, scheduled: int) -> OccurrenceRow | None:
    state = engine.occurrence_state(job_id, scheduled)
    if state is None:
        return None
    record = engine.occurrences.get((job_id, scheduled))
    if record is not None:
        return _record_row(record)
    return _implicit_row(engine.jobs[job_id], scheduled, state)


def list_occurrences(
    engine: Engine,
    *,
    state: OccurrenceState | None = None,
    job_id: str | None = None,
    worker_id: str | None = None,
    since: int | None = None,
    until: int | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[OccurrenceRow]:
    """Occurrences by scheduled tick then job id, filtered; implicit ones included."""
    rows = _all_rows(engine, state, job_id)
    if worker_id is not None:
        rows = (r for r in rows if any(a.worker_id == worker_id for a in r.attempts))
    if since is not None:
        rows = (r for r in rows if r.scheduled >= since)
    if until is not None:
        rows = itertools.takewhile(lambda r: r.scheduled <= until, rows)
    window = list(itertools.islice(rows, offset, offset + limit + 1))
    return Page(window[:limit], offset, len(window) > limit)


def list_jobs(
    engine: Engine, *, status: str | None = None, offset: int = 0, limit: int = 50
) -> Page[JobView]:
    """Jobs in submission order, filtered by status, a page at a time.

    ``status="active"`` keeps only jobs with work left: neither paused nor deleted, and with a run
    that is not final (waiting, blocked, running or pending a retry) or a run still to come. A
    one-time job whose run succeeded, failed or was cancelled is not active, although its view's
    status (which only tells active from paused and deleted) still says ``active``."""
    views = (job_view(engine, job_id, fire_times=1) for job_id in engine.jobs)
    matching = (
        v
        for v in views
        if v is not None
        and (status is None or v.status == status)
        and (status != "active" or _has_work_left(v.job))
    )
    window = list(itertools.islice(matching, offset, offset + limit + 1))
    return Page(window[:limit], offset, len(window) > limit)


def _has_work_left(job: Job) -> bool:
    """A materialised run not yet final, or a cursor on a run (due and implicit, or to come)."""
    return bool(job.open) or job.next_due is not None


def worker_rows(engine: Engine) -> list[WorkerRow]:
    rows = []
    for worker in engine.workers.values():
        attempt = None
        if worker.running is not None:
            running = engine.occurrences[worker.running].running_attempt
            attempt = running.number if running is not None else None
        lifetime = engine.now - worker.registered
        busy = worker.busy_ticks_at(engine.now)
        rows.append(
            WorkerRow(
                worker.worker_id,
                worker.state,
                worker.running,
                attempt,
                worker.since,
                busy / lifetime if lifetime > 0 else 0.0,
            )
        )
    return rows


def count_occurrences(
    engine: Engine, *, state: OccurrenceState | None = None, job_id: str | None = None
) -> int:
    """How many occurrences (of one job, or of all) are in ``state`` (any state: every one that
    is due or has a record), implicit ones included; arithmetic per range where it can be."""
    keys = engine.occurrences.keys() if state is None else engine.by_state[state].keys()
    total = len(keys) if job_id is None else sum(1 for key in keys if key[0] == job_id)
    records = RecordTicks(engine)
    for waiting in _ranges(engine, state, job_id):
        total += count_runs(engine, waiting.job, waiting.first, waiting.last, records)
    return total


def _all_rows(
    engine: Engine, state: OccurrenceState | None, job_id: str | None
) -> Iterator[OccurrenceRow]:
    keys = engine.occurrences.keys() if state is None else engine.by_state[state].keys()
    if job_id is not None:
        keys = [k for k in keys if k[0] == job_id]
    order = {j: job.order_key for j, job in engine.jobs.items()}
    materialised = sorted(keys, key=lambda k: (k[1], order[k[0]]))
    occurrences = engine.occurrences
    streams = [((k[1], order[k[0]], k[0]), _record_row(occurrences[k])) for k in materialised]
    generators: list[Iterator] = [iter(streams)]
    generators += [_implicit(engine, waiting) for waiting in _ranges(engine, state, job_id)]
    for _, row in heapq.merge(*generators, key=lambda item: item[0]):
        yield row


def _ranges(
    engine: Engine, state: OccurrenceState | None, job_id: str | None
) -> Iterator[ImplicitRange]:
    """The implicit ranges of the jobs asked about whose runs are in ``state`` (any if None)."""
    if state not in (None, S.QUEUED, S.BLOCKED, S.CANCELLED):
        return
    if job_id is not None and job_id not in engine.jobs:
        return
    jobs = engine.jobs.values() if job_id is None else [engine.jobs[job_id]]
    for job in jobs:
        waiting = implicit_range(engine, job)
        if waiting is not None and (state is None or waiting.state is state):
            yield waiting


def _implicit(
    engine: Engine, waiting: ImplicitRange
) -> Iterator[tuple[tuple[int, bytes, str], OccurrenceRow]]:
    """A range's rows, in tick order, keyed for merging with the records' rows."""
    job = waiting.job
    for tick in runs_in(engine, job, waiting.first, waiting.last):
        yield (tick, job.order_key, job.job_id), _implicit_row(job, tick, waiting.state)


def _record_row(record: Occurrence) -> OccurrenceRow:
    job_id, scheduled = record.key
    return OccurrenceRow(
        job_id, scheduled, record.state, record, record.cancel_reason, record.cancel_cause
    )


def _implicit_row(job: Job, scheduled: int, state: OccurrenceState) -> OccurrenceRow:
    cancelled = job.cancelled_backlog
    if state is S.CANCELLED and cancelled is not None:
        return OccurrenceRow(job.job_id, scheduled, state, None, cancelled.reason, cancelled.cause)
    return OccurrenceRow(job.job_id, scheduled, state, None)


def implicit_front(engine: Engine, job_id: str) -> int | None:
    """The scheduled tick of a job's first waiting run without a record, or None.

    The dashboard shows a job's implicit backlog as this one row (with a count behind it), so a
    million waiting runs cost one row, and asks this of every job on every move. It is the job's
    cursor once created: every schedule tick before the cursor has a record or was skipped, and
    the cursor is a tick of the schedule it was created under, so no schedule query is needed."""
    job = engine.jobs.get(job_id)
    if job is None:
        return None
    tick = job.next_due
    if tick is None or (job_id, tick) in engine.occurrences or not engine.is_created(job, tick):
        return None
    return tick


def count_implicit(engine: Engine, job_id: str, *, offset: int = 0, cap: int) -> int:
    """How many of a job's implicitly waiting runs (queued or blocked) there are from the
    ``offset``-th on, counted up to ``cap``. Each run counted is a schedule query (not free for a
    cron schedule), hence the cap: a table row asks for a few, the detail pane for more."""
    job = engine.jobs.get(job_id)
    waiting = implicit_range(engine, job) if job is not None else None
    if waiting is None or waiting.state is S.CANCELLED:
        return 0
    runs = runs_in(engine, job, waiting.first, waiting.last)
    return sum(1 for _ in itertools.islice(runs, offset, offset + cap))


@dataclass(frozen=True, slots=True)
class CancelledRangeView:
    """A job's runs cancelled together without records (a deletion or a cascade), as one row."""

    job_id: str
    first: int
    """The range's first tick, as its ``BacklogCancelled`` event names it."""
    first_run: int
    """The first run in it."""
    runs: int
    reason: CancelReason
    cause: str | None


def cancelled_range(engine: Engine, job_id: str) -> CancelledRangeView | None:
    """The job's cancelled range, if it has one with runs in it."""
    job = engine.jobs.get(job_id)
    cancelled = job.cancelled_backlog if job is not None else None
    if job is None or cancelled is None:
        return None
    runs = runs_in(engine, job, cancelled.first, cancelled.last)
    first_run = next(runs, None)
    if first_run is None:
        return None
    count = 1 + count_runs(engine, job, first_run + 1, cancelled.last)
    return CancelledRangeView(
        job_id, cancelled.first, first_run, count, cancelled.reason, cancelled.cause
    )
