"""Read-only questions about an engine: track a job or an occurrence, list with filters and paging.

Occurrences waiting implicitly (due, created, not yet taken by a worker) are listed too: they are
generated lazily from each job's cursor and merged in order, so paging through a backlog of a
million costs only the page.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from engine.core import Engine
from engine.model import Attempt, Job, Occurrence, OccurrenceState, WorkerState
from engine.schedules import next_fire_times

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
    return OccurrenceRow(job_id, scheduled, state, engine.occurrences.get((job_id, scheduled)))


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
    """Occurrences by scheduled tick then job id, filtered; implicit QUEUED ones included."""
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


def _all_rows(
    engine: Engine, state: OccurrenceState | None, job_id: str | None
) -> Iterator[OccurrenceRow]:
    keys = engine.occurrences.keys() if state is None else engine.by_state[state].keys()
    if job_id is not None:
        keys = [k for k in keys if k[0] == job_id]
    order = {j: job.order_key for j, job in engine.jobs.items()}
    materialised = sorted(keys, key=lambda k: (k[1], order[k[0]]))
    streams = [((k[1], order[k[0]], k[0]), engine.occurrences[k]) for k in materialised]
    generators: list[Iterator] = [iter(streams)]
    if state in (None, S.QUEUED):
        jobs = [engine.jobs[job_id]] if job_id in engine.jobs else []
        if job_id is None:
            jobs = list(engine.jobs.values())
        generators += [_implicit(engine, job) for job in jobs]
    for (scheduled, _, row_job), record in heapq.merge(*generators, key=lambda item: item[0]):
        if record is None:
            yield OccurrenceRow(row_job, scheduled, S.QUEUED, None)
        else:
            yield OccurrenceRow(row_job, scheduled, record.state, record)


def _implicit(engine: Engine, job: Job) -> Iterator[tuple[tuple[int, bytes, str], None]]:
    """A job's implicit QUEUED occurrences, from its cursor to the last created tick."""
    tick = job.next_due
    while tick is not None and engine.is_created(job, tick):
        if (job.job_id, tick) not in engine.occurrences and engine.occurrence_state(
            job.job_id, tick
        ) is S.QUEUED:
            yield (tick, job.order_key, job.job_id), None
        tick = job.first_fire(tick + 1)


def implicit_front(engine: Engine, job_id: str) -> int | None:
    """The scheduled tick of a job's first due run without a record, or None.

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
    """How many of a job's implicitly waiting runs there are from the ``offset``-th on, counted up
    to ``cap``. Each run counted is a schedule query (not free for a cron schedule), hence the
    cap: a table row asks for a few, the detail pane for more."""
    job = engine.jobs.get(job_id)
    if job is None:
        return 0
    return sum(1 for _ in itertools.islice(_implicit(engine, job), offset, offset + cap))
