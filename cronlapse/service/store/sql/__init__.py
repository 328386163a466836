"""The SQL store: SQLite and PostgreSQL through SQLAlchemy Core, the one place where SQL lives.

Both backends keep the same tables (:mod:`~cronlapse.service.store.sql.schema`, made by the
numbered steps of :mod:`~cronlapse.service.store.sql.migrations`) and run the same queries; what
differs is in :mod:`~cronlapse.service.store.sql.db` (opening, the database's clock, PostgreSQL's
advisory locks and NOTIFY). Every operation raises the store's errors, never the driver's
(:mod:`~cronlapse.service.store.sql.failures`).

One exception keeps an SQLite server light: what a single server on an SQLite file does goes
through the standard library's sqlite3 (:mod:`~cronlapse.service.store.sql.sqlite_db`): its
journal (:mod:`~cronlapse.service.store.sql.sqlite_journal`), its history and read model
(:mod:`~cronlapse.service.store.sql.sqlite_views`) and its dead letters
(:mod:`~cronlapse.service.store.sql.sqlite_dead_letters`), on the same tables. A database already
at the current schema version is opened without SQLAlchemy; one behind it is migrated by a forked
child where that keeps SQLAlchemy out of the process
(:mod:`~cronlapse.service.store.sql.migrate_apart`). Only the groups a single server never uses
(the roles' inbox, dispatch, outbox, election) load SQLAlchemy, when they are first used.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from cronlapse.service.store.dead_letters import DeadLetters
from cronlapse.service.store.errors import NoJournal
from cronlapse.service.store.sql.sqlite_db import SqliteDb
from cronlapse.service.store.sql.sqlite_dead_letters import SqliteDeadLetters
from cronlapse.service.store.sql.sqlite_journal import SqliteJournal
from cronlapse.service.store.sql.sqlite_views import SqliteViews
from cronlapse.service.store.sql.urls import check_sqlite, plain_sqlite_file
from cronlapse.service.store.sql.version import LATEST
from cronlapse.service.store.sql.writer import WriterLock
from cronlapse.service.store.views import Views

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine as SqlEngine

    from cronlapse.service.store.journal import Journal
    from cronlapse.service.store.sql.coordination import SqlElection, SqlWakeups
    from cronlapse.service.store.sql.dispatch import SqlDispatch, SqlWorkers
    from cronlapse.service.store.sql.inbox import SqlInbox
    from cronlapse.service.store.sql.journal import SqlJournal
    from cronlapse.service.store.sql.outbox import SqlOutbox
    from cronlapse.service.store.sql.reader import SqlJournalReader


class SqlStore:
    """One database, and its groups of operations (:class:`cronlapse.service.store.Store`)."""

    def __init__(self, url: str, *, migrate: bool = True, existing: bool = False) -> None:
        self.url = url
        self.sqlite: SqliteDb | None = None
        """An SQLite file's database through sqlite3 (None: PostgreSQL, or SQLite in memory)."""
        database = plain_sqlite_file(url)
        if database is not None:
            check_sqlite()
        else:
            database = self._parsed_file()
        if existing and database is not None and not Path(database).is_file():
            raise NoJournal(f"no database at {database}")
        if database is None:
            if migrate:
                self._migrate()
            self.journal: Journal = self.sql_journal
            self.writer = None
            return
        self.sqlite = SqliteDb(database)
        self.journal = SqliteJournal(self.sqlite, self._sql_journal)
        try:
            if migrate and self.journal.schema_version() != LATEST:
                self._migrate_file()
        except BaseException:
            self.sqlite.close()
            raise
        self.writer = WriterLock(database)

    def _parsed_file(self) -> str | None:
        """The SQLite file of a URL only SQLAlchemy parses (None: PostgreSQL or in memory)."""
        from cronlapse.service.store.sql.failures import translated
        from cronlapse.service.store.sql.urls import database_url, sqlite_file

        translated(database_url)(self.url)
        return sqlite_file(self.url)

    def _migrate_file(self) -> None:
        """Migrate an SQLite file: in a forked child where that keeps SQLAlchemy out of this
        process (:mod:`~cronlapse.service.store.sql.migrate_apart`), with no connection of
        this process open meanwhile; else here."""
        from cronlapse.service.store.sql.migrate_apart import apart_is_worth_it, migrate_apart

        if not apart_is_worth_it():
            self._migrate()
            return
        assert self.sqlite is not None
        self.sqlite.close()
        migrate_apart(self.url)

    def _migrate(self) -> None:
        from cronlapse.service.store.sql.failures import translated
        from cronlapse.service.store.sql.migrations import migrate

        translated(migrate)(self.db)

    @functools.cached_property
    def db(self) -> SqlEngine:
        """The SQLAlchemy engine, made on first use."""
        from cronlapse.service.store.sql.db import open_database
        from cronlapse.service.store.sql.failures import translated

        return translated(open_database)(self.url)

    @functools.cached_property
    def sql_journal(self) -> SqlJournal:
        from cronlapse.service.store.sql.journal import SqlJournal

        return SqlJournal(self.db, self.url)

    def _sql_journal(self) -> SqlJournal:
        return self.sql_journal

    @functools.cached_property
    def inbox(self) -> SqlInbox:
        from cronlapse.service.store.sql.inbox import SqlInbox

        return SqlInbox(self.db)

    @functools.cached_property
    def views(self) -> Views:
        if self.sqlite is not None:
            return SqliteViews(self.sqlite)
        from cronlapse.service.store.sql.views import SqlViews

        return SqlViews(self.db)

    @functools.cached_property
    def outbox(self) -> SqlOutbox:
        from cronlapse.service.store.sql.outbox import SqlOutbox

        return SqlOutbox(self.url)

    @functools.cached_property
    def dispatch(self) -> SqlDispatch:
        from cronlapse.service.store.sql.dispatch import SqlDispatch

        return SqlDispatch(self.db)

    @functools.cached_property
    def workers(self) -> SqlWorkers:
        from cronlapse.service.store.sql.dispatch import SqlWorkers

        return SqlWorkers(self.db)

    @functools.cached_property
    def dead_letters(self) -> DeadLetters:
        if self.sqlite is not None:
            return SqliteDeadLetters(self.sqlite)
        from cronlapse.service.store.sql.dead_letters import SqlDeadLetters

        return SqlDeadLetters(self.db)

    @functools.cached_property
    def wakeups(self) -> SqlWakeups:
        from cronlapse.service.store.sql.coordination import SqlWakeups

        return SqlWakeups(self.url)

    def election(self) -> SqlElection:
        from cronlapse.service.store.sql.coordination import SqlElection

        return SqlElection(self.url)

    def reader(self) -> SqlJournalReader:
        from cronlapse.service.store.sql.reader import SqlJournalReader

        return SqlJournalReader(self.url)

    def hold_writer(self, holder: str) -> None:
        if self.writer is not None:
            self.writer.hold(holder)

    def close(self) -> None:
        if self.sqlite is not None:
            self.sqlite.close()
        if "db" in self.__dict__:
            self.db.dispose()
        if self.writer is not None:
            self.writer.release()
