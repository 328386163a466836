"""What a store raises: its own errors, so that no caller needs to know the driver's.

The SQL implementation turns every SQLAlchemy and psycopg error into a :class:`StoreFailure`
that keeps the driver's words (and the name of its error, which the command line prints), so
the service's roles, the command line and the dashboard catch one type whatever the backend.
"""

from __future__ import annotations


class StoreError(Exception):
    """Anything a store refuses or fails to do; the message says why, for the user."""


class StoreFailure(StoreError):
    """The database failed an operation: unreachable, a connection lost, a statement refused.
    Nothing of the operation took effect (each is one transaction)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind
        """The name of the driver's error (``OperationalError``), for a one-line report."""


class UnsupportedDatabase(StoreError, ValueError):
    """A URL of a database cronlapse does not run on."""


class SchemaTooNew(StoreError):
    """The database was migrated by a later cronlapse."""


class Fenced(StoreError):
    """A journal append or a dispatch assignment by a scheduler that no longer holds the
    scheduler lock: nothing was written."""


class Held(StoreError):
    """The database is another process's: one server per SQLite database. The message is the
    holder's description of itself (its process and address)."""


class NoJournal(StoreError, ValueError):
    """The URL names no service database (an SQLite file that does not exist: opening it would
    create one)."""


class JournalUnreadable(StoreError):
    """The database cannot be read as a service's journal; the message says why."""


class SnapshotUnreadable(JournalUnreadable):
    """A snapshot that does not load: written by a version of cronlapse whose classes this one
    renamed or reshaped (a snapshot is pickled objects; the journal's rows are plain values)."""


class NeedsPostgresql(StoreError):
    """An operation that only PostgreSQL provides (an election, the outbox claim), asked of
    another backend."""
