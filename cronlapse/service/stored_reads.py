"""Reads from the read model in the store (``serve --role api``): see
:mod:`cronlapse.service.reads`.

The stored JSON is :mod:`cronlapse.service.views`' own, written by the active scheduler
(:mod:`cronlapse.service.read_model`), so this module only asks for pages and parses them:
``GET /jobs`` in submission order with its filters, a job's runs by scheduled tick. Reads run on
a worker thread, so one slow read does not hold up the process's other requests. With
``--read-db`` the store is a streaming replica's: it answers as of the last transaction it has
replayed.
"""

from __future__ import annotations

import asyncio
import json

from cronlapse.service.read_model import METRICS_KEY, TICK_KEY, WORKERS_KEY
from cronlapse.service.reads import Listing
from cronlapse.service.store import JobFilter, Page, Views


class StoredReads:
    def __init__(self, views: Views) -> None:
        self.views = views

    async def tick(self) -> int:
        return int(await self._meta(TICK_KEY, "0"))

    async def exists(self, job_id: str) -> bool:
        return await asyncio.to_thread(self.views.job, job_id) is not None

    async def job(self, job_id: str) -> dict | None:
        found = await asyncio.to_thread(self.views.job, job_id)
        return None if found is None else json.loads(found)

    async def jobs(self, start: int, limit: int, wanted: JobFilter) -> Listing:
        return _listing(await asyncio.to_thread(self.views.jobs, start, limit, wanted))

    async def runs(self, job_id: str, since: int, limit: int) -> Listing | None:
        page = await asyncio.to_thread(self.views.runs, job_id, since, limit)
        return None if page is None else _listing(page)

    async def workers(self) -> list[dict]:
        return json.loads(await self._meta(WORKERS_KEY, "[]"))

    async def metrics(self) -> str:
        return await self._meta(METRICS_KEY, "")

    async def _meta(self, key: str, default: str) -> str:
        value = await asyncio.to_thread(self.views.meta, key)
        return default if value is None else value


def _listing(page: Page) -> Listing:
    following = None if page.next is None else str(page.next)
    return Listing([json.loads(item) for item in page.items], following)
