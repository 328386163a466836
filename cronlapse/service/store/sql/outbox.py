"""The due notices and the outbox claim in SQL (see :mod:`cronlapse.service.store.outbox`).

The claim is PostgreSQL's session-level advisory lock ``OUTBOX_LOCK``, on a psycopg connection
of the session's own, which LISTENs for journal appends once it holds it: when the holding
process dies its connection closes and PostgreSQL releases the lock for another session to take.

psycopg is imported where PostgreSQL is used, never at the top: a server on SQLite does not
load it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from sqlalchemy import Connection, and_, delete, insert

from cronlapse.service.store.coordination import Channel
from cronlapse.service.store.errors import NeedsPostgresql
from cronlapse.service.store.outbox import DueChanges, DueNotice
from cronlapse.service.store.sql.db import OUTBOX_LOCK
from cronlapse.service.store.sql.failures import failure
from cronlapse.service.store.sql.schema import due_notices
from cronlapse.service.store.sql.urls import POSTGRESQL, backend_of, libpq_url

if TYPE_CHECKING:
    import psycopg

KEY_COLUMNS = ("job_id", "scheduled", "attempt", "event", "channel", "target")
DUE = (
    "SELECT job_id, scheduled, attempt, event, channel, target, created, try_number "
    "FROM due_notices"
)


def write_due(conn: Connection, changes: DueChanges) -> None:
    """Apply ``changes`` in ``conn``'s transaction."""
    if changes.reset:
        conn.execute(delete(due_notices))
    replaced = [*changes.removed, *(notice.key for notice in changes.added)]
    for key in dict.fromkeys(replaced):
        parts = zip(KEY_COLUMNS, key, strict=True)
        conn.execute(delete(due_notices).where(and_(*(due_notices.c[n] == p for n, p in parts))))
    if changes.added:
        rows = [
            dict(zip(KEY_COLUMNS, notice.key, strict=True))
            | {"created": notice.created, "try_number": notice.try_number}
            for notice in changes.added
        ]
        conn.execute(insert(due_notices), rows)


class SqlOutboxClaim:
    """One session: its connection holds the claim once taken, and listens for appends."""

    def __init__(self, conn: psycopg.AsyncConnection) -> None:
        self.conn = conn

    async def take(self, every: float) -> None:
        import psycopg

        while True:
            try:
                cursor = await self.conn.execute("SELECT pg_try_advisory_lock(%s)", (OUTBOX_LOCK,))
                row = await cursor.fetchone()
            except psycopg.Error as error:
                raise failure(error) from error
            if row is not None and row[0]:
                break
            await asyncio.sleep(every)
        try:  # listening from now on: a session waiting for the claim buffers nothing
            await self.conn.execute(f"LISTEN {Channel.JOURNAL.value}")
        except psycopg.Error as error:
            raise failure(error) from error

    async def due(self) -> list[DueNotice]:
        import psycopg

        try:
            cursor = await self.conn.execute(DUE)
            rows = await cursor.fetchall()
        except psycopg.Error as error:
            raise failure(error) from error
        return [DueNotice(tuple(row[:6]), row[6], row[7]) for row in rows]  # type: ignore[arg-type]

    async def woken(self, timeout: float) -> None:
        import psycopg

        try:
            async for _ in self.conn.notifies(timeout=timeout, stop_after=1):
                pass
        except psycopg.Error as error:
            raise failure(error) from error


class SqlOutbox:
    def __init__(self, url: str) -> None:
        self.url = url

    @contextlib.asynccontextmanager
    async def claim(self) -> AsyncIterator[SqlOutboxClaim]:
        if backend_of(self.url) != POSTGRESQL:
            raise NeedsPostgresql("the outbox claim needs a postgresql:// database")
        import psycopg

        try:
            conn = await psycopg.AsyncConnection.connect(libpq_url(self.url), autocommit=True)
        except psycopg.Error as error:
            raise failure(error) from error
        try:
            yield SqlOutboxClaim(conn)
        finally:
            with contextlib.suppress(psycopg.Error):
                await conn.close()
