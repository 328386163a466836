"""Restore points for time travel: the undo journal every part of the engine writes to.

Why this design (measured on seed 000's maximum workload, 240,000 occurrences): pickling or deep
copying the engine takes seconds and doubles its memory, so snapshots cannot make a step back
instant. Instead ``mark()`` opens a *generation* and returns a small :class:`Mark` (each part's
counters, the random generator's state, the lengths of the append-only parts). During a
generation the parts keep two kinds of undo information:

- records (jobs, occurrences, workers, notifications) are saved copy-on-write: the first time one
  changes in a generation, :meth:`UndoJournal.touch` saves its fields; rolling back restores each
  record that existed at the mark from its earliest save at or after the mark;
- containers (the ready queue, the worker pool, the due and timer heaps, the state index) log an
  undo step for every change; rolling back runs them newest first.

Each part of the engine registers with the journal (:class:`JournaledPart`): its record tables,
its containers and its counters. The journal saves and restores what the parts declare, so a part
added later is journaled by declaring itself, not by editing this module.

The record tables and the event log only grow, so rolling back truncates them. The cost of a
rollback is proportional to what changed since the mark, never to the size of the state, and a
mark costs a few microseconds, so the history can leave one after every tick it plays. Without
marks (the facades) the engine pays one comparison per change.

Going forward again. The first rollback from the furthest state reached (the *head*) keeps what
it undoes in a :class:`Head`: the head's values of every record it restores, the events and
records it truncates, a copy of the containers and the undo information of the generations it
leaves. ``restore_head()`` brings all of that back at the cost of what changed since the lowest
point rolled back to, so a long seek forward is a return to the head plus a rollback, not a
replay. A head stays valid while the engine replays the same future (it is deterministic); a new
command makes it a different future, and ``drop_head()`` forgets it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

from engine.events import EventLog, EventRecords
from engine.records import changed_field, values
from engine.rng import TrackedRandom

UNSAVED = -1
"""The ``gen`` of a record just restored: no generation has saved it, so its next change saves."""


class UnjournaledWrite(AssertionError):
    """A record changed in a generation that had not saved it: a rollback would miss the change.
    Only raised in the debug mode (``UndoJournal.check``)."""


class Container(Protocol):
    """A journaled container: it logs undo steps to ``journal`` and can be copied whole."""

    journal: list | None

    def snapshot(self) -> Any: ...

    def restore(self, saved: Any) -> None: ...


class JournaledPart:
    """What a part of the engine declares to the journal; by default, nothing. A part overrides
    what it owns."""

    def tables(self) -> tuple[tuple[str, dict], ...]:
        """Its record tables by the kind of record: they only grow between rollbacks."""
        return ()

    def containers(self) -> tuple[Container, ...]:
        return ()

    def scalars(self) -> tuple:
        """Its counters and other plain values, as they are now."""
        return ()

    def restore_scalars(self, values: tuple) -> None:
        """Put back what ``scalars()`` returned."""


@dataclass(frozen=True, slots=True)
class Mark:
    """A restore point: what a rollback needs besides the undo records."""

    generation: int
    scalars: tuple[tuple, ...]
    """Each part's ``scalars()``, in the order the parts registered."""
    rng_state: Any
    log_length: int
    table_lengths: tuple[int, ...]


@dataclass(slots=True)
class Head:
    """The furthest state reached, kept while the engine looks at earlier ones."""

    mark: Mark
    """Counters and lengths at the head."""
    lowest: Mark
    """The earliest restore point rolled back to since the head was left."""
    containers: tuple
    records: dict[int, tuple[Any, tuple]]
    """By record id: the record and its fields at the head."""
    log_tail: EventRecords
    """Events after ``lowest``."""
    table_tails: tuple[list, ...]
    """Records created after ``lowest``, per table, in order."""
    saves: list[list]
    undos: list[list]


