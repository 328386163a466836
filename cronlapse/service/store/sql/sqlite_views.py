"""An SQLite database's read model through the standard library's ``sqlite3``
(:mod:`cronlapse.service.store.sql.sqlite_db`; see :mod:`cronlapse.service.store.views`).

A single server on SQLite writes the history here before each snapshot and reads it back for a
job's detail and its runs. Its writes with the journal's rows (an active scheduler's
publication) are PostgreSQL's only, and stay SQLAlchemy's
(:func:`cronlapse.service.store.sql.views.write_views`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import astuple, fields

from cronlapse.service.store.sql.sqlite_db import SqliteDb, translated
from cronlapse.service.store.views import JobFilter, Page, RunView, jobs_page, runs_page

POSITION_KEY = "seq"
"""The ``view_meta`` key of the journal position the read model is as of."""
RUN_FIELDS = tuple(field.name for field in fields(RunView))
"""The ``view_runs`` columns a run writes, in :class:`RunView`'s order."""
_LIVE_JOB = "SELECT position FROM view_jobs WHERE job_id = ? AND NOT deleted"
_FINISHED = (
    "SELECT scheduled, view FROM view_runs WHERE job_id = ? AND scheduled >= ? AND final "
    "ORDER BY scheduled LIMIT ?"
)
_FINISHED_AT = "SELECT view FROM view_runs WHERE job_id = ? AND scheduled = ? AND final"
_LATEST_FINISHED = (
    "SELECT scheduled, view FROM view_runs WHERE job_id = ? AND final "
    "ORDER BY scheduled DESC LIMIT ?"
)


def run_upsert(conn: sqlite3.Connection) -> str:
    """The statement that writes a run over its row, replacing every column but the key, read
    off the table (a column added later is never left stale by a list of names here). One text
    for any number of runs: SQLite keeps each distinct text prepared."""
    table = conn.execute("SELECT name, pk FROM pragma_table_info('view_runs')").fetchall()
    key = [name for name, place in sorted(table, key=lambda column: column[1]) if place]
    replaced = [f"{name} = excluded.{name}" for name, place in table if not place]
    return (
        f"INSERT INTO view_runs ({', '.join(RUN_FIELDS)}) "
        f"VALUES ({', '.join('?' for _ in RUN_FIELDS)}) "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {', '.join(replaced)}"
    )


class SqliteViews:
    def __init__(self, db: SqliteDb) -> None:
        self.db = db
        self._upsert: str | None = None

    def position(self) -> int | None:
        value = self.meta(POSITION_KEY)
        return None if value is None else int(value)

    @translated
    def meta(self, key: str) -> str | None:
        found = self.db.read("SELECT value FROM view_meta WHERE key = ?", (key,))
        return found[0][0] if found else None

    @translated
    def job(self, job_id: str) -> str | None:
        found = self.db.read(
            "SELECT detail FROM view_jobs WHERE job_id = ? AND NOT deleted", (job_id,)
        )
        return found[0][0] if found else None

    @translated
    def jobs(self, start: int, limit: int, wanted: JobFilter) -> Page:
        where = ["position >= ?", "NOT deleted"]
        parameters: list[object] = [start]
        for column, value in (
            ("status", wanted.status),
            ("priority", wanted.priority),
            ("run", wanted.run),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                parameters.append(value)
        rows = self.db.read(
            f"SELECT position, summary FROM view_jobs WHERE {' AND '.join(where)} "
            "ORDER BY position LIMIT ?",
            [*parameters, limit],
        )
        return jobs_page(rows, limit, self._last_position)

    def _last_position(self) -> int | None:
        return self.db.read("SELECT max(position) FROM view_jobs")[0][0]

    @translated
    def runs(self, job_id: str, since: int, limit: int) -> Page | None:
        if not self.db.read(_LIVE_JOB, (job_id,)):
            return None
        # A seek on the primary key (job_id, scheduled): no OFFSET to walk, no sort.
        rows = self.db.read(
            "SELECT scheduled, view FROM view_runs WHERE job_id = ? AND scheduled >= ? "
            "ORDER BY scheduled LIMIT ?",
            (job_id, since, limit + 1),
        )
        return runs_page(rows, limit)

    @translated
    def finished(self, job_id: str, since: int, limit: int) -> list[tuple[int, str]]:
        return self.db.read(_FINISHED, (job_id, since, limit))

    @translated
    def finished_at(self, job_id: str, ticks: Sequence[int]) -> dict[int, str]:
        """One seek by key a tick: a job's detail asks for a few, and one text for any number
        keeps SQLite's prepared statements few."""
        conn = self.db.connection()
        found = {tick: conn.execute(_FINISHED_AT, (job_id, tick)).fetchone() for tick in ticks}
        return {tick: row[0] for tick, row in found.items() if row is not None}

    @translated
    def latest_finished(self, job_id: str, limit: int) -> list[tuple[int, str]]:
        return self.db.read(_LATEST_FINISHED, (job_id, limit))[::-1]

    @translated
    def keep_finished(self, runs: Sequence[RunView]) -> None:
        if not runs:
            return

        def kept(conn: sqlite3.Connection) -> None:
            if self._upsert is None:
                self._upsert = run_upsert(conn)
            conn.executemany(self._upsert, [astuple(run) for run in runs])

        self.db.write(kept)

    @translated
    def forget_finished(self, before: int) -> int:
        def deleted(conn: sqlite3.Connection) -> int:
            done = conn.execute("DELETE FROM view_runs WHERE final AND scheduled < ?", (before,))
            return done.rowcount

        return self.db.write(deleted)
