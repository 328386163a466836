"""What the API reads, behind one interface: from the live engine, or from the read model.

The handlers (:mod:`cronlapse.service.api`) check the request and shape the answer; where the answer
comes from is a :class:`Reads`: :class:`LiveReads`, the engine in this process (the single process
and the active scheduler), or :class:`~cronlapse.service.stored_reads.StoredReads`, the read model
in the store (``serve --role api``, which holds no engine). ``GET /jobs``' filters are the store's
:class:`~cronlapse.service.store.JobFilter`, which the read model filters by. Both answer with
:mod:`cronlapse.service.views`' JSON, so the two kinds of process answer the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from cronlapse.service.live import LiveService
from cronlapse.service.metrics import Metrics
from cronlapse.service.store import JobFilter
from cronlapse.service.views import job_json, job_status, run_json, workers_json


@dataclass(frozen=True, slots=True)
class Listing:
    """One page and the cursor of the next (None: the last page)."""

    items: list[dict]
    next: str | None


class Reads(Protocol):
    async def tick(self) -> int: ...

    async def exists(self, job_id: str) -> bool:
        """Whether the job exists and is not deleted."""
        ...

    async def job(self, job_id: str) -> dict | None: ...

    async def jobs(self, start: int, limit: int, wanted: JobFilter) -> Listing: ...

    async def runs(self, job_id: str, since: int, limit: int) -> Listing | None:
        """The job's runs scheduled at or after tick ``since``, by scheduled tick; the next
        page's cursor is the tick of the run after the page (a key, not an offset)."""
        ...

    async def workers(self) -> list[dict]: ...

    async def metrics(self) -> str: ...


class LiveReads:
    """Reads from the engine in this process: the state as of the last applied input."""

    def __init__(self, live: LiveService, metrics: Metrics) -> None:
        self.live = live
        self.counters = metrics

    async def tick(self) -> int:
        return self.live.engine.now

    async def exists(self, job_id: str) -> bool:
        return self.live.engine.query.live_job(job_id) is not None

    async def job(self, job_id: str) -> dict | None:
        job = self.live.engine.query.live_job(job_id)
        return None if job is None else job_json(self.live.state, job)

    async def jobs(self, start: int, limit: int, wanted: JobFilter) -> Listing:
        state = self.live.state
        engine = state.engine
        order = state.order
        items = []
        position = start
        while position < len(order) and len(items) < limit:
            job = engine.query.jobs()[order[position]]
            position += 1
            if (
                not job.deleted
                and (wanted.priority is None or job.spec.priority == wanted.priority)
                and (wanted.run is None or state.runs.get(job.job_id, "noop") == wanted.run)
                and (wanted.status is None or job_status(state, job) == wanted.status)
            ):
                items.append(job_json(state, job, detail=False))
        more = position < len(order)
        return Listing(items, str(position) if more else None)

    async def runs(self, job_id: str, since: int, limit: int) -> Listing | None:
        engine = self.live.engine
        if engine.query.live_job(job_id) is None:
            return None
        rows = engine.query.runs(job_id=job_id, since=since, limit=limit + 1).items
        following = str(rows[limit].scheduled) if len(rows) > limit else None
        return Listing([run_json(engine, row) for row in rows[:limit]], following)

    async def workers(self) -> list[dict]:
        return workers_json(self.live.engine)

    async def metrics(self) -> str:
        return self.counters.text(self.live.engine, self.live.state)
