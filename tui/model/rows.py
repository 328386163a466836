"""Which keys each table shows, kept up to date from the events of a move.

A table's rows are a set of keys (occurrence keys, worker ids, notification keys, log positions)
in a display order. On a move, only the keys the move's events mention are looked at again; a
rebuild (a new engine, a jump over very many events) recomputes the set with one sort.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache

from engine.core import Engine
from engine.model import events as ev
from engine.model.ordering import java_order_key
from engine.model.records import OccurrenceState
from tui.model.indexes import LogIndex, SortedIndex
from tui.model.navigator import Change

S = OccurrenceState
REBUILD_EVENTS = 20_000
"""A move with more events than this rebuilds the indexes (one sort beats that many inserts)."""

JOB_EVENTS = (
    ev.JobScheduled,
    ev.JobModified,
    ev.JobDeleted,
    ev.JobPaused,
    ev.JobResumed,
    ev.OccurrencesSkipped,
)
"""Events that may change a job's occurrences without naming them (a modify materialises the
job's due backlog, for one)."""


@lru_cache(maxsize=65_536)
def order_key(job_id: str) -> bytes:
    """The engine's Java sort key of an id, cached: tables sort by it as the engine does."""
    return java_order_key(job_id)


def natural_key(text: str) -> tuple:
    """``w2`` before ``w10``: digits compare as numbers."""
    parts: list = []
    number = ""
    for char in text:
        if "0" <= char <= "9":
            number += char
            continue
        if number:
            parts.append((0, int(number), ""))
            number = ""
        parts.append((1, 0, char))
    if number:
        parts.append((0, int(number), ""))
    return tuple(parts)


def occurrence_keys(events: Iterable[ev.Event]) -> tuple[set[tuple[str, int]], set[str]]:
    """The occurrences the events name, and the jobs with job-level events."""
    keys: set[tuple[str, int]] = set()
    jobs: set[str] = set()
    for event in events:
        if isinstance(event, ev.OccurrenceEvent):
            keys.add((event.job_id, event.scheduled))
        elif isinstance(event, JOB_EVENTS):
            jobs.add(event.job_id)
    return keys, jobs


def implicit_fronts(engine: Engine) -> set[tuple[str, int]]:
    """Each job's first run that waits implicitly (QUEUED, not materialised), as the query API
    gives it: the runs behind a front are implicit too, and its row counts them."""
    query = engine.query
    fronts = set()
    for job_id in query.jobs():
        front = query.implicit_front(job_id)
        if front is not None:
            fronts.add((job_id, front))
    return fronts


class OccurrenceRows:
    """Every materialised occurrence plus each job's implicit front, by scheduled tick, job."""

    def __init__(self) -> None:
        self.index = SortedIndex(lambda key: (key[1], order_key(key[0])))
        self._by_job: dict[str, set[tuple[str, int]]] = {}
        self._fronts: set[tuple[str, int]] = set()

    def rebuild(self, engine: Engine) -> None:
        self._fronts = implicit_fronts(engine)
        records = engine.query.records()
        keys = list(records)
        keys += [key for key in self._fronts if key not in records]
        self.index.reset(keys)
        self._by_job = {}
        for key in keys:
            self._by_job.setdefault(key[0], set()).add(key)

    def apply(self, change: Change, engine: Engine) -> None:
        if change.rebuild or len(change.events) > REBUILD_EVENTS:
            self.rebuild(engine)
            return
        query = engine.query
        keys, jobs = occurrence_keys(change.events)
        for job_id in jobs:
            keys.update(self._by_job.get(job_id, ()))
            job = query.job(job_id)
            if job is not None:
                keys.update((job_id, scheduled) for scheduled in job.open)
        fronts = implicit_fronts(engine)
        keys.update(fronts.symmetric_difference(self._fronts))
        self._fronts = fronts
        occurrences, index = query.records(), self.index
        added = []
        for key in keys:
            if key in occurrences or key in fronts:
                if key not in index:
                    added.append(key)
                    self._by_job.setdefault(key[0], set()).add(key)
            elif key in index:
                index.discard(key)
                self._by_job.get(key[0], set()).discard(key)
        index.put_all(added)
        index.recheck(keys)


