"""Migrating an SQLite database in a forked child, so that the serving process never loads
SQLAlchemy, not even on the first start.

The migrations are SQLAlchemy's (:mod:`cronlapse.service.store.sql.migrations`), and a module
once imported stays for the life of the process: a server that created or upgraded its database
kept SQLAlchemy (15 MB) for as long as it ran, while one restarted on the same database did not
(:mod:`cronlapse.service.store.sql.sqlite_db`). So a process that has not loaded SQLAlchemy and
runs no other thread (a ``cronlapse serve`` opening its store) forks a child that migrates and
exits; the parent waits for it and raises what it raised (a store error, rebuilt from its name
and words). Any other process (a test, a tool that has SQLAlchemy loaded already) migrates in
itself: a fork would save it nothing, and forking a process with threads is unsafe.

The parent holds no SQLite connection while the child migrates (the child opens its own), and
nothing else writes the database then: the server takes its writer lock after the migrations.
"""

from __future__ import annotations

import json
import os
import sys
import threading

from cronlapse.service.store import errors
from cronlapse.service.store.errors import StoreError, StoreFailure


def apart_is_worth_it() -> bool:
    """Whether this process migrates in a child: it can fork, it has no SQLAlchemy to keep it
    from, and no thread that a fork could catch holding a lock."""
    return hasattr(os, "fork") and "sqlalchemy" not in sys.modules and threading.active_count() == 1


def migrate_url(url: str) -> None:
    """Migrate the database at ``url`` through an SQLAlchemy engine of its own."""
    from cronlapse.service.store.sql.db import open_database
    from cronlapse.service.store.sql.failures import translated
    from cronlapse.service.store.sql.migrations import migrate

    db = translated(open_database)(url)
    try:
        translated(migrate)(db)
    finally:
        db.dispose()


def migrate_apart(url: str) -> None:
    """:func:`migrate_url` in a forked child; raises the :class:`StoreError` it raised."""
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe and never returns
        try:
            os.close(readable)
            outcome = b""
            try:
                migrate_url(url)
            except BaseException as error:
                outcome = json.dumps(_described(error)).encode()
            with os.fdopen(writable, "wb") as pipe:
                pipe.write(outcome)
        finally:
            os._exit(0)
    os.close(writable)
    with os.fdopen(readable, "rb") as pipe:
        outcome = pipe.read()
    _, status = os.waitpid(pid, 0)
    if outcome:
        raise _rebuilt(json.loads(outcome))
    if os.waitstatus_to_exitcode(status) != 0:
        raise StoreFailure(
            f"the process migrating the database ended with status {status}", "MigrationFailed"
        )


def _described(error: BaseException) -> dict[str, str | None]:
    return {
        "type": error.__class__.__name__,
        "message": str(error),
        "kind": getattr(error, "kind", None),
    }


def _rebuilt(described: dict) -> StoreError:
    """The child's error as the parent raises it: the store's own type and words; anything else
    (a defect) as a :class:`StoreFailure` naming its type."""
    found = getattr(errors, described["type"], None)
    message = described["message"]
    if (
        isinstance(found, type)
        and issubclass(found, StoreError)
        and not issubclass(found, StoreFailure)
    ):
        return found(message)
    return StoreFailure(message, described["kind"] or described["type"])
