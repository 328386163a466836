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
marks (the facades) ``touch`` is a built-in that does nothing, and containers test one attribute
per change.

Far jumps. Undo information is kept for a *window* of generations only (the caller forgets what
is older, see ``forget_window_before_span``); beyond it the journal jumps between *keyframes*
(:mod:`engine.rewind.keyframes`), at the cost of the distinct records changed in between. Leaving
the furthest state reached (the *head*) makes it a keyframe, so ``restore_head()`` is a jump. A
command while the engine is behind its head starts a different future: ``drop_head()`` forgets
the keyframes ahead.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import islice, pairwise
from typing import Any, Protocol

from engine.model.events import EventLog, EventRecords
from engine.model.rng import TrackedRandom
from engine.rewind.keyframes import Keyframe, Span, Timeline, close_span, end_values
from engine.rewind.write_check import WriteChecker

UNSAVED = -1
"""The ``gen`` of a record just restored: no generation has saved it, so its next change saves."""


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

    def live_tables(self) -> tuple[tuple[str, dict], ...]:
        """Record tables whose records come and go (keyframes only: the undo journal never
        sees them, as an engine with them has no restore points)."""
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


@dataclass(frozen=True, slots=True)
class Mark:
    """A restore point: what a rollback needs besides the undo records."""

    generation: int
    scalars: tuple[tuple, ...]
    """Each part's ``scalars()``, in the order the parts registered."""
    rng_state: Any
    log_length: int
    table_lengths: tuple[int, ...]


