"""The occurrence store: the runs the engine has materialised, and an index of them by state.

An occurrence gets a record only when something happens to it (a worker takes it, it is cancelled
one by one, it blocks a dependent); the runs a job's cursor has not reached are implicit and live
in :mod:`engine.parts.cursors`. Every state change goes through :meth:`OccurrenceStore.set_state`,
so the index and the job's list of open runs can never disagree with the records.

Given the journal of changes and the policy's execution limit (the timeout of a job that sets none).
The index by state is for the readers that ask for the runs in a state (``Query.record_keys``,
``runs`` and ``count_runs`` by state); an engine whose front end asks none of them goes without
(``cronlapse script``: two dictionary writes a run fewer, and a dictionary as large as the
history).

An engine that archives moves each finished run out of the
live table into a :class:`~engine.parts.run_archive.RunArchive` once the command or tick that
finished it is over: nothing live refers to a final run after that, and what still names one (a
stale timer, a late report, a question) finds it through :attr:`OccurrenceStore.runs`, which
reads both.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterator, KeysView, Mapping

from engine.model.records import FINAL_STATES, NO_OPEN_RUNS, Job, Occurrence, OccurrenceState
from engine.parts.run_archive import RunArchive
from engine.rewind.journal import ChangeJournal, JournaledPart

S = OccurrenceState
Key = tuple[str, int]


class StateIndex:
    """Occurrence keys by state, each state's keys in the order they entered it."""

    __slots__ = ("keys",)

    def __init__(self) -> None:
        self.keys: dict[OccurrenceState, dict[Key, None]] = {state: {} for state in S}

    def snapshot(self) -> tuple:
        return tuple((state, tuple(keys)) for state, keys in self.keys.items())

    def restore(self, saved: tuple) -> None:
        """In place (the store holds this object)."""
        for state, keys in saved:
            table = self.keys[state]
            table.clear()
            table.update(dict.fromkeys(keys))


class OccurrenceStore(JournaledPart):
    """Materialised occurrences by ``(job id, scheduled tick)``, and their state index."""

    def __init__(
        self,
        journal: ChangeJournal,
        execution_limit: int | None = None,
        archive: bool = False,
        indexed: bool = True,
    ) -> None:
        self._journal = journal
        self._execution_limit = execution_limit
        """The policy's timeout for jobs that set none."""
        self.records: dict[Key, Occurrence] = {}
        """The live runs with a record (with an archive: finished ones only until archived)."""
        self.index: StateIndex | None = StateIndex() if indexed else None
        """The runs with a record by state (None: not indexed; see the module docstring)."""
        self.archive: RunArchive | None = RunArchive() if archive else None
        self.finished: list[Occurrence] = []
        """Runs finished since the last :meth:`archive_finished`, to archive (with an archive)."""
        self.followers: list[list[Occurrence]] = []
        """Lists each archived run's record is appended to, for readers that check every run
        once (:meth:`engine.query.api.Query.follow_archive`): they take it from there rather
        than read it back from the archive's columns."""
        self.runs: Mapping[Key, Occurrence] = (
            self.records if self.archive is None else _LiveAndArchived(self.records, self.archive)
        )
        """Every run with a record, live or archived: what readers read."""

    def tables(self) -> tuple[tuple[str, dict], ...]:
        """The runs, a table that only grows, unless they are archived (then the table holds
        live runs only, copied whole: :meth:`containers`)."""
        return (("occurrence", self.records),) if self.archive is None else ()

    def containers(self) -> tuple[StateIndex, ...]:
        return () if self.index is None else (self.index,)

    def live_tables(self) -> tuple[tuple[str, dict], ...]:
        """With an archive, the live runs: a table that shrinks as runs are archived, so a
        keyframe copies which runs it holds and keeps their values by change."""
        return () if self.archive is None else (("occurrence", self.records),)

    def scalars(self) -> tuple:
        """With an archive: its length and the runs still to archive (a keyframe keeps them)."""
        archive = self.archive
        return () if archive is None else (len(archive), tuple(self.finished))

    def reaches(self, values: tuple) -> bool:
        """The archive goes back by truncation, and forward only as far as the rows that
        rewinds hid (and nothing since made another future's) reach."""
        return not values or self.archive.reaches(values[0])  # type: ignore[union-attr]

    def restore_scalars(self, values: tuple) -> None:
        if values:
            length, finished = values
            archive = self.archive
            assert archive is not None
            if length < len(archive):
                archive.truncate(length)
            elif length > len(archive):
                archive.advance(length)
            self.finished[:] = finished

    def forget_ahead(self, values: tuple) -> None:
        """The run changes after the state ``scalars()`` returned as ``values`` (a command
        while rewound): the rows a rewind hid are no longer the run's."""
        if values:
            self.archive.drop_hidden()  # type: ignore[union-attr]

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
        self.records[key] = occurrence
        if self.index is not None:
            self.index.keys[state][key] = None  # the index's ``add``, written out: one a run
        if state not in FINAL_STATES:
            journal.touch(job)
            if job.open is NO_OPEN_RUNS:  # shared by the jobs without an open run
                job.open = {scheduled: None}
            else:
                job.open[scheduled] = None
        elif self.archive is not None:
            self.finished.append(occurrence)
        return occurrence

    def set_state(self, occurrence: Occurrence, job: Job, state: OccurrenceState) -> None:
        """Move ``occurrence`` (of ``job``) to ``state``; a final state closes it on its job.
        The caller has touched ``occurrence`` (each changes more of it): a touch fewer a run."""
        key, index = occurrence.key, self.index
        if index is not None:
            keys = index.keys
            del keys[occurrence.state][key]  # the index's ``move``, written out: two a run
            keys[state][key] = None
        occurrence.state = state
        if state in FINAL_STATES:
            self._journal.touch(job)
            opened = job.open
            opened.pop(key[1], None)
            if not opened:
                job.open = NO_OPEN_RUNS  # its dictionary freed
            if self.archive is not None:
                self.finished.append(occurrence)

    # ------------------------------------------------------------ the archive

    def archive_finished(self) -> None:
        """Move the runs finished since the last call from the live table to the archive."""
        archive, records, index = self.archive, self.records, self.index
        assert archive is not None
        archived = []
        for occurrence in self.finished:
            key = occurrence.key
            if records.get(key) is occurrence:
                del records[key]
                if index is not None:
                    del index.keys[occurrence.state][key]  # the index's ``remove``, written out
                archived.append(occurrence)
        self.finished.clear()
        archive.add_all(archived)
        for follower in self.followers:
            follower += archived

    def forget_archived(self, floors: dict[str, int]) -> int:
        """Drop each job's archived runs before its floor, all but the latest (see
        :meth:`RunArchive.forget`); how many were dropped."""
        if self.finished:
            self.archive_finished()
        assert self.archive is not None
        return self.archive.forget(floors)

    def is_forgotten(self, key: Key) -> bool:
        """Whether the run's tick lies behind its job's forgotten history, with no record kept:
        whether it had a run there, and how it ended, is no longer known."""
        archive = self.archive
        return archive is not None and key not in self.records and archive.is_forgotten(key)

    def archived_state(self, key: Key) -> OccurrenceState | None:
        """The final state of an archived run; None if it is live, implicit or no run."""
        archive = self.archive
        return None if archive is None else archive.state(key)

    def state_keys(self, state: OccurrenceState) -> Collection[Key]:
        """The keys of the runs with a record in ``state``, live (in the order they entered
        it) after archived (in the order they were archived)."""
        live = self.live_state_keys(state)
        archive = self.archive
        if archive is None or not archive.count(state):
            return live
        return _StateKeys(live, archive, state)

    def live_state_keys(self, state: OccurrenceState) -> KeysView[Key]:
        """The keys of the live runs in ``state``, in the order they entered it. Raises
        TypeError if the store keeps no index by state."""
        if self.index is None:
            raise TypeError("this engine does not index its runs by state")
        return self.index.keys[state].keys()

    def job_ticks(self, job_id: str, since: int) -> Iterator[int]:
        """The scheduled ticks of the job's runs with a record (live or archived) from
        ``since`` on, in order. With an archive the live table holds live work only, so this
        costs the job's live runs and a seek in its archived ones, not the history."""
        live = sorted(tick for job, tick in self.records if job == job_id and tick >= since)
        if self.archive is None:
            return iter(live)
        return heapq.merge(self.archive.job_ticks(job_id, since), live)

    def ready_and_priorities(self) -> dict[Key, tuple[int, int]]:
        """Each materialised run's ``ready_since`` and ``priority`` by key, live or archived,
        without building an archived run's record (the latency figures read them for every
        run)."""
        found = {} if self.archive is None else self.archive.ready_and_priorities()
        for key, occurrence in self.records.items():
            found[key] = (occurrence.ready_since, occurrence.priority)
        return found


