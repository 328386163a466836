"""An engine's whole state as comparable values, for tests that compare two engines.

Records are compared by every field but the journal's bookkeeping stamps (``gen``, ``born``, which
say when a record was saved, not what it is): their identity fields and what ``save()`` returns,
both derived from ``dataclasses.fields`` (see :mod:`engine.model.journaled`), so a field added to a
record is compared without anyone editing this file. Records inside containers (the ready queue's
entries) are frozen the same way: a fingerprint must not change when the engine goes on, or when a
rewind gives a record outside the state its first values back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.core import Engine
from engine.model.journaled import values
from engine.model.records import OccurrenceState
from engine.query import Query

TABLES: dict[str, Callable[[Query], Mapping]] = {
    "jobs": Query.jobs,
    "workers": Query.workers,
    "occurrences": Query.records,
    "outbox": Query.notifications,
}
"""The engine's tables, as the query API answers them."""


def state_fingerprint(engine: Engine) -> dict[str, Any]:
    """Everything the engine's future depends on: records, log, containers, counters, rng.

    A dict, so that a failing comparison names the part that differs. Tables keep their order
    (it is the order of creation, which queries show); the by-state index is a set per state
    (every reader sorts or counts it, and a restore may put a key back in another place)."""
    fingerprint = _unrecorded_parts(engine)
    fingerprint["log"] = list(engine.log)
    for name, table in TABLES.items():
        fingerprint[name] = {key: frozen(record) for key, record in table(engine.query).items()}
    return fingerprint


class StampedFingerprints:
    """:func:`state_fingerprint` again and again for one engine that records keyframes in debug
    mode (``record_keyframes(check=True)``), cheaply: a record whose keyframe stamp (``gen``) is
    the one it had last time keeps its frozen values, and the log, which only grows, is
    extended. Sound only in debug mode, which checks at every keyframe that each record whose
    values changed was touched (restamped) first, and only while nothing restores a keyframe.
    The engine's state machines take one before every command: whole, it was more than half of
    their time."""

    def __init__(self) -> None:
        self._frozen: dict[int, tuple[Any, int, tuple]] = {}
        """By a record's id: the record (held, so that its id is not reused), its stamp then,
        and its frozen values."""
        self._log: list = []

    def of(self, engine: Engine) -> dict[str, Any]:
        fingerprint = _unrecorded_parts(engine)
        log = engine.log
        if len(log) < len(self._log):
            raise ValueError("the log shrank: a fingerprint by stamps cannot follow a rewind")
        self._log.extend(log[len(self._log) : len(log)])
        fingerprint["log"] = list(self._log)
        for name, table in TABLES.items():
            fingerprint[name] = {
                key: self._frozen_now(record) for key, record in table(engine.query).items()
            }
        return fingerprint

    def _frozen_now(self, record: Any) -> tuple:
        kept = self._frozen.get(id(record))
        if kept is not None and kept[0] is record and kept[1] == record.gen:
            return kept[2]
        values_now = frozen(record)
        self._frozen[id(record)] = (record, record.gen, values_now)
        return values_now


def _unrecorded_parts(engine: Engine) -> dict[str, Any]:
    """The fingerprint but for the log and the tables' records."""
    return {
        "now": engine.now,
        "created_through": engine.query.created_through(),
        "dispatches": engine.query.dispatches(),
        "undispatched_submissions": engine._cursors.undispatched_submissions,
        "counters": (engine._timers.sequence, engine._cursors.submissions),
        "rng": engine._rng.getstate(),
        "table order": tuple(tuple(table(engine.query)) for table in TABLES.values()),
        "by_state": {
            state: frozenset(engine.query.record_keys(state)) for state in OccurrenceState
        },
        "ready": [_frozen(entry) for entry in engine._dispatcher.ready.contents()],
        "idle": engine._workforce.idle.snapshot()[1],
        "due": engine._cursors.due.live(),
        "timers": engine._timers.heap.live(),
        "attempt ends": engine._timers.ends.snapshot(),
    }


def frozen(record: Any) -> tuple:
    """A record's :func:`values`, with the records it holds (an occurrence's attempts) replaced
    by their own values: a fingerprint must not change when the engine goes on (a replay makes
    new attempt objects; the first play's go on changing)."""
    return tuple([_frozen(part) for part in values(record)])


_HOLDS_RECORDS: dict[type, bool] = {}
"""By type: whether a value of it is a record or a tuple (which may hold records). Most values
are plain (ints, strings, enums): asking once per type keeps the walk cheap, and the engine's
state machines take a fingerprint before every command."""


def _frozen(value: Any) -> Any:
    kind = type(value)
    holds = _HOLDS_RECORDS.get(kind)
    if holds is None:
        holds = _HOLDS_RECORDS[kind] = kind is tuple or hasattr(kind, "__record_journal__")
    if not holds:
        return value
    if kind is tuple:
        return tuple([_frozen(item) for item in value])
    return frozen(value)


def assert_same_state(actual: Engine, expected: Engine) -> None:
    """Compare two engines part by part, so that a failure names the part (and for a record,
    the record and its first differing field)."""
    mine, theirs = state_fingerprint(actual), state_fingerprint(expected)
    for part, expected_value in theirs.items():
        if part in TABLES and mine[part] != expected_value:
            for key in TABLES[part](actual.query):
                if key in expected_value and mine[part][key] != expected_value[key]:
                    raise AssertionError((part, key, mine[part][key], expected_value[key]))
        assert mine[part] == expected_value, part
