"""``serve --role scheduler``: exactly one active scheduler, elected by a PostgreSQL advisory lock.

Every scheduler process opens a connection of its own and tries ``pg_try_advisory_lock`` on it.
The one that gets the lock is active: it holds the engine, answers the API and journals inputs.
The others are standbys: they apply the journal's new rows as they are committed (woken by
LISTEN/NOTIFY, see :func:`cronlapse.service.db.notify_appended`), so that taking over replays only
the last few rows, and try the lock again on every wake-up and at least twice a second.

PostgreSQL releases a session's advisory lock when the session ends: when the active scheduler
is killed its connection closes and a standby gets the lock at its next try.

Nothing is applied twice and nothing is lost, because only the lock's holder can append:
every journal append checks, in its own transaction, that the lock is held by its process's
election connection (:func:`cronlapse.service.db.holds_fence`), and holds a shared fence lock until
it commits. A new scheduler, once it has the lock, takes the fence lock exclusively once, which
waits out any append of its predecessor already past the check, and only then replays: every
row committed before it is applied, and no row of the old scheduler can follow it. An active
scheduler whose election connection fails exits at once (it can append nothing anyway).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

from sqlalchemy.exc import DBAPIError

from cronlapse.service.db import (
    JOURNAL_CHANNEL,
    SCHEDULER_LOCK,
    backend_pid,
    drain_fence,
    open_database,
    try_lock,
)
from cronlapse.service.live import LiveService

log = logging.getLogger("cronlapse.serve")
RETRY_SECONDS = 0.5
"""A standby's longest wait between two tries of the lock."""
WATCH_SECONDS = 1.0
"""How often the active scheduler checks that its election connection still holds the lock."""
LOST_EXIT = 3
"""The exit status of a scheduler that lost its election connection."""


class Election:
    """This process's election connection: it holds the scheduler lock once elected."""

    def __init__(self, url: str) -> None:
        self.db = open_database(url)
        self.conn = self.db.connect()
        self.pid = backend_pid(self.conn)
        """The connection's PostgreSQL backend: the journal's appends check that it holds the
        lock."""
        self.conn.commit()
        self.listener = self.conn.connection.driver_connection
        self.conn.exec_driver_sql(f"LISTEN {JOURNAL_CHANNEL}")
        self.conn.commit()

    def try_take(self) -> bool:
        """Take the lock if it is free; once taken, wait out the predecessor's appends."""
        taken = try_lock(self.conn, SCHEDULER_LOCK)
        self.conn.commit()
        if taken:
            drain_fence(self.conn)
        return taken

    def wait(self, live: LiveService, stopping: Callable[[], bool] = lambda: False) -> bool:
        """Follow the journal into ``live`` until elected (the rows committed meanwhile are
        the caller's to replay: :meth:`LiveService.take_over`); False, without the lock, once
        ``stopping()`` says a stop was asked (checked before every try of the lock, so at most
        ``RETRY_SECONDS`` after the ask: a standby asked to stop must not become active)."""
        while not stopping():
            if self.try_take():
                self.conn.exec_driver_sql(f"UNLISTEN {JOURNAL_CHANNEL}")
                self.conn.commit()
                return True
            live.replay()
            for _ in self.listener.notifies(timeout=RETRY_SECONDS, stop_after=1):
                pass
        return False

    def close(self) -> None:
        """End the election session (a standby's, holding no lock)."""
        self.conn.close()
        self.db.dispose()

    def alive(self) -> bool:
        try:
            self.conn.exec_driver_sql("SELECT 1")
            self.conn.commit()
        except DBAPIError:
            return False
        return True

    def watch(self) -> None:
        """Exit the process as soon as the election connection fails (a daemon thread)."""

        def check() -> None:
            while self.alive():
                time.sleep(WATCH_SECONDS)
            log.error("lost the connection that holds the scheduler lock: exiting")
            os._exit(LOST_EXIT)

        threading.Thread(target=check, name="election", daemon=True).start()
