"""The notifications due for delivery, and the claim that lets one process deliver them.

The engine's outbox decides what is due (:mod:`engine.parts.notifications`); with scale-out roles
the active scheduler keeps the due tries in the store (:class:`DueChanges`, written with its
journal rows) for whichever process holds the outbox claim to deliver. Delivered, dead and queued
notifications are the engine's state (in its snapshots): there is no separate store of dead
letters.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

NotificationKey = tuple[str, int, int, str, str, str]
"""(job, scheduled tick, attempt, event, channel, target): the engine's key of a notification."""


@dataclass(frozen=True, slots=True)
class DueNotice:
    """One notification whose next delivery try has come."""

    key: NotificationKey
    created: int
    """The tick it was queued: when its event happened."""
    try_number: int


@dataclass(frozen=True, slots=True)
class DueChanges:
    """What one write changes among the due notices."""

    added: Sequence[DueNotice] = ()
    """Due now (a notice of the same key is replaced)."""
    removed: Sequence[NotificationKey] = ()
    """No longer due (delivered, dead, or waiting for its next try)."""
    reset: bool = False
    """Forget every due notice first (a scheduler's first write after its election)."""


class OutboxClaim(Protocol):
    """One process's session on the outbox claim: at most one session holds it at a time, and
    it is released when the session ends (a process that dies ends it)."""

    async def take(self, every: float) -> None:
        """Until this session holds the claim, trying every ``every`` seconds."""
        ...

    async def due(self) -> list[DueNotice]:
        """The notices due, as the active scheduler last wrote them."""
        ...

    async def woken(self, timeout: float) -> None:
        """Until a journal append has committed since the last call, or ``timeout`` seconds."""
        ...


class Outbox(Protocol):
    def claim(self) -> AbstractAsyncContextManager[OutboxClaim]:
        """A session of its own (:class:`OutboxClaim`); :class:`StoreFailure` when it cannot
        be opened or fails."""
        ...