class _StateKeys(Collection[Key]):
    """One state's keys, archived and live, as one collection."""

    __slots__ = ("_archive", "_live", "_state")

    def __init__(self, live: KeysView[Key], archive: RunArchive, state: OccurrenceState) -> None:
        self._live, self._archive, self._state = live, archive, state

    def __len__(self) -> int:
        return len(self._live) + self._archive.count(self._state)

    def __iter__(self) -> Iterator[Key]:
        yield from self._archive.keys(self._state)
        yield from self._live

    def __contains__(self, key: object) -> bool:
        return key in self._live or self._archive.state(key) is self._state  # type: ignore[arg-type]


class _LiveAndArchived(Mapping[Key, Occurrence]):
    """The live table and the archive read as one mapping: archived runs first (they were
    made before the live ones still in the table, mostly), each read as a new copy."""

    __slots__ = ("_archive", "_live")

    def __init__(self, live: dict[Key, Occurrence], archive: RunArchive) -> None:
        self._live, self._archive = live, archive

    def __getitem__(self, key: Key) -> Occurrence:
        occurrence = self._live.get(key)
        if occurrence is None:
            occurrence = self._archive.get(key)
            if occurrence is None:
                raise KeyError(key)
        return occurrence

    def get(self, key: Key, default: Occurrence | None = None) -> Occurrence | None:  # type: ignore[override]
        occurrence = self._live.get(key)
        if occurrence is None:
            occurrence = self._archive.get(key)
        return default if occurrence is None else occurrence

    def __contains__(self, key: object) -> bool:
        return key in self._live or key in self._archive

    def __iter__(self) -> Iterator[Key]:
        yield from self._archive.keys()
        yield from self._live

    def __len__(self) -> int:
        return len(self._live) + len(self._archive)

    def values(self) -> Iterator[Occurrence]:  # type: ignore[override]
        yield from self._archive.records()
        yield from self._live.values()

    def items(self) -> Iterator[tuple[Key, Occurrence]]:  # type: ignore[override]
        for occurrence in self._archive.records():
            yield occurrence.key, occurrence
        yield from self._live.items()
