"""The lazy backlogs, read: a job's runs that wait (or were cancelled together) without records.

The one reading of :mod:`engine.parts.ranges` for everything above the kernel: a table shows a
job's implicit backlog as one row (its front, with a count behind it) and a cancelled range as
another; an explanation counts the runs of a range up to a tick. No view walks a schedule to
find these runs itself.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from engine.model.records import OccurrenceState
from engine.parts.ranges import RecordTicks, count_runs, implicit_range, runs_in
from engine.query.views import CancelledRangeView

if TYPE_CHECKING:
    from engine.query.engine_parts import EngineParts

S = OccurrenceState


def implicit_front(parts: EngineParts, job_id: str) -> int | None:
    """The scheduled tick of a job's first waiting run without a record, or None.

    The dashboard shows a job's implicit backlog as this one row (with a count behind it), so a
    million waiting runs cost one row, and asks this of every job on every move. It is the job's
    cursor once created: every schedule tick before the cursor has a record or was skipped, and
    the cursor is a tick of the schedule it was created under, so no schedule query is needed."""
    job = parts.jobs.get(job_id)
    if job is None:
        return None
    tick = job.next_due
    if (
        tick is None
        or (job_id, tick) in parts.occurrences
        or not parts.cursors.is_created(job, tick)
    ):
        return None
    return tick


def count_implicit(parts: EngineParts, job_id: str, *, offset: int = 0, cap: int) -> int:
    """How many of a job's implicitly waiting runs (queued or blocked) there are from the
    ``offset``-th on, counted up to ``cap``. Each run counted is a schedule query (not free for a
    cron schedule), hence the cap: a table row asks for a few, the detail pane for more."""
    job = parts.jobs.get(job_id)
    waiting = implicit_range(parts, job) if job is not None else None
    if job is None or waiting is None or waiting.state is S.CANCELLED:
        return 0
    runs = runs_in(parts, job, waiting.first, waiting.last)
    return sum(1 for _ in itertools.islice(runs, offset, offset + cap))


def cancelled_range(parts: EngineParts, job_id: str) -> CancelledRangeView | None:
    """The job's cancelled range, if it has one with runs in it."""
    job = parts.jobs.get(job_id)
    cancelled = job.cancelled_backlog if job is not None else None
    if job is None or cancelled is None:
        return None
    runs = runs_in(parts, job, cancelled.first, cancelled.last)
    first_run = next(runs, None)
    if first_run is None:
        return None
    count = 1 + count_runs(parts, job, first_run + 1, cancelled.last)
    return CancelledRangeView(
        job_id, cancelled.first, first_run, count, cancelled.reason, cancelled.cause
    )


class RunCounter:
    """Counts of jobs' runs without a record within tick spans, for a caller that counts many
    (an explanation counts the runs behind every front ahead of a run): the engine's records are
    read at most once for all the counts, and only if one of them needs them."""

    def __init__(self, parts: EngineParts) -> None:
        self._parts = parts
        self._records = RecordTicks(parts)

    def between(self, job_id: str, first: int, last: int) -> int:
        """How many runs of the job in ``[first, last]`` have no record and were not skipped."""
        job = self._parts.jobs[job_id]
        return count_runs(self._parts, job, first, last, self._records)
