"""What the parts of the engine declare and call so that keyframes can copy and restore them.

A history rewinds by keyframes and replay (:mod:`engine.rewind.frames`): a keyframe keeps the
records changed since the previous one, so it must know which changed. Every part calls
:meth:`ChangeJournal.touch` with a record before changing it; while nothing records keyframes
``touch`` is :data:`UNRECORDED`, which does nothing, and a recording replaces it with the
keyframes' own (which notes the record: :attr:`engine.rewind.frames.Frames.touch`).

Each part declares its state (:class:`JournaledPart`): its record tables, its containers (copied
whole, or by position: :mod:`engine.rewind.deltas`) and its counters. The keyframes copy and
restore what the parts declare, so a part added later is rewound by declaring itself, not by
editing the keyframes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Container(Protocol):
    """A container of a part's state that can be copied whole and put back in place."""

    def snapshot(self) -> Any: ...

    def restore(self, saved: Any) -> None: ...


class JournaledPart:
    """What a part of the engine declares to the keyframes; by default, nothing. A part
    overrides what it owns."""

    def tables(self) -> tuple[tuple[str, dict], ...]:
        """Its record tables by the kind of record: they only grow along a recording."""
        return ()

    def containers(self) -> tuple[Container, ...]:
        return ()

    def live_tables(self) -> tuple[tuple[str, dict], ...]:
        """Record tables whose records come and go (an archiving engine's live runs): a
        record enters one only as a new record, inserted at its end (where a keyframe looks
        for the new ones)."""
        return ()

    def scalars(self) -> tuple:
        """Its counters and other plain values, as they are now."""
        return ()

    def restore_scalars(self, values: tuple) -> None:
        """Put back what ``scalars()`` returned."""

    def reaches(self, values: tuple) -> bool:
        """Whether ``restore_scalars(values)`` can be done from the state now: a part that only
        truncates (the run archive) goes forward only as far as what it truncated reaches."""
        return True

    def forget_ahead(self, values: tuple) -> None:
        """The run changes after the state ``scalars()`` returned as ``values``: forget what
        was kept for going forward past it."""


UNRECORDED: Callable[[Any], object] = callable
"""``touch`` while nothing records keyframes: a built-in of one argument that does nothing with
it and allocates nothing (it answers a shared bool). A headless engine still calls ``touch``
before every change, about eight times a run (the demo's week: 622,000 calls for 78,000
attempts): ``id``, used before, made an int at each call, 1.9% of seed 001's instructions with
3,000 jobs (callgrind)."""


class ChangeJournal:
    """Where the parts say which record they are about to change (see the module docstring)."""

    __slots__ = ("touch",)

    def __init__(self) -> None:
        self.touch: Callable[[Any], object] = UNRECORDED
        """Called with a record before each change to it."""

    @property
    def recorded(self) -> bool:
        """Whether keyframes are recorded (``touch`` is theirs)."""
        return self.touch is not UNRECORDED
