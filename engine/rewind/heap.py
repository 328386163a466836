"""A binary heap that a keyframe copies and restores in place: the due and timer heaps and the
ready queue's heap.

Its ``items`` list is the heap itself, which its owners push onto and pop from with
:mod:`heapq` directly (a call fewer per item than through methods here: every job, run and timer
passes through one) and read where a call per tick counts (the first item's tick). A keyframe
keeps a copy of it (:mod:`engine.rewind.frames`) and a restore puts the copy back into the same
list.

While keyframes are recorded, the heap also keeps what was pushed and what was popped since the
last one (:attr:`Heap.pushed`, :attr:`Heap.popped`; None otherwise, and an owner that pushes or
pops appends the item when they are not None). So a keyframe keeps the heap as what it gained and
lost (:class:`HeapChanges`) rather than comparing a copy of tens of thousands of items with the
one before, and a restore rebuilds the copy from a whole one and the changes after it.

A heap only ever loses its smallest item, so what it lost of the items it held at the keyframe
before are its smallest ones: a change is their count and the items pushed since and still held,
and a rebuild pops that many and pushes those (in C: :func:`heapq.heappop` and
:func:`heapq.heappush` mapped over them). A rebuilt copy holds the same items, not necessarily
in the same places: every heap here orders its items totally (a sequence number, or equal items
that no reader tells apart), so what it pops depends on what it holds, not on where.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from itertools import compress, repeat
from operator import not_
from typing import Any


class HeapChanges:
    """What a heap lost and gained between two keyframes, worked out from what it logged when
    a rebuild first reads it (:attr:`removed`, :attr:`added`) or a run forward ends
    (:meth:`engine.rewind.frames.Frames.work_out_recent`), not when the keyframe is taken: it
    compares the ids of every item pushed and popped in the span, 42 ms of a 1.2 s recording
    at seed 000's sizes (225,000 items), and most keyframes are never restored. Until then it
    holds the items popped in the span, which the heap no longer does."""

    __slots__ = ("_added", "_logs", "_removed")

    def __init__(self, pushed: list[Any], popped: list[Any]) -> None:
        """The items pushed and popped in the span, in turn."""
        self._logs: tuple[list[Any], list[Any]] | None = (pushed, popped)
        self._removed = 0
        self._added: tuple = ()

    @property
    def removed(self) -> int:
        """How many of the items it held at the keyframe before it popped since: its
        smallest."""
        self.work_out()
        return self._removed

    @property
    def added(self) -> tuple:
        """Items pushed since and still held."""
        self.work_out()
        return self._added

    def work_out(self) -> None:
        """Work out what was lost and gained from the logs, which go, unless done already.

        An item is a new object each time it is pushed (a tuple made for the push), and popped
        at most once, so the items popped that were pushed in the span are the pushed ones not
        held, and the others popped are of those held before: no set of the pushed items' ids
        is needed to count them."""
        if self._logs is None:
            return
        pushed, popped = self._logs
        self._logs = None
        popped_ids = set(map(id, popped))
        added = tuple(compress(pushed, map(not_, map(popped_ids.__contains__, map(id, pushed)))))
        self._removed, self._added = len(popped) - len(pushed) + len(added), added


NO_CHANGES = HeapChanges([], [])


class UnloggedWrite(AssertionError):
    """A heap's items changed without being logged (pushed or popped past :attr:`Heap.pushed`
    and :attr:`Heap.popped`): a rewind would restore the wrong items. Only raised in the
    keyframes' debug mode (:attr:`engine.rewind.frames.Frames.check`)."""


class Heap:
    __slots__ = ("items", "popped", "pushed")

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.pushed: list[Any] | None = None
        """The items pushed since the last keyframe, while keyframes are recorded."""
        self.popped: list[Any] | None = None
        """The items popped since the last keyframe, while keyframes are recorded."""

    def __getstate__(self) -> tuple:
        # As pickle saves an object of slots: the logs are a recording's, not the heap's.
        return None, {"items": self.items}

    def __setstate__(self, state: tuple) -> None:
        self.items = state[1]["items"]
        self.pushed = self.popped = None

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
        self.forget_changes()

    # ------------------------------------------------------------ changes

    def log_changes(self) -> None:
        """Keep what is pushed and popped from now on (keyframes are being recorded)."""
        self.pushed, self.popped = [], []

    def forget_changes(self) -> None:
        """Start the logs afresh: the items are those of a keyframe again."""
        if self.pushed is not None:
            self.pushed, self.popped = [], []

    def changes(self) -> HeapChanges:
        """What the heap lost and gained since the logs started, which start afresh."""
        pushed, popped = self.pushed, self.popped
        if not pushed and not popped:
            return NO_CHANGES
        self.pushed, self.popped = [], []
        return HeapChanges(pushed, popped)  # type: ignore[arg-type]

    @staticmethod
    def rebuild(copy: tuple, changes: Sequence[HeapChanges]) -> tuple:
        """The copy that ``changes``, in order, make of ``copy``: the same items."""
        if all(change is NO_CHANGES for change in changes):
            return copy
        items = list(copy)
        for change in changes:
            deque(map(heapq.heappop, repeat(items, change.removed)), maxlen=0)
            deque(map(heapq.heappush, repeat(items), change.added), maxlen=0)
        return tuple(items)

    @staticmethod
    def work_out(changes: HeapChanges) -> None:
        """Work out ``changes`` now (:meth:`HeapChanges.work_out`) rather than in a rebuild."""
        changes.work_out()

    @staticmethod
    def check_changes(before: tuple, changes: HeapChanges, after: tuple) -> None:
        """Debug mode: ``changes`` turn ``before`` into the items of ``after``
        (:class:`UnloggedWrite`)."""
        try:
            rebuilt = Heap.rebuild(before, [changes])
        except IndexError:
            raise UnloggedWrite("a heap lost more items than it held") from None
        if sorted(rebuilt) != sorted(after):
            raise UnloggedWrite(
                f"a heap's items changed without being logged: {len(after)} held, "
                f"{len(rebuilt)} by what was logged"
            )
