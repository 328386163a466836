"""The aging ready queue: effective priority ``priority + floor((now - ready_since) / step)``,
ties to the run that fell due first.

Why this shape. With ``a = priority * step - ready_since`` (static per entry) the effective
priority is ``floor((a + now) / step)``, so the entry with the largest ``a`` (call it ``A``) has
the highest effective priority, and the entries that tie with it are exactly those with
``a >= L``, ``L = floor((A + now) / step) * step - now``. The best entry is the one that fell due
first among those: the smallest ``(scheduled, submission)``, which is the order in which the
engine processes runs falling due (its due heap), kept as one int, the entry's *key*.

``L`` lies in ``(A - step, A]``: the window of entries that tie spans at most two *buckets*
``q = a // step``, the top one (``Q``, which holds ``A``) and the one below it. So entries are
grouped by their exact ``a`` (each group a heap of keys), and each bucket keeps its groups' ``a``
values sorted with, beside each, its group's smallest key. A pop reads the top bucket (and, where
the window reaches it, the one below), takes the smallest key among the window's groups, and pops
that group. Each step of it is C code over short lists (``bisect``, ``heapq``, ``min`` over one
bucket's groups): the work of a pop is O(log n) for the heaps plus the window's distinct ``a``
values, which are at most ``step`` and, for an order whose priorities are a few dozen levels,
about as many as the priorities that tie. A balanced tree (a treap, which this replaced) costs
O(log n) too, but every level of it is Python: about 25 µs per push and pop against 2 to 3 here
(seed 001 with 3,000 to 100,000 jobs).

Why not an array indexed by rank. A job's backlog waits implicitly behind one entry (its front);
when the front is taken, the next run enters the queue with the tick it fell due, which is
earlier than entries pushed since: keys arrive out of order, and a heap per group takes them so.

A keyframe copies the queue as its entries in tie-break order (:meth:`AgingReadyQueue.snapshot`),
and a restore pushes them back.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left

from engine.parts.ready_entry import PRIORITY, READY_SINCE, SCHEDULED, SUBMISSION, ReadyEntry

_SUBMISSIONS = 64
"""A key is ``(scheduled << 64) + submission``: one int compares faster than a tuple, and orders
as ``(scheduled, submission)`` does while submissions stay below 2**64."""


class AgingReadyQueue:
    """See the module docstring. O(log n + w) per push, remove and pop, w the distinct ``a``
    values of a bucket (at most ``step``); O(n) memory for n entries held."""

    __slots__ = ("_buckets", "_entries", "_groups", "_step", "_topped", "_tops")

    def __init__(self, step: int) -> None:
        self._step = step
        self._entries: dict[int, ReadyEntry] = {}
        """By key: one entry per run (a later push replaces)."""
        self._groups: dict[int, list[int]] = {}
        """By ``a``: a heap of the keys of the entries with that ``a``."""
        self._buckets: dict[int, tuple[list[int], list[int]]] = {}
        """By ``q = a // step``: its groups' ``a`` values, ascending, and beside each the
        smallest key of that group."""
        self._tops: list[int] = []
        """A heap of ``-q`` for the buckets, so the top bucket is ``-_tops[0]``; a bucket emptied
        leaves its ``-q`` until it surfaces (``_topped`` keeps one per ``q``)."""
        self._topped: set[int] = set()
        """The ``q`` values in ``_tops``."""

    def push(self, entry: ReadyEntry) -> None:
        """Hold ``entry`` (in place of an entry of the same run). Its grouping is written out
        here rather than called: every run is pushed once, a call fewer each."""
        entries, step = self._entries, self._step
        # The key (see ``_SUBMISSIONS``) computed here and in ``remove``, not by a helper.
        key = (entry[SCHEDULED] << _SUBMISSIONS) + entry[SUBMISSION]
        old = entries.pop(key, None)
        if old is not None:
            self._ungroup(key, old[PRIORITY] * step - old[READY_SINCE])
        entries[key] = entry
        a = entry[PRIORITY] * step - entry[READY_SINCE]
        group = self._groups.get(a)
        if group is not None:
            heapq.heappush(group, key)
            if group[0] == key:  # the group's new smallest key
                values, heads = self._buckets[a // step]
                heads[bisect_left(values, a)] = key
            return
        self._groups[a] = [key]
        q = a // step
        bucket = self._buckets.get(q)
        if bucket is None:
            self._buckets[q] = ([a], [key])
            if q not in self._topped:
                self._topped.add(q)
                heapq.heappush(self._tops, -q)
            return
        values, heads = bucket
        at = bisect_left(values, a)
        values.insert(at, a)
        heads.insert(at, key)

    def remove(self, entry: ReadyEntry) -> None:
        key = (entry[SCHEDULED] << _SUBMISSIONS) + entry[SUBMISSION]
        if self._entries.get(key) is entry:
            del self._entries[key]
            self._ungroup(key, entry[PRIORITY] * self._step - entry[READY_SINCE])

    def pop(self, now: int) -> ReadyEntry | None:
        """Take out and return the best entry at tick ``now`` (None when empty)."""
        buckets, tops, step = self._buckets, self._tops, self._step
        while tops and -tops[0] not in buckets:
            self._topped.discard(-heapq.heappop(tops))
        if not tops:
            return None
        top = -tops[0]
        values, heads = buckets[top]
        threshold = ((values[-1] + now) // step) * step - now
        if threshold // step == top:
            best = min(heads[bisect_left(values, threshold) :])
        else:  # the window holds the whole top bucket and reaches into the one below
            best = min(heads)
            below = buckets.get(top - 1)
            if below is not None:
                start = bisect_left(below[0], threshold)
                if start < len(below[1]):
                    best = min(best, min(below[1][start:]))
        entry = self._entries.pop(best)
        # ``_ungroup``, written out for the key that heads its group (a call fewer per pop).
        a = entry[PRIORITY] * step - entry[READY_SINCE]
        group = self._groups[a]
        heapq.heappop(group)
        q = a // step
        values, heads = buckets[q]
        at = bisect_left(values, a)
        if group:
            heads[at] = group[0]
            return entry
        del self._groups[a]
        del values[at], heads[at]
        if not values:
            del buckets[q]
        return entry

    def __bool__(self) -> bool:
        return bool(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def contents(self) -> list[ReadyEntry]:
        """The entries held, in tie-break order (for comparisons in tests)."""
        return list(self.snapshot())

    def snapshot(self) -> tuple[ReadyEntry, ...]:
        """The entries held, in tie-break order."""
        entries = self._entries
        return tuple(entries[key] for key in sorted(entries))

    def restore(self, saved: tuple[ReadyEntry, ...]) -> None:
        """Back to a snapshot, in place (the dispatcher holds this object)."""
        self._entries = {}
        self._groups = {}
        self._buckets = {}
        self._tops = []
        self._topped = set()
        for entry in saved:
            self.push(entry)

    def _ungroup(self, key: int, a: int) -> None:
        group = self._groups[a]
        if group[0] == key:
            heapq.heappop(group)
        else:
            group.remove(key)
            heapq.heapify(group)
        q = a // self._step
        values, heads = self._buckets[q]
        at = bisect_left(values, a)
        if group:
            heads[at] = group[0]
            return
        del self._groups[a]
        del values[at], heads[at]
        if not values:
            del self._buckets[q]