class UndoJournal:
    """The engine's journal: saves of records and undo steps of containers within a window of
    generations, and the keyframes (:mod:`engine.rewind.keyframes`) to jump between further
    apart."""

    def __init__(self, log: EventLog, rng: TrackedRandom) -> None:
        self.log, self.rng = log, rng
        self.generation = 0
        """The current generation's id. Ids are never reused, so a record's ``gen`` from another
        window can never pass for the current generation."""
        self._next_id = 1
        self.generations: list[int] = [0]
        """The window's generation ids, oldest first: marks of these can be rolled back to."""
        self.saves: list[list[tuple[Any, tuple]]] = [[]]
        """Per generation: each record's fields before its first change in that generation."""
        self.undos: list[list] = [[]]
        """Per generation: undo steps for the containers, in the order the changes were made."""
        self.timeline = Timeline()
        self._window: list[tuple[int, int]] = []
        """The keyframes taken or reached in the window, as (index, generation id), oldest first:
        the last is the start of the span the engine is in."""
        self._born_values: dict[int, dict[int, tuple[Any, tuple]]] = {}
        """Spans closed in this window, by index: their born records' values at the span's end
        (kept when the furthest state is left: ``leave_frontier``)."""
        self.check = False
        """Debug mode, for tests (:mod:`engine.rewind.write_check`): at every mark, rollback and
        jump, raise ``UnjournaledWrite`` naming the record and the field if a record changed in the
        generation that ends without ``touch`` first. It compares every record with its values
        at the generation's start, so it sees changes in place too (a job's ``open``, an
        attempt's outcome). Off (the default) it costs one test per mark."""
        self._checker = WriteChecker()
        self.touch: Callable[[Any], object] = id
        """Called with a record before each change to it (a dozen times per run). Until a first
        generation opens there is nothing to save, so it is the built-in ``id``, the cheapest
        call that takes a record and changes nothing (a facade never opens one); ``mark()`` makes
        it :meth:`_save_first`."""
        self._parts: list[JournaledPart] = []
        self._tables: list[tuple[str, dict]] = []
        self._containers: list[Container] = []

    def register(self, part: JournaledPart) -> None:
        self._parts.append(part)
        self._tables.extend(part.tables())
        self._containers.extend(part.containers())

    def _save_first(self, record: Any) -> None:
        """``touch`` once a generation is open: save ``record`` before its first change in it."""
        if record.gen != self.generation:
            self.saves[-1].append((record, record.save()))
            record.gen = self.generation

    # --------------------------------------------------------------- marks

    def mark(self, previous: Mark | None = None) -> Mark:
        """Open a new generation; return a restore point for the state as it is now (the first
        mark is also the first keyframe).

        ``previous``, the mark that opened the current generation (the last one taken, or the
        one rolled back to), lets marks share the random generator's state while nothing draws
        from it (the state is the bulk of a mark's size). Any other mark is not shared from: a
        caller that dropped the last mark (the history does, when a command changes the tick it
        was taken at) may pass the one before it, whose state predates draws since then."""
        if not self.timeline.keyframes:
            return self.keyframe(None, previous).mark
        return self._open(previous)

    def _open(self, previous: Mark | None) -> Mark:
        if self.check:
            self._check_writes()
        self.touch = self._save_first
        opened = self.generation
        self.generation = self._next_id
        self._next_id += 1
        self.generations.append(self.generation)
        self.saves.append([])
        self.undos.append([])
        self._journal_into(self.undos[-1])
        if previous is not None and previous.generation == opened and not self.rng.drawn:
            return self._current_mark(previous.rng_state)
        self.rng.drawn = False
        return self._current_mark(self.rng.getstate())

    def rollback(self, mark: Mark) -> None:
        """Return to ``mark``'s state exactly; marks made after it become invalid. Leaving the
        furthest state makes it a keyframe first (see ``restore_head``)."""
        first = bisect.bisect_left(self.generations, mark.generation)
        if first == len(self.generations) or self.generations[first] != mark.generation:
            raise ValueError(f"generation {mark.generation} is not in the journal's window")
        if self.check:
            self._check_writes()
        self.leave_frontier(None)
        self._journal_into(None)
        for undos in reversed(self.undos[first:]):
            for step in reversed(undos):
                # Steps are (function, argument...); unpacked by length to spare a slice each.
                if len(step) == 2:
                    step[0](step[1])
                elif len(step) == 3:
                    step[0](step[1], step[2])
                else:
                    step[0](*step[1:])
        for saves in reversed(self.saves[first:]):
            for record, saved in reversed(saves):
                if record.born < mark.generation:
                    record.restore(saved)
                    record.gen = UNSAVED
        del self.generations[first + 1 :], self.saves[first + 1 :], self.undos[first + 1 :]
        self.saves[first], self.undos[first] = [], []
        self.generation = mark.generation
        self._journal_into(self.undos[first])
        while self._window[-1][1] > mark.generation:
            self._window.pop()
        self._restore_scalars(mark)
        self.log.truncate(mark.log_length)
        self._truncate_tables(mark.table_lengths)
        if self.check:
            self._check_writes(verify=False)

    # ----------------------------------------------------------- keyframes

    @property
    def keyframes(self) -> list[Keyframe]:
        return self.timeline.keyframes

    @property
    def span(self) -> int:
        """The index of the keyframe the engine's state follows (the start of its span)."""
        return self._window[-1][0]

    @property
    def head(self) -> Keyframe | None:
        """The furthest state reached, while the engine is at an earlier one."""
        keyframes = self.timeline.keyframes
        return keyframes[-1] if self._window and self.span < len(keyframes) - 1 else None

    def keyframe(self, label: Any, previous: Mark | None = None) -> Keyframe:
        """Make the state as it is now a keyframe (only at the furthest state reached); its mark
        opens a new generation, as ``mark(previous)`` does."""
        if self.head is not None:
            raise ValueError("a keyframe is only taken at the furthest state reached")
        timeline = self.timeline
        span, events = None, []
        if timeline.keyframes:
            span, events = self._close_span()
        mark = self._open(previous)
        keyframe = Keyframe(label, mark, tuple(c.snapshot() for c in self._containers))
        timeline.add(keyframe, span, events)
        self._window.append((len(timeline.keyframes) - 1, mark.generation))
        return keyframe

    def leave_frontier(self, label: Any) -> None:
        """Before leaving the furthest state reached: make it a keyframe unless it is one, and
        keep what the records made in the window's spans were at their span's end (a rollback
        takes them out of their tables as they are, maybe changed since)."""
        if self.head is not None:
            return
        if self._changed_since_span_start():
            self.keyframe(label)
        for (span, _), (_, end) in pairwise(self._window):
            if span not in self._born_values:
                since = self.saves[bisect.bisect_left(self.generations, end) :]
                self._born_values[span] = end_values(self.timeline.levels[0][span], since)

    def forget_window_before_span(self) -> int:
        """Forget the undo information older than the previous keyframe taken in the window
        (its span stays reachable by marks, for steps back); returns the oldest generation
        whose marks remain valid."""
        if len(self._window) > 2:
            del self._window[:-2]
        index, oldest = self._window[0]
        first = bisect.bisect_left(self.generations, oldest)
        del self.generations[:first], self.saves[:first], self.undos[:first]
        for span in [span for span in self._born_values if span < index]:
            del self._born_values[span]
        return oldest

    def jump(self, index: int) -> Mark:
        """Go to keyframe ``index`` from any state; returns a mark for it (earlier marks become
        invalid: the window starts again there). Costs the records changed between."""
        self.leave_frontier(None)
        if self.check:
            self._check_writes()
        timeline = self.timeline
        here, start = self._window[-1]
        target = timeline.keyframes[index]
        self._restore_span_start(start)
        for span in [span for span in self._born_values if span >= here]:
            timeline.unborn.setdefault(span, {}).update(self._born_values[span])
        if index > here:
            values, spans = timeline.values_forward(here, index)
            self._truncate_tables(timeline.keyframes[here].mark.table_lengths)
            for span in spans:
                for (_, table), items in zip(self._tables, span.born, strict=True):
                    table.update(items)
        else:
            values = timeline.values_back(index, here)
            self._truncate_tables(target.mark.table_lengths)
        for record, saved in values:  # their ``gen`` cannot be the new generation's id
            record.restore(saved)
        for container, saved in zip(self._containers, target.containers, strict=True):
            container.restore(saved)
        self.log.truncate(min(timeline.keyframes[here].mark.log_length, target.mark.log_length))
        self.log.extend_records(timeline.events.slice(len(self.log), target.mark.log_length))
        self._restore_scalars(target.mark)
        self.generation = self._next_id
        self._next_id += 1
        self.generations, self.saves, self.undos = [self.generation], [[]], [[]]
        self._journal_into(self.undos[0])
        self._window = [(index, self.generation)]
        self._born_values = {}
        self.rng.drawn = False
        if self.check:
            self._check_writes(verify=False)
        return replace(target.mark, generation=self.generation)

    def restore_head(self) -> Mark:
        """Return to the furthest state reached; returns its restore point."""
        if self.head is None:
            raise ValueError("there is no head to return to: the engine is at its furthest state")
        return self.jump(len(self.keyframes) - 1)

    def drop_head(self) -> None:
        """Forget the keyframes after the engine's span: a command has started a different
        future. The span is open again."""
        span = self.span
        self.timeline.truncate(span + 1)
        for later in [later for later in self._born_values if later >= span]:
            del self._born_values[later]

    def head_log_span(self) -> tuple[int, int] | None:
        """Event-log lengths now and at the head: how far a return to the head goes, in events."""
        return None if self.head is None else (len(self.log), self.head.mark.log_length)

    # ------------------------------------------------------------ internals

    def _close_span(self) -> tuple[Span, EventRecords]:
        """The span from the window's last keyframe to the state as it is now."""
        index, start = self._window[-1]
        saves = self.saves[bisect.bisect_left(self.generations, start) :]
        opened = self.timeline.keyframes[index].mark
        events = self.log.records(opened.log_length, len(self.log))
        tables = [table for _, table in self._tables]
        span = close_span(saves, start, tables, opened.table_lengths, self.timeline.generations)
        return span, events

    def _restore_span_start(self, start: int) -> None:
        """Put the records that existed at the window keyframe ``start`` back to their values
        there (a jump's first step; the containers come from the target's copies)."""
        first = bisect.bisect_left(self.generations, start)
        for saves in reversed(self.saves[first:]):
            for record, saved in reversed(saves):
                if record.born < start:
                    record.restore(saved)

    def _truncate_tables(self, lengths: tuple[int, ...]) -> None:
        for (_, table), length in zip(self._tables, lengths, strict=True):
            if len(table) - length > length:
                kept = list(islice(table.items(), length))
                table.clear()
                table.update(kept)
            else:
                for _ in range(len(table) - length):
                    table.popitem()

    def _changed_since_span_start(self) -> bool:
        """Whether the state may differ from that of the keyframe starting its span."""
        index, start = self._window[-1]
        mark = replace(self.keyframes[index].mark, generation=start)
        return (
            self.generation != start
            or bool(self.saves[-1] or self.undos[-1])
            or self.rng.drawn
            or self._current_mark(None) != replace(mark, rng_state=None)
        )

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

    def _check_writes(self, verify: bool = True) -> None:
        """Debug mode: check the generation that ends (see ``check``)."""
        self._checker.check(self._tables, self.generation, verify)

    def _journal_into(self, undo: list | None) -> None:
        """Send every container's undo steps to ``undo`` (None: keep none, e.g. while undoing)."""
        for container in self._containers:
            container.journal = undo
