"""The memory store's journal, inbox, read model and due notices: one lock, no I/O.

Each class keeps what its protocol describes (:mod:`cronlapse.service.store.journal`,
``.inbox``, ``.views``, ``.outbox``) in dictionaries and lists. Arguments go in and come out
through JSON, as they do in a database, so a caller's later change of a dict it passed is not
seen and what comes back is what a database would give back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass

from cronlapse.service.clock import Anchor
from cronlapse.service.store.address import ADDRESS_KEY, CLOCK_KEY
from cronlapse.service.store.coordination import Channel, Election
from cronlapse.service.store.errors import Fenced
from cronlapse.service.store.inbox import InboxRow
from cronlapse.service.store.journal import SNAPSHOTS_KEPT, Publication, Snapshot
from cronlapse.service.store.memory.hub import MemoryListener, Shared
from cronlapse.service.store.outbox import DueChanges, DueNotice, NotificationKey
from cronlapse.service.store.rows import Entry, JournalRow
from cronlapse.service.store.views import (
    JobFilter,
    JobView,
    Page,
    RunView,
    ViewChanges,
    jobs_page,
    runs_page,
)


def _copy(args: dict) -> dict:
    return json.loads(json.dumps(args, separators=(",", ":")))


@dataclass(slots=True)
class _InboxEntry:
    seq: int
    verb: str
    args: dict
    created: float
    taken_by: int | None = None
    answer: str | None = None


class MemoryInbox:
    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.rows: dict[int, _InboxEntry] = {}
        self.last = 0

    def write(self, verb: str, args: dict) -> int:
        with self.shared.lock:
            self.last += 1
            self.rows[self.last] = _InboxEntry(self.last, verb, _copy(args), self.shared.wall())
            seq = self.last
        self.shared.notify(Channel.INBOX)
        return seq

    def take(self, session: int, sweep_after: float | None = None) -> list[InboxRow]:
        with self.shared.lock:
            if sweep_after is not None:
                old = self.shared.wall() - sweep_after
                for entry in list(self.rows.values()):
                    if entry.answer is not None and entry.created < old:
                        del self.rows[entry.seq]
            taken = []
            for entry in self.rows.values():
                if entry.answer is None and entry.taken_by != session:
                    entry.taken_by = session
                    taken.append(InboxRow(entry.seq, entry.verb, _copy(entry.args)))
        return sorted(taken, key=lambda row: row.seq)

    def take_answer(self, seq: int) -> str | None:
        with self.shared.lock:
            entry = self.rows.get(seq)
            if entry is None or entry.answer is None:
                return None
            del self.rows[seq]
            return entry.answer

    def withdraw(self, seq: int) -> bool:
        with self.shared.lock:
            entry = self.rows.get(seq)
            if entry is None or entry.taken_by is not None:
                return False
            del self.rows[seq]
            return True

    def answer(self, answers: Mapping[int, str]) -> None:
        """Within an append (the lock held)."""
        for seq, text in answers.items():
            entry = self.rows.get(seq)
            if entry is not None:
                entry.answer = text


class MemoryViews:
    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.jobs_by_id: dict[str, JobView] = {}
        self.runs_by_key: dict[tuple[str, int], RunView] = {}
        self.values: dict[str, str] = {}
        self.at: int | None = None

    def write(self, changes: ViewChanges, position: int) -> None:
        """Within an append (the lock held)."""
        if changes.reset:
            self.jobs_by_id.clear()
            for key, run in list(self.runs_by_key.items()):
                if not run.final:
                    del self.runs_by_key[key]
        written = {job.job_id for job in changes.jobs}
        for job in changes.jobs:
            self.jobs_by_id[job.job_id] = job
        for key, run in list(self.runs_by_key.items()):
            if run.implicit and run.job_id in written:
                del self.runs_by_key[key]
        for run in changes.runs:
            self.runs_by_key[(run.job_id, run.scheduled)] = run
        self.values.update(changes.meta)
        self.at = position

    def position(self) -> int | None:
        with self.shared.lock:
            return self.at

    def meta(self, key: str) -> str | None:
        with self.shared.lock:
            return self.values.get(key)

    def job(self, job_id: str) -> str | None:
        with self.shared.lock:
            job = self.jobs_by_id.get(job_id)
        return None if job is None or job.deleted else job.detail

    def jobs(self, start: int, limit: int, wanted: JobFilter) -> Page:
        with self.shared.lock:
            every = sorted(self.jobs_by_id.values(), key=lambda job: job.position)
        rows = [
            job
            for job in every
            if job.position >= start
            and not job.deleted
            and (wanted.status is None or job.status == wanted.status)
            and (wanted.priority is None or job.priority == wanted.priority)
            and (wanted.run is None or job.run == wanted.run)
        ][:limit]
        last = every[-1].position if every else None
        return jobs_page([(job.position, job.summary) for job in rows], limit, lambda: last)

    def runs(self, job_id: str, since: int, limit: int) -> Page | None:
        with self.shared.lock:
            job = self.jobs_by_id.get(job_id)
            if job is None or job.deleted:
                return None
            mine = sorted(
                (
                    run
                    for run in self.runs_by_key.values()
                    if run.job_id == job_id and run.scheduled >= since
                ),
                key=lambda run: run.scheduled,
            )
        return runs_page([(run.scheduled, run.view) for run in mine[: limit + 1]], limit)

    def finished(self, job_id: str, since: int, limit: int) -> list[tuple[int, str]]:
        with self.shared.lock:
            mine = sorted(
                (run.scheduled, run.view)
                for run in self.runs_by_key.values()
                if run.job_id == job_id and run.scheduled >= since and run.final
            )
        return mine[:limit]

    def finished_at(self, job_id: str, ticks: Sequence[int]) -> dict[int, str]:
        with self.shared.lock:
            found = (self.runs_by_key.get((job_id, tick)) for tick in ticks)
            return {run.scheduled: run.view for run in found if run is not None and run.final}

    def latest_finished(self, job_id: str, limit: int) -> list[tuple[int, str]]:
        with self.shared.lock:
            mine = sorted(
                (run.scheduled, run.view)
                for run in self.runs_by_key.values()
                if run.job_id == job_id and run.final
            )
        return mine[-limit:] if limit > 0 else []

    def keep_finished(self, runs: Sequence[RunView]) -> None:
        with self.shared.lock:
            for run in runs:
                self.runs_by_key[(run.job_id, run.scheduled)] = run

    def forget_finished(self, before: int) -> int:
        with self.shared.lock:
            old = [
                key for key, run in self.runs_by_key.items() if run.final and run.scheduled < before
            ]
            for key in old:
                del self.runs_by_key[key]
        return len(old)


class MemoryOutboxClaim:
    def __init__(self, shared: Shared, due: dict[NotificationKey, DueNotice]) -> None:
        self.shared = shared
        self.notices = due
        self.listener = MemoryListener([Channel.JOURNAL])

    async def take(self, every: float) -> None:
        while True:
            with self.shared.lock:
                if self.shared.outbox in (None, self):
                    self.shared.outbox = self
                    self.shared.listeners.add(self.listener)
                    return
            await asyncio.sleep(every)

    async def due(self) -> list[DueNotice]:
        with self.shared.lock:
            return list(self.notices.values())

    async def woken(self, timeout: float) -> None:
        await self.listener.wait(timeout)

    def end(self) -> None:
        with self.shared.lock:
            self.shared.listeners.discard(self.listener)
            if self.shared.outbox is self:
                self.shared.outbox = None


class MemoryOutbox:
    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.notices: dict[NotificationKey, DueNotice] = {}

    def write(self, changes: DueChanges) -> None:
        """Within an append (the lock held)."""
        if changes.reset:
            self.notices.clear()
        for key in changes.removed:
            self.notices.pop(key, None)
        for notice in changes.added:
            self.notices[notice.key] = notice

    @contextlib.asynccontextmanager
    async def claim(self) -> AsyncIterator[MemoryOutboxClaim]:
        session = MemoryOutboxClaim(self.shared, self.notices)
        try:
            yield session
        finally:
            session.end()


class MemoryJournal:
    def __init__(
        self, shared: Shared, inbox: MemoryInbox, views: MemoryViews, outbox: MemoryOutbox
    ) -> None:
        self.shared = shared
        self.inbox = inbox
        self.views = views
        self.outbox = outbox
        self.rows: list[JournalRow] = []
        """The rows kept, from position ``dropped + 1`` on."""
        self.dropped = 0
        """Rows compacted away from the front."""
        self.snapshots: dict[int, bytes] = {}
        self.settings: dict[str, str] = {}
        self.fence: Election | None = None

    def fence_with(self, election: Election) -> None:
        self.fence = election

    def append(self, entries: Sequence[Entry], publication: Publication | None = None) -> list[int]:
        with self.shared.lock:
            if self.fence is not None and self.shared.scheduler is not self.fence:
                raise Fenced("another scheduler holds the journal: this one appends nothing")
            first = self.dropped + len(self.rows) + 1
            for entry in entries:
                seq = self.dropped + len(self.rows) + 1
                row = JournalRow(seq, entry.tick, entry.phase, entry.verb, _copy(entry.args))
                self.rows.append(row)
            seqs = list(range(first, self.dropped + len(self.rows) + 1))
            answers = {} if publication is None else dict(publication.answers)
            if publication is not None:
                self.inbox.answer(answers)
                if publication.views is not None:
                    self.views.write(publication.views, self.dropped + len(self.rows))
                if publication.due is not None:
                    self.outbox.write(publication.due)
        if answers:
            self.shared.notify(Channel.ANSWERS, ",".join(str(seq) for seq in answers))
        self.shared.notify(Channel.JOURNAL)
        return seqs

    def rows_after(self, seq: int, limit: int | None = None) -> Iterator[JournalRow]:
        with self.shared.lock:
            start = max(seq - self.dropped, 0)
            end = len(self.rows) if limit is None else start + limit
            chosen = self.rows[start:end]
        return iter([JournalRow(r.seq, r.tick, r.phase, r.verb, _copy(r.args)) for r in chosen])

    def last_seq(self) -> int:
        with self.shared.lock:
            return self.dropped + len(self.rows)

    def count(self) -> int:
        with self.shared.lock:
            return len(self.rows)

    def oldest_snapshot(self) -> Snapshot | None:
        with self.shared.lock:
            if not self.snapshots:
                return None
            seq = min(self.snapshots)
            return Snapshot(seq, self.snapshots[seq])

    def compact(self, before: int) -> int:
        with self.shared.lock:
            if not self.snapshots:
                return 0
            oldest = min(self.snapshots)
            gone = 0
            while gone < len(self.rows) and self.rows[gone].seq < oldest:
                if self.rows[gone].tick >= before:
                    break
                gone += 1
            del self.rows[:gone]
            self.dropped += gone
            return gone

    def compacted(self) -> int:
        with self.shared.lock:
            return self.dropped

    def save_snapshot(self, seq: int, state: bytes) -> None:
        with self.shared.lock:
            self.snapshots[seq] = bytes(state)
            for old in sorted(self.snapshots)[:-SNAPSHOTS_KEPT]:
                del self.snapshots[old]

    def has_snapshot(self, seq: int) -> bool:
        with self.shared.lock:
            return seq in self.snapshots

    def latest_snapshot(self) -> Snapshot | None:
        with self.shared.lock:
            if not self.snapshots:
                return None
            seq = max(self.snapshots)
            return Snapshot(seq, self.snapshots[seq])

    def latest_snapshot_seq(self) -> int | None:
        with self.shared.lock:
            return max(self.snapshots, default=None)

    def get_meta(self, key: str) -> str | None:
        with self.shared.lock:
            return self.settings.get(key)

    def set_meta(self, key: str, value: str) -> None:
        with self.shared.lock:
            self.settings[key] = value

    def size_on_disk(self) -> None:
        return None


class MemoryJournalReader:
    """The memory journal, read-only."""

    def __init__(self, journal: MemoryJournal) -> None:
        self.journal = journal
        self.url = "memory:"
        self.name = "memory"

    def rows_after(self, seq: int, limit: int) -> list[JournalRow]:
        return list(self.journal.rows_after(seq, limit))

    def last_seq(self) -> int:
        return self.journal.last_seq()

    def anchor(self) -> Anchor | None:
        text = self.journal.get_meta(CLOCK_KEY)
        return None if text is None else Anchor.loads(text)

    def address(self) -> str | None:
        return self.journal.get_meta(ADDRESS_KEY)

    def close(self) -> None:
        """Nothing to release."""
