"""The read model in SQL: written with the journal's appends, read by API processes (see
:mod:`cronlapse.service.store.views`)."""

from __future__ import annotations

from dataclasses import asdict

from sqlalchemy import Connection, delete, func, insert, select, tuple_
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.store.sql.failures import translated
from cronlapse.service.store.sql.schema import view_jobs, view_meta, view_runs
from cronlapse.service.store.views import JobFilter, Page, ViewChanges

POSITION_KEY = "seq"
"""The ``view_meta`` key of the journal position the read model is as of."""
KEYS_PER_DELETE = 5_000
"""Runs deleted per statement: one round trip for a transaction's runs, within the bound
parameters a statement may carry (PostgreSQL's 65,535; two a run)."""


def write_views(conn: Connection, changes: ViewChanges, position: int) -> None:
    """Apply ``changes`` in ``conn``'s transaction; the model is then as of ``position``."""
    if changes.reset:
        conn.execute(delete(view_jobs))
        conn.execute(delete(view_runs))
    if changes.jobs:
        ids = [job.job_id for job in changes.jobs]
        conn.execute(delete(view_jobs).where(view_jobs.c.job_id.in_(ids)))
        conn.execute(insert(view_jobs), [asdict(job) for job in changes.jobs])
        conn.execute(delete(view_runs).where(view_runs.c.job_id.in_(ids), view_runs.c.implicit))
    if changes.runs:
        keys = [(run.job_id, run.scheduled) for run in changes.runs]
        run_key = tuple_(view_runs.c.job_id, view_runs.c.scheduled)
        for first in range(0, len(keys), KEYS_PER_DELETE):
            chunk = keys[first : first + KEYS_PER_DELETE]
            conn.execute(delete(view_runs).where(run_key.in_(chunk)))
        conn.execute(insert(view_runs), [asdict(run) for run in changes.runs])
    values = {**changes.meta, POSITION_KEY: str(position)}
    conn.execute(delete(view_meta).where(view_meta.c.key.in_(list(values))))
    conn.execute(insert(view_meta), [{"key": k, "value": v} for k, v in values.items()])


class SqlViews:
    def __init__(self, db: SqlEngine) -> None:
        self.db = db

    def position(self) -> int | None:
        value = self.meta(POSITION_KEY)
        return None if value is None else int(value)

    @translated
    def meta(self, key: str) -> str | None:
        with self.db.connect() as conn:
            return conn.execute(select(view_meta.c.value).where(view_meta.c.key == key)).scalar()

    @translated
    def job(self, job_id: str) -> str | None:
        with self.db.connect() as conn:
            return conn.execute(
                select(view_jobs.c.detail).where(
                    view_jobs.c.job_id == job_id, view_jobs.c.deleted.is_(False)
                )
            ).scalar()

    @translated
    def jobs(self, start: int, limit: int, wanted: JobFilter) -> Page:
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
                return Page([row.summary for row in rows], None)
            last = conn.execute(select(func.max(view_jobs.c.position))).scalar()
        following = rows[-1].position + 1
        more = last is not None and following <= last
        return Page([row.summary for row in rows], following if more else None)

    @translated
    def runs(self, job_id: str, since: int, limit: int) -> Page | None:
        with self.db.connect() as conn:
            live = conn.execute(
                select(view_jobs.c.position).where(
                    view_jobs.c.job_id == job_id, view_jobs.c.deleted.is_(False)
                )
            ).first()
            if live is None:
                return None
            # A seek on the primary key (job_id, scheduled): no OFFSET to walk, no sort.
            rows = conn.execute(
                select(view_runs.c.scheduled, view_runs.c.view)
                .where(view_runs.c.job_id == job_id, view_runs.c.scheduled >= since)
                .order_by(view_runs.c.scheduled)
                .limit(limit + 1)
            ).all()
        items = [row.view for row in rows[:limit]]
        return Page(items, rows[limit].scheduled if len(rows) > limit else None)
