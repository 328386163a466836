"""``serve --role scheduler``: exactly one active scheduler, elected by a PostgreSQL advisory lock.

Every scheduler process opens a session of its own in the store's election
(:class:`~cronlapse.service.store.Election`: ``pg_try_advisory_lock`` on a connection of its own)
and tries the lock. The one that gets it is active: it holds the engine, answers the API and
journals inputs. The others are standbys: they apply the journal's new rows as they are committed
(woken by each append), so that taking over replays only the last few rows, and try the lock
again on every wake-up and at least twice a second.

PostgreSQL releases a session's advisory lock when the session ends: when the active scheduler
is killed its connection closes and a standby gets the lock at its next try.

Nothing is applied twice and nothing is lost, because only the lock's holder can append:
every journal append checks, in its own transaction, that the lock is held by its process's
election session (:meth:`cronlapse.service.store.Journal.fence_with`), and holds a shared fence
lock until it commits. A new scheduler, once it has the lock, takes the fence lock exclusively
once, which waits out any append of its predecessor already past the check, and only then
replays: every row committed before it is applied, and no row of the old scheduler can follow
it. The dispatch table is fenced the same way
(:meth:`cronlapse.service.store.Dispatch.fence_with`): an old scheduler's dispatch round would
delete the rows its successor assigned. An active scheduler whose election connection fails, or
whose dispatch round is fenced, exits at once (it can write nothing anyway).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import NoReturn

from cronlapse.service.live import LiveService
from cronlapse.service.store import Election

log = logging.getLogger("cronlapse.serve")
RETRY_SECONDS = 0.5
"""A standby's longest wait between two tries of the lock."""
WATCH_SECONDS = 1.0
"""How often the active scheduler checks that its election connection still holds the lock."""
LOST_EXIT = 3
"""The exit status of a scheduler that lost the lock: its election connection failed, or the
store's fence refused one of its writes."""


def stand_by(
    election: Election, live: LiveService, stopping: Callable[[], bool] = lambda: False
) -> bool:
    """Follow the journal into ``live`` until ``election`` takes the lock (the rows committed
    meanwhile are the caller's to replay: :meth:`LiveService.take_over`); False, without the
    lock, once ``stopping()`` says a stop was asked (checked before every try of the lock, so
    at most ``RETRY_SECONDS`` after the ask: a standby asked to stop must not become active)."""
    while not stopping():
        if election.try_take():
            return True
        live.replay()
        live.drop_finished()
        election.wait_for_journal(RETRY_SECONDS)
    return False


def watch(election: Election) -> None:
    """Exit the process as soon as the election session fails (a daemon thread): its lock is
    lost, and the journal's fence would refuse every append anyway."""

    def check() -> None:
        while election.alive():
            time.sleep(WATCH_SECONDS)
        step_down("lost the connection that holds the scheduler lock")

    threading.Thread(target=check, name="election", daemon=True).start()


def step_down(why: str) -> NoReturn:
    """Exit the process at once, ``why`` saying how it learnt it lost the scheduler lock: the
    store's fence refuses its writes, and its successor replays the journal and owns the
    dispatch table, so there is nothing left to flush."""
    log.error("%s: exiting", why)
    os._exit(LOST_EXIT)
