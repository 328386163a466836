"""Policies are data: dispatch order, worker choice, backoff and the engine's modes.

The engine asks a :class:`ReadyQueue` for the next occurrence to run and a :class:`WorkerPool` for
the worker to run it on; it never sorts. Every queue operation is O(log n).
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from enum import Enum
from itertools import count

from engine.model import Occurrence


class DispatchOrder(Enum):
    FIFO = "fifo"
    """Scheduled tick, then job id (Java order): seed 000."""
    PRIORITY = "priority"
    """Priority (higher first), then scheduled tick, then job id: seed 003."""
    AGING = "aging"
    """Priority + floor(waited / aging_step), then the order occurrences fell due: seed 001."""


class DispatchMode(Enum):
    AUTO = "auto"
    """Every tick, as a live scheduler does."""
    MANUAL = "manual"
    """Only an explicit Dispatch command creates due occurrences and assigns them (seed 000)."""


class CompletionMode(Enum):
    SIMULATED = "simulated"
    """Attempts end after their job's duration, failing where scripted."""
    REPORTED = "reported"
    """Attempts end only by a Complete command (seed 000)."""


class BackoffKind(Enum):
    NONE = "none"
    FIXED = "fixed"
    EXPONENTIAL = "exponential"


class Jitter(Enum):
    NONE = "none"
    FULL = "full"
    """Uniform in [0, delay]."""
    EQUAL = "equal"
    """delay/2 plus uniform in [0, delay/2]."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long a failed occurrence waits before its next attempt may start."""

    kind: BackoffKind = BackoffKind.NONE
    base: int = 0
    cap: int | None = None
    jitter: Jitter = Jitter.NONE

    def delay(self, failed_attempts: int, rng: random.Random) -> int:
        """Ticks to wait after the ``failed_attempts``-th failure; draws from ``rng`` only for jitter."""
        if self.kind is BackoffKind.NONE:
            return 0
        if self.kind is BackoffKind.FIXED:
            ticks = self.base
        else:
            ticks = self.base * (1 << (failed_attempts - 1))
        if self.cap is not None:
            ticks = min(ticks, self.cap)
        if self.jitter is Jitter.FULL:
            return rng.randint(0, ticks)
        if self.jitter is Jitter.EQUAL:
            half = ticks // 2
            return half + rng.randint(0, ticks - half)
        return ticks


@dataclass(frozen=True, slots=True)
class Policy:
    order: DispatchOrder = DispatchOrder.FIFO
    aging_step: int | None = None
    """Required by the aging order."""
    dispatch: DispatchMode = DispatchMode.AUTO
    completion: CompletionMode = CompletionMode.SIMULATED
    backoff: Backoff = field(default_factory=Backoff)

    def __post_init__(self) -> None:
        if self.order is DispatchOrder.AGING and (self.aging_step is None or self.aging_step < 1):
            raise ValueError("The aging order needs an aging_step of at least 1")


@dataclass(slots=True)
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
    live: bool = True


class HeapReadyQueue:
    """A binary heap under a static key; removal is lazy (``entry.live = False``)."""

    __slots__ = ("_heap", "_key", "_seq")

    def __init__(self, by_priority: bool) -> None:
        self._heap: list[tuple] = []
        self._seq = count()
        self._key = by_priority

    def push(self, entry: ReadyEntry) -> None:
        if self._key:
            item = (-entry.priority, entry.scheduled, entry.order_key, next(self._seq), entry)
        else:
            item = (entry.scheduled, entry.order_key, next(self._seq), entry)
        heapq.heappush(self._heap, item)

    def remove(self, entry: ReadyEntry) -> None:
        entry.live = False

    def pop(self, now: int) -> ReadyEntry | None:
        heap = self._heap
        while heap:
            entry = heapq.heappop(heap)[-1]
            if entry.live:
                entry.live = False
                return entry
        return None

    def __bool__(self) -> bool:
        heap = self._heap
        while heap and not heap[0][-1].live:
            heapq.heappop(heap)
        return bool(heap)


_EMPTY = float("-inf")


class AgingReadyQueue:
    """Effective priority ``priority + floor((now - ready_since) / step)``, ties by rank.

    Why this is O(log n): with ``a = priority * step - ready_since`` (static per entry), the
    effective priority is ``floor((a + now) / step)``, so the entry with the largest ``a`` has the
    highest effective priority, and the entries that tie with it are exactly those with
    ``a >= floor((A + now) / step) * step - now``. A max segment tree over ranks answers both
    "largest a" (the root) and "lowest rank with a >= L" (one descent).
    """

    __slots__ = ("_entries", "_size", "_step", "_tree")

    def __init__(self, step: int) -> None:
        self._step = step
        self._size = 1
        self._tree: list[float | int] = [_EMPTY, _EMPTY]
        self._entries: dict[int, ReadyEntry] = {}

    def push(self, entry: ReadyEntry) -> None:
        while entry.rank >= self._size:
            self._grow()
        self._entries[entry.rank] = entry
        self._set(entry.rank, entry.priority * self._step - entry.ready_since)

    def remove(self, entry: ReadyEntry) -> None:
        if self._entries.pop(entry.rank, None) is not None:
            self._set(entry.rank, _EMPTY)
        entry.live = False

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
        entries = self._entries
        self._size *= 2
        self._tree = [_EMPTY] * (2 * self._size)
        self._entries = {}
        for entry in entries.values():
            self.push(entry)


ReadyQueue = HeapReadyQueue | AgingReadyQueue


def make_ready_queue(policy: Policy) -> ReadyQueue:
    if policy.order is DispatchOrder.AGING:
        assert policy.aging_step is not None
        return AgingReadyQueue(policy.aging_step)
    return HeapReadyQueue(by_priority=policy.order is DispatchOrder.PRIORITY)


class WorkerPool:
    """Idle workers, lowest id (Java order) first: seed 000's worker choice."""

    __slots__ = ("_heap", "_idle")

    def __init__(self) -> None:
        self._heap: list[tuple[bytes, str]] = []
        self._idle: set[str] = set()

    def add(self, worker_id: str, order_key: bytes) -> None:
        if worker_id not in self._idle:
            self._idle.add(worker_id)
            heapq.heappush(self._heap, (order_key, worker_id))

    def discard(self, worker_id: str) -> None:
        self._idle.discard(worker_id)

    def pop(self) -> str | None:
        heap = self._heap
        while heap:
            worker_id = heapq.heappop(heap)[1]
            if worker_id in self._idle:
                self._idle.remove(worker_id)
                return worker_id
        return None

    def __bool__(self) -> bool:
        return bool(self._idle)
