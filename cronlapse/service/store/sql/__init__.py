"""The SQL store: SQLite and PostgreSQL through SQLAlchemy Core, the one place where SQL lives.

Both backends keep the same tables (:mod:`~cronlapse.service.store.sql.schema`, made by the
numbered steps of :mod:`~cronlapse.service.store.sql.migrations`) and run the same queries; what
differs is in :mod:`~cronlapse.service.store.sql.db` (opening, the database's clock, PostgreSQL's
advisory locks and NOTIFY). Every operation raises the store's errors, never the driver's
(:mod:`~cronlapse.service.store.sql.failures`).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from cronlapse.service.store.errors import NoJournal
from cronlapse.service.store.sql.coordination import SqlElection, SqlWakeups
from cronlapse.service.store.sql.db import open_database
from cronlapse.service.store.sql.dead_letters import SqlDeadLetters
from cronlapse.service.store.sql.dispatch import SqlDispatch, SqlWorkers
from cronlapse.service.store.sql.failures import failure
from cronlapse.service.store.sql.inbox import SqlInbox
from cronlapse.service.store.sql.journal import SqlJournal
from cronlapse.service.store.sql.migrations import migrate as migrate_schema
from cronlapse.service.store.sql.outbox import SqlOutbox
from cronlapse.service.store.sql.reader import SqlJournalReader
from cronlapse.service.store.sql.urls import database_url, sqlite_file
from cronlapse.service.store.sql.views import SqlViews
from cronlapse.service.store.sql.writer import WriterLock


class SqlStore:
    """One database, and its groups of operations (:class:`cronlapse.service.store.Store`)."""

    def __init__(self, url: str, *, migrate: bool = True, existing: bool = False) -> None:
        self.url = url
        try:
            database_url(url)
            database = sqlite_file(url)
            if existing and database is not None and not Path(database).is_file():
                raise NoJournal(f"no database at {database}")
            self.db = open_database(url)
            if migrate:
                migrate_schema(self.db)
        except SQLAlchemyError as error:
            raise failure(error) from error
        self.journal = SqlJournal(self.db, url)
        self.inbox = SqlInbox(self.db)
        self.views = SqlViews(self.db)
        self.outbox = SqlOutbox(url)
        self.dispatch = SqlDispatch(self.db)
        self.workers = SqlWorkers(self.db)
        self.dead_letters = SqlDeadLetters(self.db)
        self.wakeups = SqlWakeups(url)
        self.writer = None if database is None else WriterLock(database)

    def election(self) -> SqlElection:
        return SqlElection(self.url)

    def reader(self) -> SqlJournalReader:
        return SqlJournalReader(self.url)

    def hold_writer(self, holder: str) -> None:
        if self.writer is not None:
            self.writer.hold(holder)

    def close(self) -> None:
        self.db.dispose()
        if self.writer is not None:
            self.writer.release()
