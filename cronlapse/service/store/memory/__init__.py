"""The memory store: the SQL store's promises kept in one process's memory, for tests.

The service's logic (its answers, its replay, status, export, delivery) runs on it exactly as on
a database, without one: ``tests/service/store_contract.py`` holds it to the SQL store's contract.
Its "database" lives as long as the object: a service opened again on the same
:class:`MemoryStore` is a restart. Snapshots written by a forked child would be lost with the
child's copy of memory, so a service on it writes them in line.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from cronlapse.service.store.errors import Held
from cronlapse.service.store.memory.dead_letters import MemoryDeadLetters
from cronlapse.service.store.memory.dispatch import MemoryDispatch, MemoryWorkers
from cronlapse.service.store.memory.hub import MemoryElection, MemoryWakeups, Shared
from cronlapse.service.store.memory.records import (
    MemoryInbox,
    MemoryJournal,
    MemoryJournalReader,
    MemoryOutbox,
    MemoryViews,
)


class MemoryStore:
    """A store (:class:`cronlapse.service.store.Store`) in memory; ``wall`` is its clock."""

    url = "memory:"

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self.shared = Shared(wall)
        self.inbox = MemoryInbox(self.shared)
        self.views = MemoryViews(self.shared)
        self.outbox = MemoryOutbox(self.shared)
        self.journal = MemoryJournal(self.shared, self.inbox, self.views, self.outbox)
        self.dispatch = MemoryDispatch(self.shared)
        self.workers = MemoryWorkers(self.dispatch)
        self.wakeups = MemoryWakeups(self.shared)
        self.dead_letters = MemoryDeadLetters(self.shared)
        self.writer: str | None = None
        """Who holds the store as its writer (:meth:`hold_writer`)."""

    def election(self) -> MemoryElection:
        return MemoryElection(self.shared)

    def reader(self) -> MemoryJournalReader:
        return MemoryJournalReader(self.journal)

    def hold_writer(self, holder: str) -> None:
        if self.writer is not None:
            raise Held(self.writer)
        self.writer = holder

    def close(self) -> None:
        """Release the writer's hold; the store lives on with the object (a restart reopens
        it)."""
        self.writer = None
