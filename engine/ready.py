"""Ready queues: the occurrences that may run now, best first, in O(log n) per operation."""

from __future__ import annotations

from dataclasses import dataclass

from engine.model import Occurrence
from engine.undo_heap import UndoHeap


@dataclass(frozen=True, slots=True)
class ReadyEntry:
    """An occurrence that may run now: either materialised, or the implicit front of its job."""

    job_id: str
    scheduled: int
    order_key: bytes
    priority: int
    ready_since: int
    rank: int
    occurrence: Occurrence | None
    """None for a job's implicit front: nothing is created until a worker takes it."""


class HeapReadyQueue:
    """A binary heap under a static key. Removal is lazy: the engine skips entries that are no
    longer valid when it pops them (a withdrawn front, an occurrence no longer waiting). Ties of
    equal keys (only duplicates of one occurrence) break by push order."""

    __slots__ = ("_heap", "_key", "_seq")

    def __init__(self, by_priority: bool) -> None:
        self._heap = UndoHeap()
        self._seq = 0
        self._key = by_priority

    @property
    def journal(self) -> list | None:
        return self._heap.journal

    @journal.setter
    def journal(self, journal: list | None) -> None:
        self._heap.journal = journal

    def push(self, entry: ReadyEntry) -> None:
        self._seq += 1
        if self._key:
            item = (-entry.priority, entry.scheduled, entry.order_key, self._seq, entry)
        else:
            item = (entry.scheduled, entry.order_key, self._seq, entry)
        self._heap.push(item)

    def remove(self, entry: ReadyEntry) -> None:
        """Nothing to do: see the class docstring."""

    def pop(self, now: int) -> ReadyEntry | None:
        return self._heap.pop()[-1] if self._heap else None

    def __bool__(self) -> bool:
        return bool(self._heap)

    def contents(self) -> list[ReadyEntry]:
        """The entries held, stale ones included, in the order they would pop (for comparisons
        in tests: push sequence numbers are left out, their order kept)."""
        return [item[-1] for item in self._heap.live()]

    def snapshot(self) -> tuple:
        return self._heap.snapshot(), self._seq

    def restore(self, saved: tuple) -> None:
        heap, self._seq = saved
        self._heap.restore(heap)


_EMPTY = float("-inf")


class AgingReadyQueue:
    """Effective priority ``priority + floor((now - ready_since) / step)``, ties by rank.

    Why this is O(log n): with ``a = priority * step - ready_since`` (static per entry), the
    effective priority is ``floor((a + now) / step)``, so the entry with the largest ``a`` has the
    highest effective priority, and the entries that tie with it are exactly those with
    ``a >= floor((A + now) / step) * step - now``. A max segment tree over ranks answers both
    "largest a" (the root) and "lowest rank with a >= L" (one descent).
    """

    __slots__ = ("_entries", "_size", "_step", "_tree", "journal")

    def __init__(self, step: int) -> None:
        self._step = step
        self._size = 1
        self._tree: list[float | int] = [_EMPTY, _EMPTY]
        self._entries: dict[int, ReadyEntry] = {}
        self.journal: list | None = None
        """Where undo steps go while the engine keeps restore points."""

    def push(self, entry: ReadyEntry) -> None:
        while entry.rank >= self._size:
            self._grow()
        self._place(entry.rank, entry)

    def remove(self, entry: ReadyEntry) -> None:
        if self._entries.get(entry.rank) is entry:
            self._place(entry.rank, None)

    def _place(self, rank: int, entry: ReadyEntry | None) -> None:
        """Put ``entry`` (or nothing) at ``rank``; the only place the queue changes."""
        if self.journal is not None:
            self.journal.append((self._place, rank, self._entries.get(rank)))
        if entry is None:
            self._entries.pop(rank, None)
            self._set(rank, _EMPTY)
        else:
            self._entries[rank] = entry
            self._set(rank, entry.priority * self._step - entry.ready_since)

    def pop(self, now: int) -> ReadyEntry | None:
        tree = self._tree
        best = tree[1]
        if best == _EMPTY:
            return None
        step = self._step
        threshold = ((best + now) // step) * step - now
        node = 1
        while node < self._size:
            node = 2 * node if tree[2 * node] >= threshold else 2 * node + 1
        entry = self._entries[node - self._size]
        self.remove(entry)
        return entry

    def __bool__(self) -> bool:
        return self._tree[1] != _EMPTY

    def contents(self) -> list[ReadyEntry]:
        """The entries held, by rank (for comparisons in tests)."""
        return [entry for _, entry in sorted(self._entries.items())]

    def snapshot(self) -> tuple:
        return self._size, tuple(self._tree), tuple(self._entries.items())

    def restore(self, saved: tuple) -> None:
        self._size, tree, entries = saved
        self._tree = list(tree)
        self._entries = dict(entries)

    def _set(self, rank: int, value: float | int) -> None:
        tree = self._tree
        node = rank + self._size
        tree[node] = value
        node >>= 1
        while node:
            left, right = tree[2 * node], tree[2 * node + 1]
            tree[node] = left if left >= right else right
            node >>= 1

    def _grow(self) -> None:
        """Double the capacity. Not journaled: a larger tree holding the same entries is the
        same queue."""
        self._size *= 2
        self._tree = [_EMPTY] * (2 * self._size)
        for rank, entry in self._entries.items():
            self._set(rank, entry.priority * self._step - entry.ready_since)


ReadyQueue = HeapReadyQueue | AgingReadyQueue
