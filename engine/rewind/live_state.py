"""Keyframes: whole copies of an engine's live state, for rewinding by restore and replay.

Why copies rather than undo information: the engine is deterministic, so any state is the state
of a keyframe at or before it plus the commands played since. A history therefore needs only
copies of the state every so often and replays the rest; nothing has to be logged while the
engine plays, so playing costs what a bare play costs. A copy is cheap when the live state is
small, which it is in an engine that archives its finished runs
(:mod:`engine.parts.run_archive`): jobs, waiting and running runs, workers, timers. The archive
and the event log only grow, so a keyframe keeps their lengths and a restore truncates them.

What a keyframe copies is what the parts declare (:class:`StatePart`): their record tables,
their containers and their counters. A record is copied as the values of its fields (its
``save()``, :mod:`engine.model.journaled`), and a restore puts those values back into the same
record object: the parts hold records by reference (a job in its cursors' table and in the
rules' hands), so the objects stay and their values go back. A record made after the keyframe
is dropped from its table; one taken out since (archived) is put back.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import methodcaller
from typing import Any, Protocol

from engine.model.events import EventLog
from engine.model.rng import TrackedRandom
from engine.model.values import value

_save = methodcaller("save")


class Container(Protocol):
    """A container of a part's state that can be copied whole and put back in place."""

    def snapshot(self) -> Any: ...

    def restore(self, saved: Any) -> None: ...


class StatePart(Protocol):
    """What a part of the engine declares about its state, so that a keyframe copies it."""

    def tables(self) -> tuple[tuple[str, dict], ...]:
        """Its record tables by the kind of record (each record has ``save``/``restore``)."""
        ...

    def containers(self) -> tuple[Container, ...]: ...

    def live_tables(self) -> tuple[tuple[str, dict], ...]:
        """Its record tables whose records come and go (an archiving engine's live runs), each
        record under its ``key`` (a keyframe keeps the records, not their keys). A record
        enters one only as a new record, inserted at its end: a keyframe looks for the new
        ones there (:func:`engine.rewind.frames._new_live`)."""
        ...

    def scalars(self) -> tuple:
        """Its counters and other plain values, as they are now."""
        ...

    def restore_scalars(self, values: tuple) -> None:
        """Put back what ``scalars()`` returned."""
        ...

    def reaches(self, values: tuple) -> bool:
        """Whether ``restore_scalars(values)`` can be done from the state now."""
        ...

    def forget_ahead(self, values: tuple) -> None:
        """The run changes after the state ``scalars()`` returned as ``values``."""
        ...


@value
class Keyframe:
    """The live state of an engine at one moment, as values: restoring it (any number of times)
    gives that state back exactly."""

    tables: tuple[tuple[dict, tuple], ...]
    """Per table: its items then (key to record) and each record's saved fields, in order."""
    containers: tuple
    """Each container's snapshot, in the order the parts declared them."""
    scalars: tuple[tuple, ...]
    """Each part's ``scalars()``."""
    rng_state: tuple
    log_length: int
    """The event log only grows: a restore truncates it to this length."""


class LiveState:
    """The parts of one engine, its log and its generator: takes and restores keyframes."""

    def __init__(self, parts: Sequence[StatePart], log: EventLog, rng: TrackedRandom) -> None:
        self._parts = tuple(parts)
        self._tables = tuple(
            table for part in parts for _, table in (*part.tables(), *part.live_tables())
        )
        self._containers = tuple(container for part in parts for container in part.containers())
        self._log, self._rng = log, rng

    def keyframe(self) -> Keyframe:
        """A copy of the state as it is now."""
        return Keyframe(
            tables=tuple(
                (dict(table), tuple(map(_save, table.values()))) for table in self._tables
            ),
            containers=tuple(container.snapshot() for container in self._containers),
            scalars=tuple(part.scalars() for part in self._parts),
            rng_state=self._rng.getstate(),
            log_length=len(self._log),
        )

    def restore(self, keyframe: Keyframe) -> None:
        """Put the state of ``keyframe`` back, in place (the parts keep their objects)."""
        for table, (items, saves) in zip(self._tables, keyframe.tables, strict=True):
            table.clear()
            table.update(items)
            for record, saved in zip(items.values(), saves, strict=True):
                record.restore(saved)
        for container, saved in zip(self._containers, keyframe.containers, strict=True):
            container.restore(saved)
        for part, values in zip(self._parts, keyframe.scalars, strict=True):
            part.restore_scalars(values)
        self._rng.setstate(keyframe.rng_state)
        self._log.truncate(keyframe.log_length)
