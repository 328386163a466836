"""What the memory store's parts share: one lock, one clock, the wake-ups and the locks.

Every operation of the memory store holds :attr:`Shared.lock` for its whole length, which makes
it atomic as a database transaction is: no other operation sees it half done. Wake-ups are
delivered after the operation, as a notification is sent at commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from collections.abc import AsyncIterator, Callable, Sequence

from cronlapse.service.store.coordination import Channel


class MemoryListener:
    """A listener on some channels, woken from any thread on the loop that made it."""

    def __init__(self, channels: Sequence[Channel]) -> None:
        self.channels = frozenset(channels)
        self.loop = asyncio.get_running_loop()
        self.arrived: list[str] = []
        self.event = asyncio.Event()

    def deliver(self, payload: str) -> None:
        with contextlib.suppress(RuntimeError):  # its loop has closed: nobody waits
            self.loop.call_soon_threadsafe(self._take, payload)

    def _take(self, payload: str) -> None:
        self.arrived.append(payload)
        self.event.set()

    async def wait(self, timeout: float | None) -> list[str]:
        if not self.arrived:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.event.wait(), timeout)
        arrived, self.arrived = self.arrived, []
        self.event.clear()
        return arrived


class Shared:
    """The memory store's lock, clock, wake-ups, and the holders of its two locks."""

    def __init__(self, wall: Callable[[], float]) -> None:
        self.lock = threading.RLock()
        self.wall = wall
        """The store's clock (a database's): heartbeats and inbox ages."""
        self.listeners: set[MemoryListener] = set()
        self.appends = 0
        """Journal appends so far: a standby waits for the count to move."""
        self.appended = threading.Condition(self.lock)
        self.scheduler: object | None = None
        """The election session that holds the scheduler lock."""
        self.outbox: object | None = None
        """The session that holds the outbox claim."""
        self.sessions = itertools.count(1)

    def notify(self, channel: Channel, payload: str = "") -> None:
        """Wake ``channel``'s listeners (call it after the operation, outside the lock)."""
        with self.lock:
            targets = [listener for listener in self.listeners if channel in listener.channels]
            if channel is Channel.JOURNAL:
                self.appends += 1
                self.appended.notify_all()
        for listener in targets:
            listener.deliver(payload)


class MemoryWakeups:
    def __init__(self, shared: Shared) -> None:
        self.shared = shared

    @contextlib.asynccontextmanager
    async def listen(self, channels: Sequence[Channel]) -> AsyncIterator[MemoryListener]:
        listener = MemoryListener(channels)
        with self.shared.lock:
            self.shared.listeners.add(listener)
        try:
            yield listener
        finally:
            with self.shared.lock:
                self.shared.listeners.discard(listener)


class MemoryElection:
    """A session in the election: :attr:`Shared.scheduler` names the one holding the lock."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.session = next(shared.sessions)
        self.seen = shared.appends
        self.open = True

    def try_take(self) -> bool:
        # Appends hold the same lock for their whole length: none of a predecessor's is under
        # way once it is taken here.
        with self.shared.lock:
            if self.open and self.shared.scheduler in (None, self):
                self.shared.scheduler = self
                return True
            return False

    def wait_for_journal(self, timeout: float) -> None:
        shared = self.shared
        with shared.appended:
            shared.appended.wait_for(lambda: shared.appends > self.seen, timeout)
            self.seen = shared.appends

    def alive(self) -> bool:
        return self.open

    def close(self) -> None:
        with self.shared.lock:
            self.open = False
            if self.shared.scheduler is self:
                self.shared.scheduler = None
