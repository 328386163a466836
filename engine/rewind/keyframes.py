"""Keyframes: whole restore points far apart, and what changed between them, for long jumps.

Why (measured on seed 000's maximum workload, 92,000 ticks played): a restore point after every
tick (:class:`engine.rewind.journal.Mark`) makes a step back cost what changed in that step, but a
jump across the run undoes every change in between, one by one (half a million container steps and
records saves, 0.7 s), and keeping every tick's undo information cost three times the live state.

So the journal keeps per-tick undo information only for a *window* (the last segment or two) and,
like a video codec, *keyframes* every few thousand events: the containers copied whole (a few
hundred kilobytes) and the engine's counters. Between two keyframes, a :class:`Span` keeps what a
jump over it needs, each record once however often it changed:

- ``before``: the records that existed at the span's start and changed in it, with their values
  there (a backward jump restores these), grouped by the span each was born in;
- ``after``: the same records with their values at the span's end (a forward jump);
- ``born``: the records made in the span, per table, in order (a forward jump puts them back).

A record made in a span and changed in a later one is in the later span's ``before`` and
``after``. While it is out of its table (the engine is before its birth) it holds its value at
the end of its own span, or that value waits in :attr:`Timeline.unborn` until a forward jump puts
the record back. So a backward jump restores only the records that exist at its target, and a
forward jump the records changed on the way, not every record born on the way (those only go
back into their tables).

Spans merge: every :data:`FANOUT` spans of one level make one of the next, keeping each record's
earliest ``before`` and latest ``after``. A jump over ``n`` spans reads O(log n) merged spans, so
it costs about the distinct records changed over the distance, not the changes.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from engine.model.events import EventRecords

if TYPE_CHECKING:
    from engine.rewind.journal import Mark

FANOUT = 8
"""How many spans of one level merge into one of the next."""

Saved = tuple[Any, tuple]
"""A record and its fields as ``save()`` returned them."""


@dataclass(slots=True)
class Keyframe:
    """A state the journal can jump to from anywhere: its mark and its containers' copies."""

    label: Any
    """The caller's name for the state (the history's tick); None when the journal made it."""
    mark: Mark
    containers: tuple


@dataclass(slots=True)
class Span:
    """What changed between two consecutive keyframes (or across merged spans)."""

    before: dict[int, dict[int, Saved]]
    """By the index of the span each was born in (-1: before the first keyframe), then by record
    id: the records older than the span that it changed, with their values at its start.

    Grouped by birth because a backward jump to keyframe ``k`` restores the records born before
    it and sets the others aside (they do not exist there): with the groups that is a merge of
    whole dictionaries, where a flat one had to read each record's birth, a cache miss per
    record for tens of thousands of them (an eighth of a seek at seed 000's sizes)."""
    after: dict[int, Saved]
    """By record id: the same records with their values at its end."""

    born: tuple[dict, ...]
    """Per table, the records made in the span by their keys, in the order they were made (a
    dictionary, not a list of pairs: a forward jump merges it into the table without hashing
    the keys again, and it is the smaller of the two)."""


def merge(spans: list[Span]) -> Span:
    """One span for consecutive ``spans``: earliest ``before``, latest ``after``, all births."""
    before: dict[int, dict[int, Saved]] = {}
    for span in reversed(spans):
        for birth, group in span.before.items():
            _merge_group(before, birth, group)
    after: dict[int, Saved] = {}
    for span in spans:
        after.update(span.after)
    return Span(before, after, births(spans))


def _merge_group(groups: dict[int, dict[int, Saved]], birth: int, group: dict[int, Saved]) -> None:
    """Merge ``group`` into ``groups[birth]``, its values winning; a copy, never the span's own
    dictionary, is what ``groups`` keeps."""
    merged = groups.get(birth)
    if merged is None:
        groups[birth] = dict(group)
    else:
        merged.update(group)


def births(spans: list[Span]) -> tuple[dict, ...]:
    """The records born in consecutive ``spans``, per table, in order."""
    joined: list[dict] = [{} for _ in spans[0].born]
    for span in spans:
        for table, items in zip(joined, span.born, strict=True):
            table.update(items)
    return tuple(joined)


def close_span(
    saves: list[list], start: int, tables: list[dict], lengths: tuple, generations: list[int]
) -> Span:
    """The span from the keyframe that opened generation ``start`` to the state as it is now,
    from the journal's ``saves`` since (per generation), its tables' ``lengths`` then and the
    keyframes' ``generations`` (to find the span each record was born in)."""
    before: dict[int, dict[int, Saved]] = {}
    for generation in saves:
        for record, saved in generation:
            born = record.born
            if born < start:
                birth = bisect.bisect_right(generations, born) - 1
                group = before.get(birth)
                if group is None:
                    group = before[birth] = {}
                if id(record) not in group:
                    group[id(record)] = (record, saved)
    after = {key: (record, record.save()) for key, (record, _) in _changed(before)}
    born = tuple(table_tail(table, length) for table, length in zip(tables, lengths, strict=True))
    return Span(before, after, born)


