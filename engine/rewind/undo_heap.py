"""A binary heap whose pushes and pops can be undone, for the engine's restore points.

Undoing a pop pushes the item back. Undoing a push cannot find the item cheaply (other pushes and
pops have moved it), so the item is marked dead instead and skipped when it reaches the top: the
heap then holds the same live items as before the push, which is all its users can observe.
"""

from __future__ import annotations

import heapq
from typing import Any


class UndoHeap:
    __slots__ = ("_unpush", "dead", "items", "journal")

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.dead: set[int] = set()
        """Ids of items whose push was undone; they are still in ``items`` until they surface."""
        self.journal: list | None = None
        """Where undo steps go while the engine keeps restore points; None when it does not."""
        self._unpush = self._kill
        """Bound once: an undo step is then one small tuple, not a tuple, a bound method and an
        id (pushes are a third of the journal's steps)."""

    def push(self, item: Any) -> None:
        heapq.heappush(self.items, item)
        if self.journal is not None:
            self.journal.append((self._unpush, item))

    def _kill(self, item: Any) -> None:
        """Undo a push (see the module docstring)."""
        self.dead.add(id(item))

    def pop(self) -> Any:
        if self.dead:
            self._surface()
        item = heapq.heappop(self.items)
        if self.journal is not None:
            self.journal.append((heapq.heappush, self.items, item))
        return item

    def pop_through(self, tick: int) -> Any:
        """Pop the smallest live item if it is due by ``tick`` (its first field is at most
        ``tick``), else None: the loops that drain what fell due make one call an item where a
        test, a peek and a pop made three."""
        if self.dead:
            self._surface()
        items = self.items
        if not items or items[0][0] > tick:
            return None
        item = heapq.heappop(items)
        if self.journal is not None:
            self.journal.append((heapq.heappush, items, item))
        return item

    def peek(self) -> Any:
        """The smallest live item, or None."""
        if self.dead:
            self._surface()
        return self.items[0] if self.items else None

    def __bool__(self) -> bool:
        if self.dead:
            self._surface()
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items) - len(self.dead)

    def live(self) -> list[Any]:
        """The live items, smallest first: what the heap holds for its users (for comparisons
        in tests; O(n log n))."""
        return sorted(item for item in self.items if id(item) not in self.dead)

    def snapshot(self) -> tuple[tuple, frozenset[int]]:
        return tuple(self.items), frozenset(self.dead)

    def restore(self, saved: tuple[tuple, frozenset[int]]) -> None:
        """Back to a snapshot, in place: undo steps hold references to these containers."""
        items, dead = saved
        self.items[:] = items
        self.dead.clear()
        self.dead.update(dead)

    def _surface(self) -> None:
        items, dead = self.items, self.dead
        while items and dead and id(items[0]) in dead:
            dead.discard(id(heapq.heappop(items)))
