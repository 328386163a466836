"""Wake-ups and the election in SQL (see :mod:`cronlapse.service.store.coordination`).

PostgreSQL: LISTEN on a psycopg connection of the listener's own, and the scheduler lock a
session-level advisory lock held by the election's own connection (PostgreSQL releases it when
the session ends, so a dead scheduler's successor gets it at its next try). SQLite has neither:
its listeners only time out, and it has no election (its one server process needs none).

psycopg is imported where PostgreSQL is used, never at the top: a server on SQLite does not
load it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from cronlapse.service.store.coordination import Channel
from cronlapse.service.store.errors import NeedsPostgresql
from cronlapse.service.store.sql.db import (
    SCHEDULER_LOCK,
    backend_pid,
    drain_fence,
    open_database,
    try_lock,
)
from cronlapse.service.store.sql.failures import failure, translated
from cronlapse.service.store.sql.urls import POSTGRESQL, backend_of, libpq_url

if TYPE_CHECKING:
    import psycopg


class PostgresListener:
    def __init__(self, conn: psycopg.AsyncConnection) -> None:
        self.conn = conn

    async def wait(self, timeout: float | None) -> list[str]:
        import psycopg

        try:
            return [
                note.payload async for note in self.conn.notifies(timeout=timeout, stop_after=1)
            ]
        except psycopg.Error as error:
            raise failure(error) from error


class SilentListener:
    """SQLite's: nothing ever wakes it, so every wait lasts its timeout."""

    async def wait(self, timeout: float | None) -> list[str]:
        if timeout is None:
            await asyncio.Event().wait()  # never set
        else:
            await asyncio.sleep(timeout)
        return []


class SqlWakeups:
    def __init__(self, url: str) -> None:
        self.url = url

    @contextlib.asynccontextmanager
    async def listen(
        self, channels: Sequence[Channel]
    ) -> AsyncIterator[PostgresListener | SilentListener]:
        if backend_of(self.url) != POSTGRESQL:
            yield SilentListener()
            return
        import psycopg

        try:
            conn = await psycopg.AsyncConnection.connect(libpq_url(self.url), autocommit=True)
        except psycopg.Error as error:
            raise failure(error) from error
        try:
            try:
                for channel in channels:
                    await conn.execute(f"LISTEN {channel.value}")
            except psycopg.Error as error:
                raise failure(error) from error
            yield PostgresListener(conn)
        finally:
            with contextlib.suppress(psycopg.Error):
                await conn.close()


class SqlElection:
    """This process's election connection: it holds the scheduler lock once elected, and until
    then listens for the journal's appends."""

    @translated
    def __init__(self, url: str) -> None:
        if backend_of(url) != POSTGRESQL:
            raise NeedsPostgresql("the scheduler election needs a postgresql:// database")
        self.db = open_database(url)
        self.conn = self.db.connect()
        self.session = backend_pid(self.conn)
        """The connection's PostgreSQL backend: the journal's appends check that it holds the
        lock."""
        self.conn.commit()
        self.listener = self.conn.connection.driver_connection
        self.conn.exec_driver_sql(f"LISTEN {Channel.JOURNAL.value}")
        self.conn.commit()

    @translated
    def try_take(self) -> bool:
        taken = try_lock(self.conn, SCHEDULER_LOCK)
        self.conn.commit()
        if taken:
            drain_fence(self.conn)
            self.conn.exec_driver_sql(f"UNLISTEN {Channel.JOURNAL.value}")
            self.conn.commit()
        return taken

    def wait_for_journal(self, timeout: float) -> None:
        import psycopg

        try:
            for _ in self.listener.notifies(timeout=timeout, stop_after=1):
                pass
        except psycopg.Error as error:
            raise failure(error) from error

    def alive(self) -> bool:
        try:
            self.conn.exec_driver_sql("SELECT 1")
            self.conn.commit()
        except SQLAlchemyError:
            return False
        return True

    def close(self) -> None:
        self.conn.close()
        self.db.dispose()