class UndoJournal:
    """The engine's journal: saves of records, undo steps of containers, marks and the head."""

    def __init__(self, log: EventLog, rng: TrackedRandom) -> None:
        self.log = log
        self.rng = rng
        self.generation = 0
        self.saves: list[list[tuple[Any, tuple]]] = [[]]
        """Per generation: each record's fields before its first change in that generation."""
        self.undos: list[list] = [[]]
        """Per generation: undo steps for the containers, in the order the changes were made."""
        self.head: Head | None = None
        self.check = False
        """Debug mode, for tests: at every mark, rollback and return to the head, check that no
        record changed in the generation that ends without being saved by ``touch`` first, and
        raise :class:`UnjournaledWrite` naming the record and the field if one did. It compares
        every record with its values at the generation's start, so it also sees changes made in
        place (a job's ``open``, an attempt's outcome). Off (the default) it costs one test per
        mark."""
        self._shadow: dict[int, tuple[Any, tuple]] | None = None
        self._parts: list[JournaledPart] = []
        self._tables: list[tuple[str, dict]] = []
        self._containers: list[Container] = []

    def register(self, part: JournaledPart) -> None:
        self._parts.append(part)
        self._tables.extend(part.tables())
        self._containers.extend(part.containers())

    def touch(self, record: Any) -> None:
        """Save ``record`` before its first change in the current generation."""
        if record.gen != self.generation:
            self.saves[self.generation].append((record, record.save()))
            record.gen = self.generation

    # --------------------------------------------------------------- marks

    def mark(self, previous: Mark | None = None) -> Mark:
        """Open a new generation; return a restore point for the state as it is now.

        ``previous``, the mark that opened the current generation (the last one taken, or the
        one rolled back to), lets marks share the random generator's state while nothing draws
        from it (the state is the bulk of a mark's size). Any other mark is not shared from: a
        caller that dropped the last mark (the history does, when a command changes the tick it
        was taken at) may pass the one before it, whose state predates draws since then."""
        if self.check:
            self._check_writes()
        opened = self.generation
        self.saves.append([])
        self.undos.append([])
        self.generation = len(self.saves) - 1
        self._journal_into(self.undos[-1])
        if previous is not None and previous.generation == opened and not self.rng.drawn:
            return self._current_mark(previous.rng_state)
        self.rng.drawn = False
        return self._current_mark(self.rng.getstate())

    def rollback(self, mark: Mark) -> None:
        """Return to ``mark``'s state exactly; marks made after it become invalid (until
        ``restore_head``)."""
        first = mark.generation
        if first >= len(self.saves):
            raise ValueError(f"generation {first} was rolled back past already")
        if self.check:
            self._check_writes()
        kept_down_from = self._keep_head_down_to(mark)
        self._journal_into(None)
        for generation in range(len(self.undos) - 1, first - 1, -1):
            for step in reversed(self.undos[generation]):
                # Steps are (function, argument...); unpacked by length to spare a slice each.
                if len(step) == 2:
                    step[0](step[1])
                elif len(step) == 3:
                    step[0](step[1], step[2])
                else:
                    step[0](*step[1:])
        restored: set[int] = set()
        for generation in range(first, len(self.saves)):
            for record, saved in self.saves[generation]:
                if record.born < first and id(record) not in restored:
                    restored.add(id(record))
                    record.restore(saved)
                    record.gen = UNSAVED
        del self.saves[first + 1 :]
        del self.undos[first + 1 :]
        self.saves[first] = []
        self.undos[first] = []
        self.generation = first
        self._journal_into(self.undos[first])
        self._restore_scalars(mark)
        self.log.truncate(mark.log_length)
        keep_below = kept_down_from.table_lengths if kept_down_from else mark.table_lengths
        assert self.head is not None
        for (_, table), length, below, tail in zip(
            self._tables, mark.table_lengths, keep_below, self.head.table_tails, strict=True
        ):
            kept = []
            while len(table) > length:
                item = table.popitem()
                if len(table) < below:
                    kept.append(item)
            tail[:0] = kept[::-1]
        if self.check:
            self._check_writes(verify=False)

    def restore_head(self) -> Mark:
        """Return to the furthest state reached; returns its restore point."""
        head = self.head
        if head is None:
            raise ValueError("there is no head to return to: the engine is at its furthest state")
        if self.check:
            self._check_writes()
            self._shadow = None
        self._journal_into(None)
        for container, saved in zip(self._containers, head.containers, strict=True):
            container.restore(saved)
        for record, saved in head.records.values():
            record.restore(saved)
            record.gen = UNSAVED
        self.log.truncate(head.lowest.log_length)
        self.log.extend_records(head.log_tail)
        for (_, table), length, tail in zip(
            self._tables, head.lowest.table_lengths, head.table_tails, strict=True
        ):
            while len(table) > length:
                table.popitem()
            table.update(tail)
        self.saves = list(head.saves)
        self.undos = list(head.undos)
        self._restore_scalars(head.mark)
        return self.mark()

    def drop_head(self) -> None:
        """Forget the head: a command has started a different future."""
        self.head = None

    def head_log_span(self) -> tuple[int, int] | None:
        """Event-log lengths at the lowest point rolled back to and at the head: what a return
        to the head costs, in events."""
        head = self.head
        return None if head is None else (head.lowest.log_length, head.mark.log_length)

    # ------------------------------------------------------------ internals

    def _current_mark(self, rng_state: Any) -> Mark:
        return Mark(
            generation=self.generation,
            scalars=tuple(part.scalars() for part in self._parts),
            rng_state=rng_state,
            log_length=len(self.log),
            table_lengths=tuple(len(table) for _, table in self._tables),
        )

    def _restore_scalars(self, mark: Mark) -> None:
        for part, scalars in zip(self._parts, mark.scalars, strict=True):
            part.restore_scalars(scalars)
        self.rng.setstate(mark.rng_state)

    def _keep_head_down_to(self, target: Mark) -> Mark | None:
        """Before rolling back to ``target``, keep what the head needs of what will be undone:
        the records' head values and the events. Returns the previous lowest point when the head
        now reaches further down, so that the rollback keeps the records it truncates from there
        (records truncated beyond it were made by a replay: the head has the originals)."""
        head = self.head
        if head is None:
            head = self.head = Head(
                mark=self._current_mark(self.rng.getstate()),
                lowest=replace(self._current_mark(None), generation=len(self.saves)),
                containers=tuple(container.snapshot() for container in self._containers),
                records={},
                log_tail=EventRecords(bytearray(), []),
                table_tails=tuple([] for _ in self._tables),
                saves=list(self.saves),
                undos=list(self.undos),
            )
        lowest = head.lowest
        if target.generation >= lowest.generation:
            return None
        for generation in range(target.generation, lowest.generation):
            for record, _ in self.saves[generation]:
                if id(record) not in head.records:
                    head.records[id(record)] = (record, record.save())
        head.log_tail.prepend(self.log.records(target.log_length, lowest.log_length))
        head.lowest = target
        return lowest

    def _check_writes(self, verify: bool = True) -> None:
        """Debug mode: check the generation that ends (see ``check``), then remember every
        record's values for the next one. ``verify=False`` only remembers (after a rollback,
        whose restores are journaled writes)."""
        generation = self.generation
        shadow = self._shadow if verify else None
        for kind, table in self._tables if shadow is not None else ():
            for key, record in table.items():
                before = shadow.get(id(record))
                if record.gen == generation or before is None or before[0] is not record:
                    continue
                if values(record) != before[1]:
                    name, old, new = changed_field(record, before[1])  # type: ignore[misc]
                    raise UnjournaledWrite(
                        f"{kind} {key!r}: field {name!r} changed from {old!r} to {new!r} "
                        f"in generation {generation}, which had not saved it (no touch)"
                    )
        self._shadow = {
            id(record): (record, values(record))
            for _, table in self._tables
            for record in table.values()
        }

    def _journal_into(self, undo: list | None) -> None:
        """Send every container's undo steps to ``undo`` (None: keep none, e.g. while undoing)."""
        for container in self._containers:
            container.journal = undo
