"""Ready queues: the occurrences that may run now, best first, in O(log n) per operation.

The heap serves the fifo and priority orders; the aging order's queue is in
:mod:`engine.parts.aging_queue`.
"""

from __future__ import annotations

from heapq import heappop, heappush

from engine.model.policies import DispatchOrder, Policy
from engine.parts.aging_queue import AgingReadyQueue
from engine.parts.ready_entry import ORDER_KEY, PRIORITY, SCHEDULED, ReadyEntry
from engine.rewind.heap import Heap


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
        heappush(self._heap.items, item)  # heapq on the list: a call fewer a run

    def remove(self, entry: ReadyEntry) -> None:
        """Nothing to do: see the class docstring."""

    def pop(self, now: int) -> ReadyEntry | None:
        items = self._heap.items
        # Its items say whether it is empty: ``if heap`` is a call from C to the heap's
        # ``__bool__``, one per assignment of seed 000's dispatches; and they are popped in
        # place, a call fewer than through ``Heap``.
        return heappop(items)[-1] if items else None

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


ReadyQueue = HeapReadyQueue | AgingReadyQueue


def make_ready_queue(policy: Policy) -> ReadyQueue:
    """An empty ready queue of the policy's order."""
    if policy.order is DispatchOrder.AGING:
        assert policy.aging_step is not None
        return AgingReadyQueue(policy.aging_step)
    return HeapReadyQueue(by_priority=policy.order is DispatchOrder.PRIORITY)
