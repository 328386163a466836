"""The service's store: every byte ``cronlapse serve`` keeps, behind one interface.

What it holds, by what owns it (each a protocol whose docstrings say what it promises):

- the journal (:class:`Journal`): inputs appended in batches under the scheduler's fence, read
  back after a position; snapshots; a few settings (``meta``);
- the inbox (:class:`Inbox`): an API process's writes, taken and answered by the scheduler;
- the read model (:class:`Views`): what API processes answer, written with the journal;
- dispatch claims and worker rows (:class:`Dispatch`, :class:`Workers`);
- the due notices and the outbox claim (:class:`Outbox`);
- wake-ups and the scheduler election (:class:`Wakeups`, :class:`Election`);
- the dead letters (:class:`DeadLetters`): inputs set aside, not journaled or not applied.

Two implementations keep the same promises: SQL (SQLite and PostgreSQL, the one place where SQL
lives, :mod:`cronlapse.service.store.sql`: SQLAlchemy Core, and ``sqlite3`` for what a single
server on SQLite does), opened by URL with
:func:`open_store`; and memory (:class:`~cronlapse.service.store.memory.MemoryStore`), for tests
that check the service's logic without a database. ``tests/service/store_contract.py`` holds
both to the same contract.

Readers of a journal that never write it (the dashboard) open it with
:func:`open_journal_reader` and decode its rows with :mod:`cronlapse.service.store.rows`; this
module is all they import of the service.
"""

from __future__ import annotations

from typing import Protocol

from cronlapse.service.clock import ENGINE_CLOCK, Anchor
from cronlapse.service.codec import CLOCK, DOWNTIME
from cronlapse.service.store.address import (
    ADDRESS_KEY,
    CLOCK_KEY,
    TOKEN_ENV,
    backend,
    short_name,
    shown,
    token_path,
)
from cronlapse.service.store.coordination import Channel, Election, Listener, Wakeups
from cronlapse.service.store.dead_letters import DeadLetter, DeadLetters, Why
from cronlapse.service.store.dispatch import (
    Assigned,
    Assignment,
    AttemptId,
    Dispatch,
    WorkerProcess,
    Workers,
)
from cronlapse.service.store.errors import (
    Fenced,
    Held,
    JournalUnreadable,
    NeedsPostgresql,
    NoJournal,
    SchemaTooNew,
    SnapshotUnreadable,
    StoreError,
    StoreFailure,
    UnsupportedDatabase,
)
from cronlapse.service.store.inbox import Inbox, InboxRow
from cronlapse.service.store.journal import Journal, JournalReader, Publication, Snapshot
from cronlapse.service.store.outbox import DueChanges, DueNotice, Outbox, OutboxClaim
from cronlapse.service.store.rows import (
    NOTIFICATION_POLICY,
    PHASE,
    SERVICE_POLICY,
    Entry,
    JournalRow,
    RowUnreadable,
    downtime_commands,
    pausable_jobs,
    read_row,
    row_command,
)
from cronlapse.service.store.views import JobFilter, JobView, Page, RunView, ViewChanges, Views


class Store(Protocol):
    """One database (or one in-memory stand-in), its groups of operations."""

    url: str
    journal: Journal
    inbox: Inbox
    views: Views
    outbox: Outbox
    dispatch: Dispatch
    workers: Workers
    wakeups: Wakeups
    dead_letters: DeadLetters

    def election(self) -> Election:
        """A new session in the scheduler election (:class:`NeedsPostgresql` on SQLite)."""
        ...

    def hold_writer(self, holder: str) -> None:
        """Make this store the database's one writer until it is closed or its process ends (a
        kill included); ``holder`` (the process and its address) is what a process refused is
        told. :class:`Held` (naming the holder) if another holds it. On PostgreSQL nothing is
        held: its roles share the database, and the scheduler election keeps one writer."""
        ...

    def reader(self) -> JournalReader:
        """The journal, read-only."""
        ...

    def close(self) -> None: ...


def open_store(url: str, *, migrate: bool = True, existing: bool = False) -> Store:
    """The store of the database at ``url`` (``sqlite:///...`` or ``postgresql://...``),
    migrated to the current schema unless ``migrate`` is false (a read-only replica).
    ``existing``: refuse to create an SQLite file (:class:`NoJournal`). Raises
    :class:`StoreError`: :class:`UnsupportedDatabase`, :class:`SchemaTooNew`,
    :class:`StoreFailure`."""
    from cronlapse.service.store.sql import SqlStore

    return SqlStore(url, migrate=migrate, existing=existing)


def open_journal_reader(url: str) -> JournalReader:
    """The journal at ``url``, opened read-only (an SQLite file in ``mode=ro``: a viewer can
    never write to it nor create a database where there is none); :class:`JournalUnreadable`
    says why it cannot be read."""
    from cronlapse.service.store.sql.reader import SqlJournalReader

    return SqlJournalReader(url)


__all__ = [
    "ADDRESS_KEY",
    "CLOCK",
    "CLOCK_KEY",
    "DOWNTIME",
    "ENGINE_CLOCK",
    "NOTIFICATION_POLICY",
    "PHASE",
    "SERVICE_POLICY",
    "TOKEN_ENV",
    "Anchor",
    "Assigned",
    "Assignment",
    "AttemptId",
    "Channel",
    "DeadLetter",
    "DeadLetters",
    "Dispatch",
    "DueChanges",
    "DueNotice",
    "Election",
    "Entry",
    "Fenced",
    "Held",
    "Inbox",
    "InboxRow",
    "JobFilter",
    "JobView",
    "Journal",
    "JournalReader",
    "JournalRow",
    "JournalUnreadable",
    "Listener",
    "NeedsPostgresql",
    "NoJournal",
    "Outbox",
    "OutboxClaim",
    "Page",
    "Publication",
    "RowUnreadable",
    "RunView",
    "SchemaTooNew",
    "Snapshot",
    "SnapshotUnreadable",
    "Store",
    "StoreError",
    "StoreFailure",
    "UnsupportedDatabase",
    "ViewChanges",
    "Views",
    "Wakeups",
    "Why",
    "WorkerProcess",
    "Workers",
    "backend",
    "downtime_commands",
    "open_journal_reader",
    "open_store",
    "pausable_jobs",
    "read_row",
    "row_command",
    "short_name",
    "shown",
    "token_path",
]