class KeyedRows:
    """A table of keys that belong while ``belongs(engine, key)`` holds; the keys a move may
    have changed are the ones ``touched(events)`` names."""

    def __init__(
        self,
        order: Callable[[Hashable], tuple],
        members: Callable[[Engine], Iterable[Hashable]],
        belongs: Callable[[Engine, Hashable], bool],
        touched: Callable[[Sequence[ev.Event]], Iterable[Hashable]],
    ) -> None:
        self.index = SortedIndex(order)
        self._members = members
        self._belongs = belongs
        self._touched = touched

    def rebuild(self, engine: Engine) -> None:
        self.index.reset(self._members(engine))

    def apply(self, change: Change, engine: Engine) -> None:
        if change.rebuild or len(change.events) > REBUILD_EVENTS:
            self.rebuild(engine)
            return
        keys = set(self._touched(change.events))
        for key in keys:
            if self._belongs(engine, key):
                self.index.put(key)
            else:
                self.index.discard(key)


def _occurrences_touched(events: Sequence[ev.Event]) -> set[tuple[str, int]]:
    return {(e.job_id, e.scheduled) for e in events if isinstance(e, ev.OccurrenceEvent)}


def retry_rows(engine_ref: Callable[[], Engine]) -> KeyedRows:
    """RETRY_PENDING occurrences, soonest eligible first."""

    def order(key):
        occurrence = engine_ref().query.records()[key]
        return (occurrence.eligible_at or 0, key[1], order_key(key[0]))

    return KeyedRows(
        order,
        lambda engine: engine.query.record_keys(S.RETRY_PENDING),
        lambda engine, key: key in engine.query.record_keys(S.RETRY_PENDING),
        _occurrences_touched,
    )


def final_rows() -> KeyedRows:
    """Cancelled and failed occurrences, by scheduled tick; a job's runs cancelled together
    without records (a deletion, a cascade) are one row, keyed by the range's first tick, as the
    query API gives it (:meth:`engine.query.api.Query.cancelled_range`)."""

    def members(engine: Engine):
        query = engine.query
        views = (query.cancelled_range(job_id) for job_id in query.jobs())
        ranges = [(view.job_id, view.first) for view in views if view is not None]
        return [*query.record_keys(S.CANCELLED), *query.record_keys(S.FAILED), *ranges]

    def belongs(engine: Engine, key) -> bool:
        query = engine.query
        if key in query.records():
            return key in query.record_keys(S.CANCELLED) or key in query.record_keys(S.FAILED)
        view = query.cancelled_range(key[0])
        return view is not None and view.first == key[1]

    def touched(events: Sequence[ev.Event]) -> set[tuple[str, int]]:
        keys = _occurrences_touched(events)
        keys.update((e.job_id, e.first) for e in events if isinstance(e, ev.BacklogCancelled))
        return keys

    return KeyedRows(lambda key: (key[1], order_key(key[0])), members, belongs, touched)


def worker_rows() -> KeyedRows:
    """Registered workers, by id (numbers in ids compare as numbers)."""
    return KeyedRows(
        lambda key: natural_key(key),
        lambda engine: engine.query.workers(),
        lambda engine, key: key in engine.query.workers(),
        lambda events: {e.worker_id for e in events if hasattr(e, "worker_id")},
    )


def notification_rows(engine_ref: Callable[[], Engine]) -> KeyedRows:
    """The notification outbox, oldest first."""
    return KeyedRows(
        lambda key: (engine_ref().query.notifications()[key].created,),
        lambda engine: engine.query.notifications(),
        lambda engine, key: key in engine.query.notifications(),
        lambda events: {e.key for e in events if isinstance(e, ev.NotificationEvent)},
    )


class EventRows:
    """The event log: its positions are the rows."""

    def __init__(self) -> None:
        self.index = LogIndex()

    def rebuild(self, engine: Engine) -> None:
        self.index.resize(0)
        self.index.resize(len(engine.log))

    def apply(self, change: Change, engine: Engine) -> None:
        if change.rebuild:
            self.rebuild(engine)
        else:
            self.index.resize(len(engine.log))
