"""Restore points for time travel: undo records kept per generation.

Why this design (measured on seed 000's maximum workload, 240,000 occurrences): pickling or deep
copying the engine takes seconds and doubles its memory, so snapshots cannot make a step back
instant. Instead ``mark()`` opens a *generation* and returns a small :class:`Mark` (counters, the
random generator's state, the lengths of the append-only parts). During a generation the engine
keeps two kinds of undo information:

- records (jobs, occurrences, workers, notifications) are saved copy-on-write: the first time one
  changes in a generation, ``_touch`` saves its fields; rolling back restores each record that
  existed at the mark from its earliest save at or after the mark;
- containers (the ready queue, the worker pool, the due and timer heaps, the by-state index) log
  an undo step for every change; rolling back runs them newest first.

The record dicts and the event log only grow, so rolling back truncates them. The cost of a
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
from typing import TYPE_CHECKING, Any

from engine.records import named_values

if TYPE_CHECKING:
    from engine.core import Engine

UNSAVED = -1
"""The ``gen`` of a record just restored: no generation has saved it, so its next change saves."""


class UnjournaledWrite(AssertionError):
    """A record changed in a generation that had not saved it: a rollback would miss the change.
    Only raised in the debug mode (``Engine.check_journal``)."""


@dataclass(frozen=True, slots=True)
class Mark:
    """A restore point: what ``Engine.rollback`` needs besides the undo records."""

    generation: int
    now: int
    created_through: int
    dispatches: int
    undispatched_submissions: bool
    counters: tuple[int, int]
    rng_state: Any
    log_length: int
    dict_lengths: tuple[int, int, int, int]


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
    log_tail: list
    """Events after ``lowest``."""
    table_tails: tuple[list, list, list, list]
    """Jobs, workers, occurrences and notifications created after ``lowest``, in order."""
    saves: list[list]
    undos: list[list]


class JournalMixin:
    check_journal: bool = False
    """Debug mode, for tests: at every mark, rollback and return to the head, check that no record
    changed in the generation that ends without being saved by ``_touch`` first, and raise
    :class:`UnjournaledWrite` naming the record and the field if one did. It compares every
    record with its values at the generation's start, so it also sees changes made in place (a
    job's ``open``, an attempt's outcome). Off (the default) it costs one test per mark."""
    _shadow: dict[int, tuple[Any, tuple]] | None = None
    """In debug mode: by record id, each record and its values when the generation started."""

    def _touch(self: Engine, record: Any) -> None:
        """Save ``record`` before its first change in the current generation."""
        if record.gen != self._generation:
            self._saves[self._generation].append((record, record.save()))
            record.gen = self._generation

    def mark(self: Engine, previous: Mark | None = None) -> Mark:
        """Open a new generation; return a restore point for the state as it is now.

        ``previous``, the last mark taken, lets marks share the random generator's state while
        nothing draws from it (the state is the bulk of a mark's size)."""
        if self.check_journal:
            self._check_writes()
        self._saves.append([])
        self._undos.append([])
        self._generation = len(self._saves) - 1
        self._journal_into(self._undos[-1])
        if previous is not None and not self.rng.drawn:
            return self._current_mark(previous.rng_state)
        self.rng.drawn = False
        return self._current_mark(self.rng.getstate())

    def _current_mark(self: Engine, rng_state: Any) -> Mark:
        return Mark(
            generation=self._generation,
            now=self.now,
            created_through=self.created_through,
            dispatches=self.dispatches,
            undispatched_submissions=self._undispatched_submissions,
            counters=(self._next_seq, self._next_submission),
            rng_state=rng_state,
            log_length=len(self.log),
            dict_lengths=(
                len(self.jobs),
                len(self.workers),
                len(self.occurrences),
                len(self.outbox),
            ),
        )

    def rollback(self: Engine, mark: Mark) -> None:
        """Return to ``mark``'s state exactly; marks made after it become invalid (until
        ``restore_head``)."""
        first = mark.generation
        if first >= len(self._saves):
            raise ValueError(f"generation {first} was rolled back past already")
        if self.check_journal:
            self._check_writes()
        kept_down_from = self._keep_head_down_to(mark)
        self._journal_into(None)
        for generation in range(len(self._undos) - 1, first - 1, -1):
            for step in reversed(self._undos[generation]):
                # Steps are (function, argument...); unpacked by length to spare a slice each.
                if len(step) == 2:
                    step[0](step[1])
                elif len(step) == 3:
                    step[0](step[1], step[2])
                else:
                    step[0](*step[1:])
        restored: set[int] = set()
        for generation in range(first, len(self._saves)):
            for record, saved in self._saves[generation]:
                if record.born < first and id(record) not in restored:
                    restored.add(id(record))
                    record.restore(saved)
                    record.gen = UNSAVED
        del self._saves[first + 1 :]
        del self._undos[first + 1 :]
        self._saves[first] = []
        self._undos[first] = []
        self._generation = first
        self._journal_into(self._undos[first])
        self._restore_scalars(mark)
        self.log.truncate(mark.log_length)
        tables = (self.jobs, self.workers, self.occurrences, self.outbox)
        keep_below = kept_down_from.dict_lengths if kept_down_from else mark.dict_lengths
        for table, length, below, tail in zip(
            tables, mark.dict_lengths, keep_below, self._head.table_tails, strict=True
        ):
            kept = []
            while len(table) > length:
                item = table.popitem()
                if len(table) < below:
                    kept.append(item)
            tail[:0] = kept[::-1]
        if self.check_journal:
            self._check_writes(verify=False)

    def restore_head(self: Engine) -> Mark:
        """Return to the furthest state reached; returns its restore point."""
        head = self._head
        if head is None:
            raise ValueError("there is no head to return to: the engine is at its furthest state")
        if self.check_journal:
            self._check_writes()
            self._shadow = None
        self._journal_into(None)
        ready, idle, due, timers, by_state = head.containers
        self._ready.restore(ready)
        self._idle.restore(idle)
        self._due.restore(due)
        self._timers.restore(timers)
        self.by_state = {state: dict.fromkeys(keys) for state, keys in by_state}
        for record, saved in head.records.values():
            record.restore(saved)
            record.gen = UNSAVED
        self.log.truncate(head.lowest.log_length)
        self.log.extend(head.log_tail)
        tables = (self.jobs, self.workers, self.occurrences, self.outbox)
        for table, length, tail in zip(
            tables, head.lowest.dict_lengths, head.table_tails, strict=True
        ):
            while len(table) > length:
                table.popitem()
            table.update(tail)
        mark = head.mark
        self._saves = list(head.saves)
        self._undos = list(head.undos)
        self._restore_scalars(mark)
        return self.mark()

    def _restore_scalars(self: Engine, mark: Mark) -> None:
        """The clock, counters and random generator as they were at ``mark``."""
        self.now = mark.now
        self.created_through = mark.created_through
        self.dispatches = mark.dispatches
        self._undispatched_submissions = mark.undispatched_submissions
        self._next_seq, self._next_submission = mark.counters
        self.rng.setstate(mark.rng_state)

    def drop_head(self: Engine) -> None:
        """Forget the head: a command has started a different future."""
        self._head = None

    @property
    def has_head(self: Engine) -> bool:
        return self._head is not None

    def head_log_span(self: Engine) -> tuple[int, int] | None:
        """Event-log lengths at the lowest point rolled back to and at the head: what a return
        to the head costs, in events."""
        head = self._head
        return None if head is None else (head.lowest.log_length, head.mark.log_length)

    def _keep_head_down_to(self: Engine, target: Mark) -> Mark | None:
        """Before rolling back to ``target``, keep what the head needs of what will be undone:
        the records' head values and the events. Returns the previous lowest point when the head
        now reaches further down, so that the rollback keeps the records it truncates from there
        (records truncated beyond it were made by a replay: the head has the originals)."""
        head = self._head
        if head is None:
            head = self._head = Head(
                mark=self._current_mark(self.rng.getstate()),
                lowest=replace(self._current_mark(None), generation=len(self._saves)),
                containers=(
                    self._ready.snapshot(),
                    self._idle.snapshot(),
                    self._due.snapshot(),
                    self._timers.snapshot(),
                    tuple((state, tuple(keys)) for state, keys in self.by_state.items()),
                ),
                records={},
                log_tail=[],
                table_tails=([], [], [], []),
                saves=list(self._saves),
                undos=list(self._undos),
            )
        lowest = head.lowest
        if target.generation >= lowest.generation:
            return None
        for generation in range(target.generation, lowest.generation):
            for record, _ in self._saves[generation]:
                if id(record) not in head.records:
                    head.records[id(record)] = (record, record.save())
        head.log_tail[:0] = self.log[target.log_length : lowest.log_length]
        head.lowest = target
        return lowest

    def _check_writes(self: Engine, verify: bool = True) -> None:
        """Debug mode: check the generation that ends (see ``check_journal``), then remember
        every record's values for the next one. ``verify=False`` only remembers (after a
        rollback, whose restores are journaled writes)."""
        generation = self._generation
        tables = {
            "job": self.jobs,
            "worker": self.workers,
            "occurrence": self.occurrences,
            "notification": self.outbox,
        }
        shadow = self._shadow if verify else None
        for kind, table in tables.items() if shadow is not None else ():
            for key, record in table.items():
                before = shadow.get(id(record))
                if record.gen == generation or before is None or before[0] is not record:
                    continue
                for (name, old), (_, new) in zip(before[1], named_values(record), strict=True):
                    if old != new:
                        raise UnjournaledWrite(
                            f"{kind} {key!r}: field {name!r} changed from {old!r} to {new!r} "
                            f"in generation {generation}, which had not saved it (no _touch)"
                        )
        self._shadow = {
            id(record): (record, named_values(record))
            for table in tables.values()
            for record in table.values()
        }

    def _journal_into(self: Engine, undo: list | None) -> None:
        """Send every container's undo steps to ``undo`` (None: keep none, e.g. while undoing)."""
        self._undo = undo
        self._ready.journal = undo
        self._idle.journal = undo
        self._due.journal = undo
        self._timers.journal = undo
