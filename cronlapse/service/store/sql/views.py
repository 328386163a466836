"""The read model in SQL: written with the journal's appends, read by API processes (see
:mod:`cronlapse.service.store.views`). PostgreSQL's, through SQLAlchemy; an SQLite database's
reads and history go through sqlite3 (:mod:`cronlapse.service.store.sql.sqlite_views`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

from sqlalchemy import Connection, delete, func, insert, select
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.store.sql.db import insert_for
from cronlapse.service.store.sql.failures import translated
from cronlapse.service.store.sql.schema import view_jobs, view_meta, view_runs
from cronlapse.service.store.sql.sqlite_views import POSITION_KEY
from cronlapse.service.store.views import (
    JobFilter,
    Page,
    RunView,
    ViewChanges,
    jobs_page,
    runs_page,
)


def write_views(conn: Connection, changes: ViewChanges, position: int) -> None:
    """Apply ``changes`` in ``conn``'s transaction; the model is then as of ``position``."""
    if changes.reset:
        conn.execute(delete(view_jobs))
        conn.execute(delete(view_runs).where(view_runs.c.final.is_(False)))
    if changes.jobs:
        ids = [job.job_id for job in changes.jobs]
        conn.execute(delete(view_jobs).where(view_jobs.c.job_id.in_(ids)))
        conn.execute(insert(view_jobs), [asdict(job) for job in changes.jobs])
        conn.execute(delete(view_runs).where(view_runs.c.job_id.in_(ids), view_runs.c.implicit))
    if changes.runs:
        replace_runs(conn, changes.runs)
    values = {**changes.meta, POSITION_KEY: str(position)}
    conn.execute(delete(view_meta).where(view_meta.c.key.in_(list(values))))
    conn.execute(insert(view_meta), [{"key": k, "value": v} for k, v in values.items()])


def replace_runs(conn: Connection, runs: Sequence[RunView]) -> None:
    """Write ``runs`` in ``conn``'s transaction, each replacing its row: one upsert whose text
    is the same for any number of runs. SQLite keeps every distinct statement text prepared
    (a megabyte for an ``IN`` list of 4,000 keys), so a text that grew with the count (a delete
    by key, then inserts) grew a server's memory with each new count it met, that is with the
    time it ran (issue 36's soak)."""
    upsert = insert_for(conn, view_runs)
    key = list(view_runs.primary_key.columns)
    replaced = {column.name: upsert.excluded[column.name] for column in view_runs.c}
    for column in key:
        del replaced[column.name]
    conn.execute(
        upsert.on_conflict_do_update(index_elements=key, set_=replaced),
        [asdict(run) for run in runs],
    )


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
            last = select(func.max(view_jobs.c.position))
            return jobs_page(
                [tuple(row) for row in rows], limit, lambda: conn.execute(last).scalar()
            )

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
        return runs_page([tuple(row) for row in rows], limit)

    @translated
    def finished(self, job_id: str, since: int, limit: int) -> list[tuple[int, str]]:
        with self.db.connect() as conn:
            rows = conn.execute(
                select(view_runs.c.scheduled, view_runs.c.view)
                .where(
                    view_runs.c.job_id == job_id,
                    view_runs.c.scheduled >= since,
                    view_runs.c.final.is_(True),
                )
                .order_by(view_runs.c.scheduled)
                .limit(limit)
            ).all()
        return [(row.scheduled, row.view) for row in rows]

    @translated
    def finished_at(self, job_id: str, ticks: Sequence[int]) -> dict[int, str]:
        with self.db.connect() as conn:
            rows = conn.execute(
                select(view_runs.c.scheduled, view_runs.c.view).where(
                    view_runs.c.job_id == job_id,
                    view_runs.c.scheduled.in_(list(ticks)),
                    view_runs.c.final.is_(True),
                )
            ).all()
        return {row.scheduled: row.view for row in rows}

    @translated
    def latest_finished(self, job_id: str, limit: int) -> list[tuple[int, str]]:
        with self.db.connect() as conn:
            rows = conn.execute(
                select(view_runs.c.scheduled, view_runs.c.view)
                .where(view_runs.c.job_id == job_id, view_runs.c.final.is_(True))
                .order_by(view_runs.c.scheduled.desc())
                .limit(limit)
            ).all()
        return [(row.scheduled, row.view) for row in reversed(rows)]

    @translated
    def keep_finished(self, runs: Sequence[RunView]) -> None:
        if runs:
            with self.db.begin() as conn:
                replace_runs(conn, runs)

    @translated
    def forget_finished(self, before: int) -> int:
        with self.db.begin() as conn:
            done = conn.execute(
                delete(view_runs).where(view_runs.c.final.is_(True), view_runs.c.scheduled < before)
            )
        return done.rowcount
