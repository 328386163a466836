"""The occurrence store: the runs the engine has materialised, and an index of them by state.

An occurrence gets a record only when something happens to it (a worker takes it, it is cancelled
one by one, it blocks a dependent); the runs a job's cursor has not reached are implicit and live
in :mod:`engine.parts.cursors`. Every state change goes through :meth:`OccurrenceStore.set_state`,
so the index and the job's list of open runs can never disagree with the records.

Given the journal and the policy's execution limit (the timeout of a job that sets none).
"""

from __future__ import annotations

from engine.model.records import FINAL_STATES, Job, Occurrence, OccurrenceState
from engine.rewind.journal import JournaledPart, UndoJournal

S = OccurrenceState
Key = tuple[str, int]


class StateIndex:
    """Occurrence keys by state, each state's keys in the order they entered it; undoable."""

    __slots__ = ("journal", "keys")

    def __init__(self) -> None:
        self.keys: dict[OccurrenceState, dict[Key, None]] = {state: {} for state in S}
        self.journal: list | None = None

    def add(self, key: Key, state: OccurrenceState) -> None:
        self.keys[state][key] = None
        if self.journal is not None:
            self.journal.append((self._unindex, key, state, None))

    def move(self, key: Key, old: OccurrenceState, new: OccurrenceState) -> None:
        del self.keys[old][key]
        self.keys[new][key] = None
        if self.journal is not None:
            self.journal.append((self._unindex, key, new, old))

    def _unindex(self, key: Key, state: OccurrenceState, back_to: OccurrenceState | None) -> None:
        """Undo a change: take ``key`` out of ``state`` (and back into ``back_to``)."""
        del self.keys[state][key]
        if back_to is not None:
            self.keys[back_to][key] = None

    def snapshot(self) -> tuple:
        return tuple((state, tuple(keys)) for state, keys in self.keys.items())

    def restore(self, saved: tuple) -> None:
        """In place: undo steps hold references to these dicts' owner."""
        for state, keys in saved:
            table = self.keys[state]
            table.clear()
            table.update(dict.fromkeys(keys))


class OccurrenceStore(JournaledPart):
    """Materialised occurrences by ``(job id, scheduled tick)``, and their state index."""

    def __init__(self, journal: UndoJournal, execution_limit: int | None = None) -> None:
        self._journal = journal
        self._execution_limit = execution_limit
        """The policy's timeout for jobs that set none."""
        self.records: dict[Key, Occurrence] = {}
        self.index = StateIndex()

    def tables(self) -> tuple[tuple[str, dict], ...]:
        return (("occurrence", self.records),)

    def containers(self) -> tuple[StateIndex, ...]:
        return (self.index,)

    def materialise(self, job: Job, scheduled: int, state: OccurrenceState) -> Occurrence:
        """Give the run at ``scheduled`` a record, with the definition it was created under."""
        journal = self._journal
        spec = job.spec_for(scheduled) if job.backlog else job.spec
        key = (spec.job_id, scheduled)
        since = job.runnable_since or 0
        occurrence = Occurrence(  # positional: a keyword call costs a third more
            key,
            state,
            spec.max_attempts,
            spec.priority,
            scheduled if scheduled >= since else since,
            spec.duration,
            spec.timeout if spec.timeout is not None else self._execution_limit,
        )
        generation = journal.generation
        if generation:
            occurrence.gen = occurrence.born = generation
        self.records[key] = occurrence
        self.index.add(key, state)
        if state not in FINAL_STATES:
            journal.touch(job)
            job.open[scheduled] = None
        return occurrence

    def set_state(self, occurrence: Occurrence, job: Job, state: OccurrenceState) -> None:
        """Move ``occurrence`` (of ``job``) to ``state``; a final state closes it on its job."""
        journal = self._journal
        journal.touch(occurrence)
        old = occurrence.state
        occurrence.state = state
        self.index.move(occurrence.key, old, state)
        if state in FINAL_STATES:
            journal.touch(job)
            job.open.pop(occurrence.key[1], None)
