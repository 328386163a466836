"""Runs, one or many: a run's row, and runs listed, paged and counted with filters.

Runs without a record (see :mod:`engine.parts.ranges`: QUEUED or BLOCKED from a job's cursor, or
CANCELLED together with their job) are listed and counted too: they are generated lazily from
each job's range and merged in order, so paging through a backlog of a million costs only the page.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING

from engine.model.records import Job, Occurrence, OccurrenceState
from engine.parts.ranges import ImplicitRange, RecordTicks, count_runs, implicit_range, runs_in
from engine.query.views import OccurrenceRow, Page

if TYPE_CHECKING:
    from engine.query.engine_parts import EngineParts

S = OccurrenceState


def run_row(parts: EngineParts, job_id: str, scheduled: int) -> OccurrenceRow | None:
    """The run as a row, implicit or recorded; None if ``scheduled`` is not a run of the job."""
    state = parts.cursors.occurrence_state(job_id, scheduled)
    if state is None:
        return None
    record = parts.occurrences.get((job_id, scheduled))
    if record is not None:
        return record_row(record)
    return implicit_row(parts.jobs[job_id], scheduled, state)


def list_runs(
    parts: EngineParts,
    *,
    state: OccurrenceState | None = None,
    job_id: str | None = None,
    worker_id: str | None = None,
    since: int | None = None,
    until: int | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[OccurrenceRow]:
    """Runs by scheduled tick then job id, filtered; implicit ones included."""
    rows = _all_rows(parts, state, job_id, since)
    if worker_id is not None:
        rows = (r for r in rows if any(a.worker_id == worker_id for a in r.attempts))
    if since is not None:
        rows = (r for r in rows if r.scheduled >= since)
    if until is not None:
        rows = itertools.takewhile(lambda r: r.scheduled <= until, rows)
    window = list(itertools.islice(rows, offset, offset + limit + 1))
    return Page(window[:limit], offset, len(window) > limit)


def count_all_runs(
    parts: EngineParts, *, state: OccurrenceState | None = None, job_id: str | None = None
) -> int:
    """How many runs (of one job, or of all) are in ``state`` (any state: every one that is due
    or has a record), implicit ones included; arithmetic per range where it can be."""
    keys = parts.occurrences.keys() if state is None else parts.store.state_keys(state)
    total = len(keys) if job_id is None else sum(1 for key in keys if key[0] == job_id)
    records = RecordTicks(parts)
    for waiting in _ranges(parts, state, job_id):
        total += count_runs(parts, waiting.job, waiting.first, waiting.last, records)
    return total


def record_row(record: Occurrence) -> OccurrenceRow:
    job_id, scheduled = record.key
    return OccurrenceRow(
        job_id, scheduled, record.state, record, record.cancel_reason, record.cancel_cause
    )


def implicit_row(job: Job, scheduled: int, state: OccurrenceState) -> OccurrenceRow:
    cancelled = job.cancelled_backlog
    if state is S.CANCELLED and cancelled is not None:
        return OccurrenceRow(job.job_id, scheduled, state, None, cancelled.reason, cancelled.cause)
    return OccurrenceRow(job.job_id, scheduled, state, None)


def _all_rows(
    parts: EngineParts, state: OccurrenceState | None, job_id: str | None, since: int | None
) -> Iterator[OccurrenceRow]:
    occurrences = parts.occurrences
    if job_id is not None and state is None and job_id in parts.jobs:
        streams: Iterator = _job_records(parts, job_id, since)
    else:
        keys = parts.occurrences.keys() if state is None else parts.store.state_keys(state)
        if job_id is not None:
            keys = [k for k in keys if k[0] == job_id]
        order = {j: job.order_key for j, job in parts.jobs.items()}
        materialised = sorted(keys, key=lambda k: (k[1], order[k[0]]))
        streams = iter(
            [((k[1], order[k[0]], k[0]), record_row(occurrences[k])) for k in materialised]
        )
    generators: list[Iterator] = [streams]
    generators += [_implicit(parts, waiting) for waiting in _ranges(parts, state, job_id)]
    for _, row in heapq.merge(*generators, key=lambda item: item[0]):
        yield row


def _job_records(
    parts: EngineParts, job_id: str, since: int | None
) -> Iterator[tuple[tuple[int, bytes, str], OccurrenceRow]]:
    """One job's runs with a record from ``since`` on, in tick order, each built when the page
    reaches it (a seek in the job's runs, not a sort of every job's)."""
    order_key, occurrences = parts.jobs[job_id].order_key, parts.occurrences
    first = -(2**63) if since is None else since
    for tick in parts.store.job_ticks(job_id, first):
        yield (tick, order_key, job_id), record_row(occurrences[(job_id, tick)])


def _ranges(
    parts: EngineParts, state: OccurrenceState | None, job_id: str | None
) -> Iterator[ImplicitRange]:
    """The implicit ranges of the jobs asked about whose runs are in ``state`` (any if None)."""
    if state not in (None, S.QUEUED, S.BLOCKED, S.CANCELLED):
        return
    if job_id is not None and job_id not in parts.jobs:
        return
    jobs = parts.jobs.values() if job_id is None else [parts.jobs[job_id]]
    for job in jobs:
        waiting = implicit_range(parts, job)
        if waiting is not None and (state is None or waiting.state is state):
            yield waiting


def _implicit(
    parts: EngineParts, waiting: ImplicitRange
) -> Iterator[tuple[tuple[int, bytes, str], OccurrenceRow]]:
    """A range's rows, in tick order, keyed for merging with the records' rows."""
    job = waiting.job
    for tick in runs_in(parts, job, waiting.first, waiting.last):
        yield (tick, job.order_key, job.job_id), implicit_row(job, tick, waiting.state)
