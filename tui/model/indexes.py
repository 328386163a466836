"""Row indexes for virtual tables: the keys of a table in display order, with a filter.

A virtual table draws only its visible rows; what it needs from its model is the number of rows,
the key at a row position, and the position of a key. :class:`SortedIndex` keeps keys sorted by a
display order and is updated key by key (``put``/``discard``) from the changes of a step;
:class:`LogIndex` serves the event log, which is its own index. Both keep an optional filtered
view, updated the same way, so a filter costs one scan when it is set and O(changes) afterwards.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any

Matcher = Callable[[Any], bool]


class SortedIndex:
    """Keys in the order ``order(key)`` gives; ties are broken by the key itself."""

    def __init__(self, order: Callable[[Any], tuple]) -> None:
        self._order = order
        self._entries: list[tuple[tuple, Hashable]] = []
        self._placed: dict[Hashable, tuple[tuple, Hashable]] = {}
        self._match: Matcher | None = None
        self._shown: list[tuple[tuple, Hashable]] | None = None

    # ---------------------------------------------------------------- reading

    def __len__(self) -> int:
        rows = self._entries if self._shown is None else self._shown
        return len(rows)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._placed

    @property
    def total(self) -> int:
        """Rows before filtering."""
        return len(self._entries)

    def key_at(self, position: int) -> Any:
        rows = self._entries if self._shown is None else self._shown
        return rows[position][1]

    def position(self, key: Hashable) -> int | None:
        """Where ``key`` is shown, or None (absent or filtered out)."""
        entry = self._placed.get(key)
        if entry is None:
            return None
        rows = self._entries if self._shown is None else self._shown
        index = bisect.bisect_left(rows, entry)
        return index if index < len(rows) and rows[index] == entry else None

    def keys(self) -> Iterator[Any]:
        """Every key in order, filter ignored."""
        return (entry[1] for entry in self._entries)

    # --------------------------------------------------------------- changing

    def put(self, key: Hashable) -> None:
        """Insert ``key``, or move it to where its order now puts it."""
        self.put_all((key,))

    def put_all(self, keys: Iterable[Hashable]) -> None:
        """``put`` for many keys. A jump's slice adds thousands of rows, most of them after every
        row there is (they fall due later): those are appended, in order, without a search."""
        entries = []
        for key in dict.fromkeys(keys):
            self.discard(key)
            entry = (self._order(key), key)
            self._placed[key] = entry
            entries.append(entry)
        entries.sort()
        match = self._match if self._shown is not None else None
        for entry in entries:
            _insert(self._entries, entry)
            if match is not None and match(entry[1]):
                _insert(self._shown, entry)  # type: ignore[arg-type]

    def discard(self, key: Hashable) -> None:
        entry = self._placed.pop(key, None)
        if entry is None:
            return
        _remove(self._entries, entry)
        if self._shown is not None:
            _remove(self._shown, entry)

    def reset(self, keys: Iterable[Hashable]) -> None:
        """Replace every key at once (a rebuild): one sort instead of many inserts."""
        order = self._order
        self._entries = sorted((order(key), key) for key in keys)
        self._placed = {entry[1]: entry for entry in self._entries}
        self._refilter_all()

    def set_filter(self, match: Matcher | None) -> None:
        """Show only keys for which ``match`` is true; None shows every key."""
        self._match = match
        self._refilter_all()

    def recheck(self, keys: Iterable[Hashable]) -> None:
        """Keys whose rows changed: re-test them against the filter."""
        if self._shown is None or self._match is None:
            return
        for key in keys:
            entry = self._placed.get(key)
            if entry is None:
                continue
            _remove(self._shown, entry)
            if self._match(key):
                bisect.insort(self._shown, entry)

    def _refilter_all(self) -> None:
        match = self._match
        if match is None:
            self._shown = None
        else:
            self._shown = [entry for entry in self._entries if match(entry[1])]


class LogIndex:
    """Rows of an append-only log (positions 0..n-1), with a filtered view."""

    def __init__(self) -> None:
        self._length = 0
        self._match: Matcher | None = None
        self._shown: list[int] | None = None

    def __len__(self) -> int:
        return self._length if self._shown is None else len(self._shown)

    @property
    def total(self) -> int:
        return self._length

    def key_at(self, position: int) -> int:
        return position if self._shown is None else self._shown[position]

    def position(self, key: int) -> int | None:
        if not 0 <= key < self._length:
            return None
        if self._shown is None:
            return key
        index = bisect.bisect_left(self._shown, key)
        return index if index < len(self._shown) and self._shown[index] == key else None

    def resize(self, length: int) -> None:
        """The log now holds ``length`` events: test the new ones, or drop the undone ones."""
        old, self._length = self._length, length
        if self._shown is None or self._match is None:
            return
        if length < old:
            del self._shown[bisect.bisect_left(self._shown, length) :]
        else:
            match = self._match
            self._shown.extend(i for i in range(old, length) if match(i))

    def set_filter(self, match: Matcher | None) -> None:
        self._match = match
        self._shown = None if match is None else [i for i in range(self._length) if match(i)]


def _insert(rows: list, entry: tuple) -> None:
    if not rows or rows[-1] < entry:
        rows.append(entry)
    else:
        bisect.insort(rows, entry)


def _remove(rows: list, entry: tuple) -> None:
    index = bisect.bisect_left(rows, entry)
    if index < len(rows) and rows[index] == entry:
        del rows[index]


def text_matcher(query: str, row_text: Callable[[Any], str]) -> Matcher | None:
    """A filter from what a user types: every word must appear in the row (case-insensitive);
    ``!word`` must not. None for an empty query."""
    words = query.lower().split()
    wanted = [word for word in words if not word.startswith("!")]
    unwanted = [word[1:] for word in words if word.startswith("!") and len(word) > 1]
    if not wanted and not unwanted:
        return None

    def match(key: Any) -> bool:
        text = row_text(key).lower()
        return all(word in text for word in wanted) and not any(word in text for word in unwanted)

    return match
