"""An engine's whole state as comparable values, for tests that compare two engines.

Records are compared field by field, the fields taken from ``dataclasses.fields``: a field added to
a record is compared without anyone editing this file. Only the journal's bookkeeping stamps
(``gen``, ``born``) are left out: they say when a record was saved, not what it is.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from engine.core import Engine
from engine.records import Journal, kind


def value(thing: Any) -> Any:
    """``thing`` as plain comparable data: dataclasses become (class name, named fields)."""
    if isinstance(thing, Enum | str | bytes | int | float | type(None)):
        return thing
    if dataclasses.is_dataclass(thing) and not isinstance(thing, type):
        return (
            type(thing).__name__,
            tuple(
                (f.name, value(getattr(thing, f.name)))
                for f in dataclasses.fields(thing)
                if kind(f) is not Journal.BOOKKEEPING
            ),
        )
    if isinstance(thing, dict):
        return tuple((value(key), value(item)) for key, item in thing.items())
    if isinstance(thing, list | tuple):
        return tuple(value(item) for item in thing)
    if isinstance(thing, set | frozenset):
        return frozenset(thing)
    return thing


def state_fingerprint(engine: Engine) -> dict[str, Any]:
    """Everything the engine's future depends on: records, log, containers, counters, rng.

    A dict, so that a failing comparison names the part that differs. Tables keep their order
    (it is the order of creation, which queries show); the by-state index is a set per state
    (every reader sorts or counts it, and a rollback may put a key back in another place)."""
    return {
        "now": engine.now,
        "created_through": engine.created_through,
        "dispatches": engine.dispatches,
        "undispatched_submissions": engine.cursors.undispatched_submissions,
        "counters": (engine.timers.sequence, engine.cursors.submissions),
        "rng": engine.rng.getstate(),
        "log": list(engine.log),
        "jobs": value(engine.jobs),
        "workers": value(engine.workers),
        "occurrences": value(engine.occurrences),
        "outbox": value(engine.outbox),
        "by_state": {state: frozenset(keys) for state, keys in engine.by_state.items()},
        "ready": value(engine.dispatcher.ready.contents()),
        "idle": engine.workforce.idle.snapshot()[1],
        "due": engine.cursors.due.live(),
        "timers": engine.timers.heap.live(),
    }


def assert_same_state(actual: Engine, expected: Engine) -> None:
    """Compare two engines part by part, so that a failure names the part."""
    mine, theirs = state_fingerprint(actual), state_fingerprint(expected)
    for part, expected_value in theirs.items():
        assert mine[part] == expected_value, part
