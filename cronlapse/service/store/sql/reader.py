"""A service's journal, read-only: its rows, its clock's anchor, its address (see
:class:`~cronlapse.service.store.journal.JournalReader`).

An SQLite database is opened read-only (``mode=ro``), so a viewer can never write to it nor
create a database where there is none; in WAL mode, which the service uses, reading never blocks
the server's commits and each query sees the rows committed so far.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, event, inspect
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from cronlapse.service.clock import Anchor
from cronlapse.service.store.address import ADDRESS_KEY, CLOCK_KEY, short_name
from cronlapse.service.store.errors import JournalUnreadable, UnsupportedDatabase
from cronlapse.service.store.journal import Snapshot
from cronlapse.service.store.rows import JournalRow
from cronlapse.service.store.sql.failures import translated
from cronlapse.service.store.sql.journal import SqlJournal, get_meta, last_seq, rows_after
from cronlapse.service.store.sql.schema import journal, meta
from cronlapse.service.store.sql.urls import database_url


class SqlJournalReader:
    """Read-only queries on one service database."""

    def __init__(self, url: str) -> None:
        self.url = url
        try:
            parsed = make_url(url)
        except ArgumentError as error:
            raise JournalUnreadable(f"{url}: cannot read a service journal: {error}") from None
        shown = parsed.database if parsed.get_backend_name() == "sqlite" else None
        shown = shown or parsed.render_as_string(hide_password=True)
        try:
            if parsed.get_backend_name() == "sqlite":
                self.db = _sqlite_read_only(parsed.database)
            else:
                self.db = create_engine(database_url(url))
            found = set(inspect(self.db).get_table_names())
        except (ArgumentError, SQLAlchemyError, UnsupportedDatabase) as error:
            raise JournalUnreadable(
                f"{shown}: cannot read a service journal: {_reason(error)}"
            ) from None
        if not {journal.name, meta.name} <= found:  # another program's database, or an empty one
            raise JournalUnreadable(f"{shown}: not a cronlapse database (it has no journal)")
        self.name = short_name(url)
        self._journal = SqlJournal(self.db, url)

    def compacted(self) -> int:
        return self._journal.compacted()

    def oldest_snapshot(self) -> Snapshot | None:
        return self._journal.oldest_snapshot()

    def close(self) -> None:
        self.db.dispose()

    @translated
    def rows_after(self, seq: int, limit: int) -> list[JournalRow]:
        with self.db.connect() as conn:
            return rows_after(conn, seq, limit)

    @translated
    def last_seq(self) -> int:
        with self.db.connect() as conn:
            return last_seq(conn)

    @translated
    def meta(self, key: str) -> str | None:
        with self.db.connect() as conn:
            return get_meta(conn, key)

    def anchor(self) -> Anchor | None:
        text = self.meta(CLOCK_KEY)
        return None if text is None else Anchor.loads(text)

    def address(self) -> str | None:
        return self.meta(ADDRESS_KEY)


def _reason(error: Exception) -> str:
    """The driver's own words (``file is not a database``), without the SQL text SQLAlchemy
    wraps them in: the user gave a file, not a query."""
    original = getattr(error, "orig", None)
    return str(original if original is not None else error).splitlines()[0]


def _sqlite_read_only(database: str | None) -> SqlEngine:
    if database in (None, "", ":memory:"):
        raise JournalUnreadable("an in-memory database has no journal to watch: give a file")
    path = Path(database).expanduser().resolve()
    if not path.is_file():
        raise JournalUnreadable(f"{database}: no such database file")
    db = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    event.listen(db, "connect", _busy_timeout)
    return db


def _busy_timeout(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
