"""Restore points for time travel: copy-on-write undo records, kept per generation.

Why this design (measured on seed 000's maximum workload, 240,000 occurrences): pickling or deep
copying the engine takes seconds and doubles its memory, so full snapshots cannot make a step back
instant. Instead, ``mark()`` opens a *generation*; the first time a record (job, occurrence, worker,
notification) is changed in a generation, the engine saves its fields (``_touch``). Rolling back to
a mark restores each record that existed then from its earliest save at or after that generation
(records born later are simply dropped), truncates the
append-only parts (event log, the record dicts, which only grow, and the final-state indexes), and
copies back the small containers saved with the mark (queues, heaps, the indexes of non-final
states, the random generator's state). Cost: proportional to what changed since the mark, not to
the size of the state. Without marks (the facades), ``_touch`` is one integer comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.model import OccurrenceState

if TYPE_CHECKING:
    from engine.core import Engine

_FINAL = tuple(state for state in OccurrenceState if state.is_final)
_OPEN = tuple(state for state in OccurrenceState if not state.is_final)


@dataclass(frozen=True, slots=True)
class Mark:
    """A restore point: the engine's state at the moment ``Engine.mark()`` was called."""

    generation: int
    now: int
    created_through: int
    dispatches: int
    counters: tuple[int, int, int]
    rng_state: Any
    log_length: int
    dict_lengths: tuple[int, int, int, int]
    final_lengths: tuple[int, ...]
    open_states: tuple[dict, ...]
    due: list
    timers: list
    fronts: dict
    ready: Any
    idle: Any


class JournalMixin:
    def _touch(self: Engine, record: Any) -> None:
        """Save ``record`` before its first change in the current generation."""
        if record.gen != self._generation:
            self._journal[self._generation].append((record, record.save()))
            record.gen = self._generation

    def mark(self: Engine) -> Mark:
        """Open a new generation and return a restore point for the state as it is now."""
        self._journal.append([])
        self._generation = len(self._journal) - 1
        return Mark(
            generation=self._generation,
            now=self.now,
            created_through=self.created_through,
            dispatches=self.dispatches,
            counters=(self._next_rank, self._next_seq, self._next_submission),
            rng_state=self.rng.getstate(),
            log_length=len(self.log),
            dict_lengths=(
                len(self.jobs),
                len(self.workers),
                len(self.occurrences),
                len(self.outbox),
            ),
            final_lengths=tuple(len(self.by_state[state]) for state in _FINAL),
            open_states=tuple(dict(self.by_state[state]) for state in _OPEN),
            due=list(self._due),
            timers=list(self._timers),
            fronts=dict(self._fronts),
            ready=self._ready.snapshot(),
            idle=self._idle.snapshot(),
        )

    def rollback(self: Engine, mark: Mark) -> None:
        """Return to ``mark``'s state exactly; marks made after it become invalid."""
        journal = self._journal
        if mark.generation >= len(journal):
            raise ValueError(f"generation {mark.generation} was rolled back past already")
        restored: set[int] = set()
        for generation in range(mark.generation, len(journal)):
            for record, saved in journal[generation]:
                if record.born < mark.generation and id(record) not in restored:
                    restored.add(id(record))
                    record.restore(saved)
        del journal[mark.generation + 1 :]
        journal[mark.generation] = []
        self._generation = mark.generation
        self.now = mark.now
        self.created_through = mark.created_through
        self.dispatches = mark.dispatches
        self._next_rank, self._next_seq, self._next_submission = mark.counters
        self.rng.setstate(mark.rng_state)
        self.log.truncate(mark.log_length)
        for records, length in zip(
            (self.jobs, self.workers, self.occurrences, self.outbox), mark.dict_lengths, strict=True
        ):
            while len(records) > length:
                records.popitem()
        for state, length in zip(_FINAL, mark.final_lengths, strict=True):
            keys = self.by_state[state]
            while len(keys) > length:
                keys.popitem()
        for state, keys in zip(_OPEN, mark.open_states, strict=True):
            self.by_state[state] = dict(keys)
        self._due = list(mark.due)
        self._timers = list(mark.timers)
        self._fronts = dict(mark.fronts)
        self._ready.restore(mark.ready)
        self._idle.restore(mark.idle)
