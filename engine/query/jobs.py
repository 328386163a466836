"""Jobs as views: one job's status and next fire times, and jobs listed a page at a time."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from engine.model.records import Job
from engine.query.views import JobView, Page
from engine.schedules.kinds import next_fire_times

if TYPE_CHECKING:
    from engine.query.engine_parts import EngineParts


def job_view(parts: EngineParts, job_id: str, fire_times: int = 5) -> JobView | None:
    job = parts.jobs.get(job_id)
    if job is None:
        return None
    status = "deleted" if job.deleted else "paused" if job.paused_through is not None else "active"
    following: tuple[int, ...] = ()
    if job.next_due is not None and not job.deleted:
        start = max(parts.now, job.next_due)
        following = tuple(next_fire_times(job.spec.schedule, start, fire_times))
    return JobView(job, status, following)


def list_jobs(
    parts: EngineParts, *, status: str | None = None, offset: int = 0, limit: int = 50
) -> Page[JobView]:
    """Jobs in submission order, filtered by status, a page at a time.

    ``status="active"`` keeps only jobs with work left: neither paused nor deleted, and with a run
    that is not final (waiting, blocked, running or pending a retry) or a run still to come. A
    one-time job whose run succeeded, failed or was cancelled is not active, although its view's
    status (which only tells active from paused and deleted) still says ``active``."""
    views = (job_view(parts, job_id, fire_times=1) for job_id in parts.jobs)
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
