"""A binary heap that a keyframe copies and restores in place: the due and timer heaps and the
ready queue's heap.

Its ``items`` list is the heap itself, which its owners push onto and pop from with
:mod:`heapq` directly (a call fewer per item than through methods here: every job, run and timer
passes through one) and read where a call per tick counts (the first item's tick). A keyframe
keeps a copy of it (:mod:`engine.rewind.frames`, by position between whole copies:
:mod:`engine.rewind.deltas`) and a restore puts the copy back into the same list.
"""

from __future__ import annotations

import heapq
from typing import Any


class Heap:
    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[Any] = []

    def pop_through(self, tick: int) -> Any:
        """Pop the smallest item if it is due by ``tick`` (its first field is at most ``tick``),
        else None: the loops that drain what fell due make one call an item where a test, a
        peek and a pop made three."""
        items = self.items
        if not items or items[0][0] > tick:
            return None
        return heapq.heappop(items)

    def peek(self) -> Any:
        """The smallest item, or None."""
        return self.items[0] if self.items else None

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def live(self) -> list[Any]:
        """The items, smallest first (for comparisons in tests; O(n log n))."""
        return sorted(self.items)

    def snapshot(self) -> tuple:
        return tuple(self.items)

    def restore(self, saved: tuple) -> None:
        """Back to a snapshot, in place (the parts hold this list)."""
        self.items[:] = saved
