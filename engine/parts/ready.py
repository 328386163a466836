"""Ready queues: the occurrences that may run now, best first, in O(log n) per operation.

The heap serves the fifo and priority orders; the aging order's queue is in
:mod:`engine.parts.aging_queue`.
"""

from __future__ import annotations

from collections.abc import Sequence
from heapq import heappop, heappush

from engine.model.policies import DispatchOrder, Policy
from engine.parts.aging_queue import AgingReadyQueue
from engine.parts.ready_entry import ORDER_KEY, PRIORITY, SCHEDULED, ReadyEntry
from engine.rewind.heap import Heap, HeapChanges


class HeapReadyQueue:
    """A binary heap under a static key. Removal is lazy: the engine skips entries that are no
    longer valid when it pops them (a withdrawn front, an occurrence no longer waiting). Ties of
    equal keys (only duplicates of one occurrence) break by push order."""

    __slots__ = ("_heap", "_key", "_seq")

    def __init__(self, by_priority: bool) -> None:
        self._heap = Heap()
        self._seq = 0
        self._key = by_priority

    def push(self, entry: ReadyEntry) -> None:
        self._seq += 1
        if self._key:
            item = (-entry[PRIORITY], entry[SCHEDULED], entry[ORDER_KEY], self._seq, entry)
        else:
            item = (entry[SCHEDULED], entry[ORDER_KEY], self._seq, entry)
        heap = self._heap
        heappush(heap.items, item)  # heapq on the list: a call fewer a run
        if heap.pushed is not None:  # keyframes are recorded (engine.rewind.heap)
            heap.pushed.append(item)

    def remove(self, entry: ReadyEntry) -> None:
        """Nothing to do: see the class docstring."""

    def pop(self, now: int) -> ReadyEntry | None:
        heap = self._heap
        items = heap.items
        # Its items say whether it is empty: ``if heap`` is a call from C to the heap's
        # ``__bool__``, one per assignment of seed 000's dispatches; and they are popped in
        # place, a call fewer than through ``Heap``.
        if not items:
            return None
        item = heappop(items)
        if heap.popped is not None:  # keyframes are recorded (engine.rewind.heap)
            heap.popped.append(item)
        return item[-1]

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

    # Keyframes keep the heap by what it gained and lost (engine.rewind.heap).

    def log_changes(self) -> None:
        self._heap.log_changes()

    def changes(self) -> tuple[HeapChanges, int]:
        return self._heap.changes(), self._seq

    @staticmethod
    def rebuild(copy: tuple, changes: Sequence[tuple[HeapChanges, int]]) -> tuple:
        if not changes:
            return copy
        return Heap.rebuild(copy[0], [change[0] for change in changes]), changes[-1][1]

    @staticmethod
    def work_out(changes: tuple[HeapChanges, int]) -> None:
        Heap.work_out(changes[0])

    @staticmethod
    def check_changes(before: tuple, changes: tuple[HeapChanges, int], after: tuple) -> None:
        Heap.check_changes(before[0], changes[0], after[0])


ReadyQueue = HeapReadyQueue | AgingReadyQueue


def make_ready_queue(policy: Policy) -> ReadyQueue:
    """An empty ready queue of the policy's order."""
    if policy.order is DispatchOrder.AGING:
        assert policy.aging_step is not None
        return AgingReadyQueue(policy.aging_step)
    return HeapReadyQueue(by_priority=policy.order is DispatchOrder.PRIORITY)
