"""What the API reads, behind one interface: from the live engine, or from the read model.

The handlers (:mod:`cronlapse.service.api`) check the request and shape the answer; where the answer
comes from is a :class:`Reads`: :class:`LiveReads`, the engine in this process (the single process
and the active scheduler), or :class:`~cronlapse.service.stored_reads.StoredReads`, the read model
in the store (``serve --role api``, which holds no engine). Finished runs come from the store in
both: the live engine writes them there before a snapshot lets it forget them
(:meth:`~cronlapse.service.live.LiveService.keep_history`), so :meth:`LiveReads.runs` merges its
engine's runs with the store's. ``GET /jobs``' filters are the store's
:class:`~cronlapse.service.store.JobFilter`, which the read model filters by. Both answer with
:mod:`cronlapse.service.views`' JSON, so the two kinds of process answer the same.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Protocol

from cronlapse.service.live import LiveService
from cronlapse.service.metrics import Metrics
from cronlapse.service.store import JobFilter
from cronlapse.service.views import job_json, job_status, recent_runs, run_json, workers_json


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
        """The job's detail; its recent runs the engine no longer holds are read from the
        store's history (the engine is read first, as for :meth:`runs`)."""
        state = self.live.state
        job = state.engine.query.live_job(job_id)
        if job is None:
            return None
        summary = job_json(state, job, detail=False)
        recent = recent_runs(state, job)
        stored = None
        if recent.unanswered or recent.stored:
            stored = await asyncio.to_thread(recent.read, self.live.store.views, job_id)
        return summary | {"runs": recent.json(stored)}

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
        """The engine's runs and the store's finished ones (the history the engine may have
        forgotten), merged by scheduled tick: the first ``limit + 1`` of each hold the page and
        the next one's key. The engine is read first, on the loop's thread: a run it forgets
        while the store is read was written to the store before it was forgotten."""
        engine = self.live.engine
        if engine.query.live_job(job_id) is None:
            return None
        rows = engine.query.runs(job_id=job_id, since=since, limit=limit + 1).items
        page = {row.scheduled: run_json(engine, row) for row in rows}
        kept = await asyncio.to_thread(self.live.store.views.finished, job_id, since, limit + 1)
        for tick, view in kept:
            if tick not in page:
                page[tick] = json.loads(view)
        ticks = sorted(page)
        following = str(ticks[limit]) if len(ticks) > limit else None
        return Listing([page[tick] for tick in ticks[:limit]], following)

    async def workers(self) -> list[dict]:
        return workers_json(self.live.engine)

    async def metrics(self) -> str:
        return self.counters.text(self.live.engine, self.live.state)
