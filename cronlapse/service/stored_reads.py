"""Reads from the read model in the database (``serve --role api``): see
:mod:`cronlapse.service.reads`.

The stored JSON is :mod:`cronlapse.service.views`' own, written by the active scheduler
(:mod:`cronlapse.service.read_model`), so this module only selects and pages: ``GET /jobs`` in
submission order with its filters as columns, a job's runs by scheduled time. Queries run on a
worker thread, so one slow read does not hold up the process's other requests. With ``--read-db``
the URL is a streaming replica's: it answers as of the last transaction it has replayed.
"""

from __future__ import annotations

import asyncio
import json

from sqlalchemy import func, select
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.db import open_database
from cronlapse.service.migrations.v003_inbox import view_jobs, view_meta, view_runs
from cronlapse.service.read_model import METRICS_KEY, TICK_KEY, WORKERS_KEY
from cronlapse.service.reads import JobFilter, Listing


class StoredReads:
    def __init__(self, url: str) -> None:
        self.db: SqlEngine = open_database(url)

    def close(self) -> None:
        self.db.dispose()

    async def tick(self) -> int:
        return int(await asyncio.to_thread(self._meta, TICK_KEY, "0"))

    async def exists(self, job_id: str) -> bool:
        return await asyncio.to_thread(self._detail, job_id) is not None

    async def job(self, job_id: str) -> dict | None:
        found = await asyncio.to_thread(self._detail, job_id)
        return None if found is None else json.loads(found)

    async def jobs(self, start: int, limit: int, wanted: JobFilter) -> Listing:
        return await asyncio.to_thread(self._jobs, start, limit, wanted)

    async def runs(self, job_id: str, start: int, limit: int) -> Listing | None:
        return await asyncio.to_thread(self._runs, job_id, start, limit)

    async def workers(self) -> list[dict]:
        return json.loads(await asyncio.to_thread(self._meta, WORKERS_KEY, "[]"))

    async def metrics(self) -> str:
        return await asyncio.to_thread(self._meta, METRICS_KEY, "")

    def _meta(self, key: str, default: str) -> str:
        with self.db.connect() as conn:
            value = conn.execute(select(view_meta.c.value).where(view_meta.c.key == key)).scalar()
        return default if value is None else value

    def _detail(self, job_id: str) -> str | None:
        with self.db.connect() as conn:
            return conn.execute(
                select(view_jobs.c.detail).where(
                    view_jobs.c.job_id == job_id, view_jobs.c.deleted.is_(False)
                )
            ).scalar()

    def _jobs(self, start: int, limit: int, wanted: JobFilter) -> Listing:
        query = select(view_jobs.c.position, view_jobs.c.summary).where(
            view_jobs.c.position >= start, view_jobs.c.deleted.is_(False)
        )
        if wanted.status is not None:
            query = query.where(view_jobs.c.status == wanted.status)
        if wanted.priority is not None:
            query = query.where(view_jobs.c.priority == wanted.priority)
        if wanted.run is not None:
            query = query.where(view_jobs.c.run == wanted.run)
        with self.db.connect() as conn:
            rows = conn.execute(query.order_by(view_jobs.c.position).limit(limit)).all()
            if len(rows) < limit:
                return Listing([json.loads(row.summary) for row in rows], None)
            last = conn.execute(select(func.max(view_jobs.c.position))).scalar()
        following = rows[-1].position + 1
        more = last is not None and following <= last
        return Listing([json.loads(row.summary) for row in rows], str(following) if more else None)

    def _runs(self, job_id: str, start: int, limit: int) -> Listing | None:
        with self.db.connect() as conn:
            live = conn.execute(
                select(view_jobs.c.position).where(
                    view_jobs.c.job_id == job_id, view_jobs.c.deleted.is_(False)
                )
            ).first()
            if live is None:
                return None
            rows = conn.execute(
                select(view_runs.c.view)
                .where(view_runs.c.job_id == job_id)
                .order_by(view_runs.c.scheduled)
                .offset(start)
                .limit(limit + 1)
            ).all()
        items = [json.loads(row.view) for row in rows[:limit]]
        return Listing(items, str(start + limit) if len(rows) > limit else None)
