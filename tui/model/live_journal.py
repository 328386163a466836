"""A running service's database, read-only: its journal rows, its clock's anchor, its address.

The dashboard only reads. An SQLite database is opened read-only (``mode=ro``), so a viewer can
never write to it nor create a database where there is none; in WAL mode, which the service
uses, reading never blocks the server's commits and each query sees the rows committed so far.
The tables are the service's own (:mod:`cronlapse.service.journal_store`).
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import create_engine, event, func, inspect, select
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from cronlapse.service.clock import Anchor
from cronlapse.service.journal_store import Row, journal, meta

CLOCK_KEY = "clock"
"""The ``meta`` key under which ``cronlapse serve`` keeps its clock's anchor
(cronlapse.service.server's ``CLOCK_KEY``; not imported, to leave uvicorn unloaded)."""
ADDRESS_KEY = "address"
"""The ``meta`` key under which it says where it listens (cronlapse.service.server's
``ADDRESS_KEY``)."""


class JournalUnreadable(Exception):
    """The database cannot be read as a service's journal; the message says why."""


class JournalReader:
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
                self.db = create_engine(url)
            found = set(inspect(self.db).get_table_names())
        except (ArgumentError, SQLAlchemyError) as error:
            raise JournalUnreadable(
                f"{shown}: cannot read a service journal: {_reason(error)}"
            ) from None
        if not {journal.name, meta.name} <= found:  # another program's database, or an empty one
            raise JournalUnreadable(f"{shown}: not a cronlapse database (it has no journal)")

    def close(self) -> None:
        self.db.dispose()

    def rows_after(self, seq: int, limit: int) -> list[Row]:
        """At most ``limit`` rows after position ``seq``, in order: one cheap query by key."""
        columns = (journal.c.seq, journal.c.tick, journal.c.phase, journal.c.verb, journal.c.args)
        query = select(*columns).where(journal.c.seq > seq).order_by(journal.c.seq).limit(limit)
        with self.db.connect() as conn:
            found = conn.execute(query).all()
        return [Row(row.seq, row.tick, row.phase, row.verb, json.loads(row.args)) for row in found]

    def last_seq(self) -> int:
        with self.db.connect() as conn:
            return int(conn.execute(select(func.coalesce(func.max(journal.c.seq), 0))).scalar())

    def meta(self, key: str) -> str | None:
        with self.db.connect() as conn:
            return conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar()

    def anchor(self) -> Anchor | None:
        """The service's clock (wall time to ticks), as its last start wrote it."""
        text = self.meta(CLOCK_KEY)
        return None if text is None else Anchor.loads(text)


def _reason(error: SQLAlchemyError | ArgumentError) -> str:
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
