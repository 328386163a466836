"""The aging ready queue: effective priority ``priority + floor((now - ready_since) / step)``,
ties to the run that fell due first.

Why this shape. With ``a = priority * step - ready_since`` (static per entry) the effective
priority is ``floor((a + now) / step)``, so the entry with the largest ``a`` (call it ``A``) has
the highest effective priority, and the entries that tie with it are exactly those with
``a >= floor((A + now) / step) * step - now``. The best entry is the one that fell due first among
those: the smallest ``(scheduled, submission)``, which is the order in which the engine processes
runs falling due (its due heap). So the queue is a binary search tree ordered by that tie-break,
each node knowing the largest ``a`` in its subtree: the root answers "largest a", and one descent
finds "first in tie-break order with a >= L".

Why a tree and not an array indexed by rank. A job's backlog waits implicitly behind one entry
(its front); when the front is taken, the next run enters the queue with the tick it fell due,
which is earlier than entries pushed since. Inserting in the middle needs a balanced tree; one
that holds only the waiting entries also keeps memory proportional to them, not to the number of
runs ever queued (an array indexed by a counter grows with the length of the run).

The tree is a treap whose heap priorities are a fixed hash of the key: balanced in expectation,
deterministic, and its shape depends only on the keys it holds. Every change goes through
``_place`` (a pop writes out its removal), which logs its inverse for the engine's restore points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.ready import ReadyEntry

_MASK = (1 << 64) - 1

_SUBMISSIONS = 64
"""A node's key is ``(scheduled << 64) + submission``: one int compares faster than a tuple, and
orders as ``(scheduled, submission)`` does while submissions stay below 2**64."""


def _key(entry: ReadyEntry) -> int:
    return (entry.scheduled << _SUBMISSIONS) + entry.submission


class _Node:
    __slots__ = ("a", "best", "entry", "heap", "key", "left", "right")

    def __init__(self, key: int, entry: ReadyEntry, a: int) -> None:
        self.key = key
        self.entry = entry
        self.a = a
        self.best = a
        """The largest ``a`` in this subtree."""
        # The heap priority: SplitMix64 of (scheduled, submission), a fixed, well-spread value,
        # so the treap needs no generator (written out here: one call fewer per node).
        z = (entry.scheduled * 0x9E3779B97F4A7C15 + entry.submission * 0xD1B54A32D192ED03) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        self.heap = z ^ (z >> 31)
        self.left: _Node | None = None
        self.right: _Node | None = None


def _refresh(node: _Node) -> None:
    """Recompute ``best`` from the node and its children."""
    best = node.a
    left, right = node.left, node.right
    if left is not None and left.best > best:
        best = left.best
    if right is not None and right.best > best:
        best = right.best
    node.best = best


def _split(node: _Node | None, key: int) -> tuple[_Node | None, _Node | None]:
    """Split a subtree into the keys below ``key`` and those above (``key`` is not in it)."""
    if node is None:
        return None, None
    below = above = None
    below_tail = above_tail = None
    walked = []
    while node is not None:
        walked.append(node)
        if node.key < key:
            if below_tail is None:
                below = node
            else:
                below_tail.right = node
            below_tail, node = node, node.right
        else:
            if above_tail is None:
                above = node
            else:
                above_tail.left = node
            above_tail, node = node, node.left
    if below_tail is not None:
        below_tail.right = None
    if above_tail is not None:
        above_tail.left = None
    for changed in reversed(walked):
        best = changed.a
        left, right = changed.left, changed.right
        if left is not None and left.best > best:
            best = left.best
        if right is not None and right.best > best:
            best = right.best
        changed.best = best
    return below, above


def _merge(low: _Node | None, high: _Node | None) -> _Node | None:
    """Join two subtrees, every key of ``low`` below every key of ``high``."""
    if low is None:
        return high
    if high is None:
        return low
    root = parent = None
    to_right = False
    walked = []
    while low is not None and high is not None:
        if low.heap >= high.heap:
            top, low, next_to_right = low, low.right, True
        else:
            top, high, next_to_right = high, high.left, False
        if parent is None:
            root = top
        elif to_right:
            parent.right = top
        else:
            parent.left = top
        walked.append(top)
        parent, to_right = top, next_to_right
    rest = low if low is not None else high
    if parent is None:
        return rest
    if to_right:
        parent.right = rest
    else:
        parent.left = rest
    for changed in reversed(walked):
        _refresh(changed)
    return root


class AgingReadyQueue:
    """See the module docstring. O(log n) expected per push, remove and pop; O(n) memory for n
    entries held."""

    __slots__ = ("_nodes", "_root", "_step", "journal")

    def __init__(self, step: int) -> None:
        self._step = step
        self._root: _Node | None = None
        self._nodes: dict[int, _Node] = {}
        """By key (``(scheduled, submission)`` as one int): one entry per run (a later push
        replaces)."""
        self.journal: list | None = None
        """Where undo steps go while the engine keeps restore points."""

    def push(self, entry: ReadyEntry) -> None:
        self._place(_key(entry), entry)

    def remove(self, entry: ReadyEntry) -> None:
        key = _key(entry)
        node = self._nodes.get(key)
        if node is not None and node.entry is entry:
            self._place(key, None)

    def pop(self, now: int) -> ReadyEntry | None:
        """Take out and return the best entry at tick ``now`` (None when empty)."""
        node = self._root
        if node is None:
            return None
        step = self._step
        threshold = ((node.best + now) // step) * step - now
        path = []
        while True:
            left = node.left
            if left is not None and left.best >= threshold:
                path.append(node)
                node = left
            elif node.a >= threshold:
                break
            else:
                path.append(node)
                node = node.right
        # What ``_place(node.key, None, path)`` does, written out: a pop is the hot path.
        entry = node.entry
        del self._nodes[node.key]
        if self.journal is not None:
            self.journal.append((self._place, node.key, entry))
        self._unlink(node, path)
        return entry

    def __bool__(self) -> bool:
        return self._root is not None

    def __len__(self) -> int:
        return len(self._nodes)

    def contents(self) -> list[ReadyEntry]:
        """The entries held, in tie-break order (for comparisons in tests)."""
        return list(self.snapshot())

    def snapshot(self) -> tuple[ReadyEntry, ...]:
        """The entries held, in tie-break order, read from the tree itself."""
        entries = []
        stack: list[_Node] = []
        node = self._root
        while stack or node is not None:
            while node is not None:
                stack.append(node)
                node = node.left
            node = stack.pop()
            entries.append(node.entry)
            node = node.right
        return tuple(entries)

    def restore(self, saved: tuple[ReadyEntry, ...]) -> None:
        """Back to a snapshot, in place (undo steps hold this object). Builds the treap from the
        sorted entries in O(n): a stack holds the right spine built so far."""
        step = self._step
        nodes = {}
        spine: list[_Node] = []
        for entry in saved:
            key = _key(entry)
            node = nodes[key] = _Node(key, entry, entry.priority * step - entry.ready_since)
            below = None
            while spine and spine[-1].heap < node.heap:
                below = spine.pop()
                _refresh(below)
            node.left = below
            if spine:
                spine[-1].right = node
            spine.append(node)
        root = spine[0] if spine else None
        while spine:
            _refresh(spine.pop())
        self._nodes = nodes
        self._root = root

    def _place(self, key: int, entry: ReadyEntry | None) -> None:
        """Put ``entry`` (or nothing) at ``key``; the only place the queue changes (``pop``
        writes out its removal, with the path it found)."""
        nodes = self._nodes
        old = nodes.pop(key, None)
        if self.journal is not None:
            self.journal.append((self._place, key, old.entry if old is not None else None))
        if old is not None:
            self._unlink(old, self._path_to(old))
        if entry is not None:
            a = entry.priority * self._step - entry.ready_since
            node = nodes[key] = _Node(key, entry, a)
            self._link(node)

    def _link(self, node: _Node) -> None:
        """Insert ``node``: walk down while the nodes met belong above it, then split the rest."""
        key, a, heap = node.key, node.a, node.heap
        parent = None
        to_left = False
        current = self._root
        while current is not None and current.heap >= heap:
            if a > current.best:
                current.best = a
            parent = current
            to_left = key < current.key
            current = current.left if to_left else current.right
        node.left, node.right = _split(current, key)
        _refresh(node)
        if parent is None:
            self._root = node
        elif to_left:
            parent.left = node
        else:
            parent.right = node

    def _path_to(self, node: _Node) -> list[_Node]:
        """The nodes from the root down to ``node``'s parent."""
        key = node.key
        path = []
        current = self._root
        while current is not node:
            path.append(current)
            current = current.left if key < current.key else current.right
        return path

    def _unlink(self, node: _Node, path: list[_Node]) -> None:
        """Delete ``node`` (``path`` leads to it): its children merged take its place. Above it,
        ``best`` can only fall, and stops changing at the first node whose ``best`` holds."""
        joined = _merge(node.left, node.right)
        if not path:
            self._root = joined
            return
        parent = path[-1]
        if parent.left is node:
            parent.left = joined
        else:
            parent.right = joined
        for above in reversed(path):
            best = above.a
            left, right = above.left, above.right
            if left is not None and left.best > best:
                best = left.best
            if right is not None and right.best > best:
                best = right.best
            if best == above.best:
                break
            above.best = best
