"""Copies of containers kept as what changed since the previous copy, by position.

A keyframe copies the engine's containers whole (:mod:`engine.rewind.frames`): at seed 000's
sizes the due heap alone holds 60,000 entries, a copy of which per keyframe was most of the
keyframes' memory. Between two keyframes a few hundred entries are pushed and popped, and a heap's
push or pop moves entries along one path of the tree only, so most positions of its array still
hold the same objects. A :func:`delta` keeps only the positions whose object changed (compared by
identity, in C), and :func:`apply` rebuilds the copy from the previous one.

Copies are nested tuples (a queue's heap and its counter, the index's states and their keys):
a delta follows the nesting down to the large tuples, keeps those by position and anything else
whole, as the object it is (an entry is never rebuilt: its queue may test it by identity).
"""

from __future__ import annotations

from array import array
from itertools import compress, islice
from operator import is_not
from typing import Any

from engine.model.values import value

LARGE = 64
"""A tuple at least this long is kept by position; a shorter one element by element."""

SAMPLE = 16
"""About how many positions, spread evenly over a large tuple, are compared before all of them:
when more than half of these changed, the tuple is kept whole (:func:`_mostly_changed`)."""


class _Same:
    """The delta of a value that is the very object it was."""

    __slots__ = ()


SAME = _Same()


@value
class Positions:
    """A large tuple: its length and the objects at the positions that changed."""

    length: int
    positions: array
    values: tuple


@value
class Elements:
    """A short tuple of the same length: each element's delta."""

    deltas: tuple


def delta(before: Any, after: Any) -> Any:
    """What turns the copy ``before`` into the copy ``after`` (:func:`apply`): :data:`SAME`,
    a :class:`Positions`, an :class:`Elements`, or ``after`` itself (kept whole)."""
    if after is before:
        return SAME
    if type(after) is not tuple or type(before) is not tuple:
        return after
    if len(after) >= LARGE:
        positions = _changed_positions(before, after)
        if positions is None:
            return after
        return Positions(len(after), positions, tuple(map(after.__getitem__, positions)))
    if len(after) != len(before):
        return after
    deltas = tuple(map(delta, before, after))
    if any(type(change) is Positions or type(change) is Elements for change in deltas):
        return Elements(deltas)
    # Nothing large inside: keep it whole, the very object (a queue's entry is a tuple whose
    # identity its queue may test; a rebuilt equal one would not pass).
    return after


def _changed_positions(before: tuple, after: tuple) -> array | None:
    """The positions of ``after`` whose object is not the one ``before`` holds there (those
    past its end included), or None when they are more than half of them: ``after`` is then
    kept whole.

    A sample of the positions comes first (:func:`_mostly_changed`); the comparison then stops
    at the first position past that half, and the positions are an array
    only once they are known to be kept: a tuple whose order churns (a state's keys in the
    index) was compared to its end and its positions put one by one into an array, to be
    thrown away (at seed 000's sizes 175,000 positions of one 900-key tuple, at 176 of the 205
    keyframes)."""
    common = min(len(before), len(after))
    # How many of the positions both hold may change for ``after`` to be kept by positions.
    most = len(after) // 2 - (len(after) - common)
    if most < 0 or _mostly_changed(before, after, common):
        return None
    changed = list(islice(compress(range(common), map(is_not, before, after)), most + 1))
    if len(changed) > most:
        return None
    positions = array("q", changed)
    positions.extend(range(common, len(after)))
    return positions


def _mostly_changed(before: tuple, after: tuple, common: int) -> bool:
    """Whether more than half of :data:`SAMPLE` positions spread over the first ``common`` hold
    another object in ``after``: most positions then very likely do, and the tuple is kept
    whole without comparing each of them (a wrong guess costs memory, never exactness).

    A copy of a dictionary's keys in their order (a state's keys in the occurrence index)
    shifts every position after the first key removed: at seed 000's sizes the running runs'
    900 keys end in any order, and comparing half of them one by one, to keep them whole at
    201 of 205 keyframes, was 27 M instructions of the recording (callgrind)."""
    step = max(common // SAMPLE, 1)
    sampled = before[:common:step]
    return sum(map(is_not, sampled, after[:common:step])) * 2 > len(sampled)


def apply(before: Any, change: Any) -> Any:
    """The copy that ``change`` (a :func:`delta` from ``before``) describes."""
    if change is SAME:
        return before
    kind = type(change)
    if kind is Positions:
        items = list(before[: change.length])
        items.extend([None] * (change.length - len(items)))
        for position, value in zip(change.positions, change.values, strict=True):
            items[position] = value
        return tuple(items)
    if kind is Elements:
        return tuple(map(apply, before, change.deltas))
    return change