def _changed(before: dict[int, dict[int, Saved]]) -> Iterator[tuple[int, Saved]]:
    for group in before.values():
        yield from group.items()


def end_values(span: Span, since: list[list]) -> dict[int, Saved]:
    """The values the records born in ``span`` had at its end, from the journal's saves since
    (per generation; a record not saved since has not changed)."""
    earliest: dict[int, Saved] = {}
    for saves in reversed(since):
        earliest.update((id(record), (record, saved)) for record, saved in saves)
    return {
        id(record): earliest.get(id(record)) or (record, record.save())
        for items in span.born
        for record in items.values()
    }


def table_tail(table: dict, length: int) -> dict:
    """The items of ``table`` after its first ``length``, in order (O(what is after))."""
    tail = list(islice(reversed(table.items()), len(table) - length))
    tail.reverse()
    return dict(tail)


class Timeline:
    """The keyframes, the spans between them (merged by levels) and the events up to the last."""

    def __init__(self) -> None:
        self.keyframes: list[Keyframe] = []
        self.levels: list[list[Span]] = [[]]
        """Level 0: the span after each keyframe but the last; level ``l``: merges of
        ``FANOUT ** l`` of them, aligned."""
        self.events = EventRecords(bytearray(), [])
        """The events up to the last keyframe, as stored (a forward jump puts them back)."""
        self.generations: list[int] = []
        """Each keyframe's generation id: a record born before it existed at the keyframe."""
        self.unborn: dict[int, dict[int, Saved]] = {}
        """By span: records made in it, out of their tables, with the values they must hold when
        a forward jump puts them back (a backward jump leaves them here instead of restoring
        records that will not exist)."""

    def add(self, keyframe: Keyframe, span: Span | None, events: EventRecords) -> None:
        """Append a keyframe; ``span`` and ``events`` lead to it from the previous one."""
        if span is not None:
            self.events.extend(events)
            self.levels[0].append(span)
            level = 0
            while len(self.levels[level]) % FANOUT == 0:
                if level + 1 == len(self.levels):
                    self.levels.append([])
                self.levels[level + 1].append(merge(self.levels[level][-FANOUT:]))
                level += 1
        self.keyframes.append(keyframe)
        self.generations.append(keyframe.mark.generation)

    def truncate(self, count: int) -> None:
        """Keep the first ``count`` keyframes and what leads up to them."""
        del self.keyframes[count:], self.generations[count:]
        for span in [span for span in self.unborn if span >= count - 1]:
            del self.unborn[span]
        for level, spans in enumerate(self.levels):
            del spans[max(0, count - 1) // FANOUT**level :]
        self.events.truncate(self.keyframes[-1].mark.log_length)

    def cover(self, low: int, high: int) -> list[Span]:
        """The fewest spans, oldest first, that together lead from keyframe ``low`` to ``high``."""
        spans = []
        index = low
        while index < high:
            level = 0
            while level + 1 < len(self.levels):
                size = FANOUT ** (level + 1)
                if (
                    index % size
                    or index + size > high
                    or index // size >= len(self.levels[level + 1])
                ):
                    break
                level += 1
            spans.append(self.levels[level][index // FANOUT**level])
            index += FANOUT**level
        return spans

    def values_back(self, low: int, high: int) -> list[Saved]:
        """Going back from keyframe ``high`` to ``low``: the earliest value of each changed
        record that exists at ``low``. The others' (made since) wait in ``unborn``."""
        existing: dict[int, Saved] = {}
        unborn = self.unborn
        for span in reversed(self.cover(low, high)):  # the latest first: the earliest value wins
            for birth, group in span.before.items():
                if birth < low:
                    existing.update(group)
                else:
                    _merge_group(unborn, birth, group)
        return list(existing.values())

    def values_forward(self, low: int, high: int) -> tuple[list[Saved], list[Span]]:
        """Going forward from keyframe ``low`` to ``high``: the values to restore (each changed
        record's latest, else the ``unborn`` value of a record made on the way), and the spans on
        the way, oldest first (their records born go back into the tables)."""
        spans = self.cover(low, high)
        values: dict[int, Saved] = {}
        for index in range(low, high):
            values.update(self.unborn.pop(index, ()))
        for span in spans:
            values.update(span.after)
        return list(values.values()), spans
