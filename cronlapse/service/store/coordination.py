"""Wake-ups and the election: how processes on one store wait for each other.

Wake-ups are PostgreSQL's LISTEN/NOTIFY in the SQL store (a notification is sent when the
transaction that sends it commits) and an in-process hub in the memory store; SQLite has none, so
a listener there only times out and a role's polling pace carries it. The election is
PostgreSQL's session-level advisory lock: at most one session holds it, and a session that ends
(its process died) releases it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol


class Channel(enum.Enum):
    """What a wake-up says has happened."""

    JOURNAL = "cronlapse_journal"
    """A journal append committed."""
    DISPATCH = "cronlapse_dispatch"
    """The scheduler assigned attempts to worker processes."""
    REPORTS = "cronlapse_reports"
    """A worker process wrote an outcome, registered, or is stopping."""
    INBOX = "cronlapse_inbox"
    """An API process wrote to the inbox."""
    ANSWERS = "cronlapse_answers"
    """The scheduler answered inbox rows: the payload is their positions, comma-separated."""


class Listener(Protocol):
    async def wait(self, timeout: float | None) -> list[str]:
        """The payloads of the next wake-ups on the listened channels (those already arrived
        first), or ``[]`` after ``timeout`` seconds (None: no limit); :class:`StoreFailure`
        when the listening connection fails."""
        ...


class Wakeups(Protocol):
    def listen(self, channels: Sequence[Channel]) -> AbstractAsyncContextManager[Listener]:
        """A listener on ``channels``, from when the context is entered until it ends."""
        ...


class Election(Protocol):
    """One process's session in the scheduler election."""

    session: int
    """This session's mark: the journal's and the dispatch table's fences check it
    (``Journal.fence_with``, ``Dispatch.fence_with``), and the inbox rows this scheduler takes
    carry it."""

    def try_take(self) -> bool:
        """Take the scheduler lock if it is free. Once it is taken, every journal append and
        dispatch assignment of a predecessor that had passed its fence check has ended: no row
        of the old scheduler can follow what the new one replays or assigns. Stops waking on
        journal appends."""
        ...

    def wait_for_journal(self, timeout: float) -> None:
        """Until a journal append has committed since the last call, or ``timeout`` seconds
        (a standby follows the journal this way)."""
        ...

    def alive(self) -> bool:
        """Whether the session is still open (a lost session has lost the lock)."""
        ...

    def close(self) -> None:
        """End the session (and release the lock, if it held it)."""
        ...
