"""The append-only event log: each event stored as its class's code and its fields.

The event classes live in :mod:`engine.model.events`, which numbers them (:func:`register_kinds`)
when it is imported; this module knows them only by those numbers, so it imports none of them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import compress, count
from typing import Any, ClassVar, overload

from engine.model.values import mutable_record

EVENT_KINDS: list[type] = []
"""Every concrete event class; an event's code is its index here."""
CODES: dict[str, int] = {}
"""An event class's code by its name (snapshots store names)."""


def register_kinds(root: type) -> list[type]:
    """Number ``root`` and every subclass of it, breadth first: each gets its ``code``. A class
    that ``dataclass(slots=True)`` replaced (it makes a new class, and the first one stays a
    subclass of the base) is passed over: only the class its module names is an event kind."""
    pending = [root]
    while pending:
        kind = pending.pop(0)
        if getattr(sys.modules[kind.__module__], kind.__name__, None) is not kind:
            continue
        kind.code = len(EVENT_KINDS)  # type: ignore[attr-defined]
        CODES[kind.__name__] = kind.code  # type: ignore[attr-defined]
        EVENT_KINDS.append(kind)
        pending.extend(kind.__subclasses__())
    return EVENT_KINDS


class EventLog:
    """Append-only list of events; ``mark()`` and ``since(mark)`` give a command's own events.

    Why events are stored as fields and built when read: the engine writes an event for
    everything that happens, and a headless run or a facade reads few of them. The log keeps each
    event's class as a one-byte code and its fields as a tuple: a tuple of ints and strings costs
    less to make than an event object, and Python's cycle collector stops tracking it once it has
    seen it, where an event object is walked at every full collection for as long as the log
    holds it (on seed 000's maximum workload the events were a quarter of the objects it
    walked). Reading builds a new, equal event each time: compare events with ``==``, never
    ``is``.

    A headless run that reads each event once (``cronlapse run`` prints it, the checker and the
    summary take what they need) releases what it has read (:meth:`release`), so the log holds
    the events since, not the whole history. Indexes stay those of the whole log: the first event
    kept is at :attr:`base`, and reading before it is an error.
    """

    __slots__ = ("_base", "_fields", "_kinds")

    kinds: ClassVar[frozenset[type] | None] = None
    """The kinds of event it keeps; None: every kind. A log that drops the others (it is still
    given them) declares the ones it keeps, so that a writer whose fields cost calls to make
    may skip an event the log would drop (``Engine.schedule_checked``: a job's ``JobScheduled``
    and its schedule's description)."""

    def __init__(self) -> None:
        self._kinds = bytearray()
        self._fields: list[tuple] = []
        self._base = 0

    def add(self, kind: type, *fields: object) -> None:
        """Append the event ``kind(*fields)``."""
        self._kinds.append(kind.code)  # type: ignore[attr-defined]
        self._fields.append(fields)

    def append(self, event: Any) -> None:
        self.add(type(event), *(getattr(event, name) for name in event.__match_args__))

    @property
    def base(self) -> int:
        """The index of the first event kept (0 unless some were released)."""
        return self._base

    def release(self, before: int) -> None:
        """Forget the events before index ``before``, which every reader has read: their
        indexes, and the later ones', do not change."""
        if before > len(self):
            raise IndexError(f"cannot release to {before}: the log has {len(self)} events")
        drop = before - self._base
        if drop > 0:
            del self._kinds[:drop]
            del self._fields[:drop]
            self._base = before

    def _kept(self, index: int) -> int:
        """Where the event at ``index`` of the whole log sits in the kept lists."""
        if index < self._base:
            raise IndexError(f"event {index} was released (the log keeps {self._base} on)")
        return index - self._base

    def mark(self) -> int:
        return self._base + len(self._fields)

    def since(self, mark: int) -> list[Any]:
        return self[mark:]

    def stored_since(self, mark: int) -> Iterator[tuple[type, tuple]]:
        """The events after ``mark`` as stored: each one's class and its fields in the class's
        field order. For readers of many events that need a few fields of some kinds (the
        seed 001 protocol prints four kinds of a run's events), without building every event."""
        start = self._kept(mark)
        return zip(
            map(EVENT_KINDS.__getitem__, self._kinds[start:]), self._fields[start:], strict=True
        )

    def coded_since(self, mark: int) -> Iterator[tuple[int, tuple]]:
        """:meth:`stored_since` with each event's code (its index in :data:`EVENT_KINDS`) for
        its class: for readers of every event that look its kind up by code (``cronlapse
        run``'s lines and summary), each class's look-up in :data:`EVENT_KINDS` was 25 M
        instructions a reader over the demo's 160,000 events (callgrind)."""
        start = self._kept(mark)
        return zip(self._kinds[start:], self._fields[start:], strict=True)

    def select(self, kinds: Iterable[type], start: int = 0) -> Iterator[tuple[int, Any]]:
        """The events of ``kinds`` (exact classes) from index ``start`` on, each with its index.

        For the readers of the whole log that want a few kinds (the exactly-once checker reads
        it several times): the others are passed over in C, by their codes, and never built."""
        codes = frozenset(kind.code for kind in kinds)  # type: ignore[attr-defined]
        stored, fields = self._kinds, self._fields
        kept = self._kept(start)
        if kept:
            stored, fields = stored[kept:], fields[kept:]
        wanted = map(codes.__contains__, stored)
        for index, code, values in compress(zip(count(start), stored, fields), wanted):
            yield index, EVENT_KINDS[code](*values)

    def stored_of(self, kinds: Iterable[type], start: int = 0) -> Iterator[tuple[type, tuple]]:
        """The events of ``kinds`` (exact classes) from index ``start`` on, as stored: each
        one's class and its fields. For the readers of the whole log that want a few kinds
        without building them (the latency figures read two of the demo's six): the others
        are passed over in C, by their codes."""
        kept = self._kept(start)
        stored = self._kinds[kept:] if kept else self._kinds
        fields = self._fields[kept:] if kept else self._fields
        wanted = stored.translate(_selector(kinds))
        kinds = map(EVENT_KINDS.__getitem__, compress(stored, wanted))
        return zip(kinds, compress(fields, wanted), strict=True)

    def holds_any(self, kinds: Iterable[type], start: int = 0) -> bool:
        """Whether an event of ``kinds`` (exact classes) lies from index ``start`` on: looked
        for in C, by their codes, none built (a headless run asks after every step whether the
        step logged a kind its checker must see at once)."""
        stored, kept = self._kinds, self._kept(start)
        return any(stored.find(kind.code, kept) >= 0 for kind in kinds)  # type: ignore[attr-defined]

    def count(self, kind: type) -> int:
        """How many events of ``kind`` (an exact class) the log holds: counted in C, by their
        codes, none built (a scenario's ``events:`` expectation counts the whole log)."""
        return self._kinds.count(kind.code)  # type: ignore[attr-defined]

    def truncate(self, length: int) -> None:
        """Forget the events after the first ``length`` (a rewind)."""
        kept = self._kept(length)
        del self._kinds[kept:]
        del self._fields[kept:]

    def first_index_at(self, tick: int) -> int:
        """Index of the first event at or after ``tick``: events are appended in tick order."""
        fields = self._fields
        low, high = 0, len(fields)
        while low < high:
            middle = (low + high) // 2
            if fields[middle][0] < tick:
                low = middle + 1
            else:
                high = middle
        return self._base + low

    def records(self, start: int, stop: int) -> EventRecords:
        """Events ``start`` to ``stop`` as stored, for the keyframes to keep."""
        start, stop = self._kept(start), self._kept(stop)
        return EventRecords(self._kinds[start:stop], self._fields[start:stop])

    def extend_records(self, records: EventRecords) -> None:
        """Append events kept before (a return to a later state)."""
        self._kinds += records.kinds
        self._fields += records.fields

    def __len__(self) -> int:
        return self._base + len(self._fields)

    def growth(self) -> Callable[[], int]:
        """A call in C that counts the events stored, for a loop that reads the log's growth
        once a step (a history's recording): ``len(log)`` is a call in Python. Differences of
        its counts are the events added between them, while the log is only appended to."""
        return self._fields.__len__

    def __getstate__(self) -> tuple:
        """Pickled with the classes' names, not their codes: a snapshot written by one version
        of cronlapse reads back right in a later one whose event classes are numbered anew. A
        log that released events adds its base (older snapshots have none)."""
        names = [EVENT_KINDS[code].__name__ for code in self._kinds]
        return (names, self._fields) if not self._base else (names, self._fields, self._base)

    def __setstate__(self, state: tuple) -> None:
        names, self._fields, *base = state
        self._kinds = bytearray(CODES[name] for name in names)
        self._base = base[0] if base else 0

    def __iter__(self) -> Iterator[Any]:
        return map(_build, self._kinds, self._fields)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            positions = range(*index.indices(len(self)))
            if positions and min(positions[0], positions[-1]) < self._base:
                raise IndexError(f"events from {self._base} on are kept, not {index}")
            base = self._base
            kept = slice(positions.start - base, positions.stop - base, positions.step)
            if kept.stop < 0:  # a backward slice that runs to the first event kept
                kept = slice(kept.start, None, kept.step)
            return list(map(_build, self._kinds[kept], self._fields[kept]))
        at = self._kept(index if index >= 0 else len(self) + index)
        return _build(self._kinds[at], self._fields[at])


@mutable_record
class EventRecords:
    """A stretch of the log as stored: the events' codes and their fields."""

    kinds: bytearray
    fields: list[tuple]

    def extend(self, later: EventRecords) -> None:
        self.kinds += later.kinds
        self.fields += later.fields

    def truncate(self, length: int) -> None:
        del self.kinds[length:]
        del self.fields[length:]

    def slice(self, start: int, stop: int) -> EventRecords:
        return EventRecords(self.kinds[start:stop], self.fields[start:stop])


def _selector(kinds: Iterable[type]) -> bytes:
    """A table for ``bytearray.translate`` that turns the codes of ``kinds`` into 1 and every
    other code into 0: the log's codes become the mask of the events wanted in one pass in C,
    where a look-up of each code in a set was a call an event (a sweep's latency figures read
    the demo's log twice, 160,000 events a week: its variant of the first day went from
    2,125.4 M to 2,116.9 M instructions, callgrind)."""
    table = bytearray(256)
    for kind in kinds:
        table[kind.code] = 1  # type: ignore[attr-defined]
    return bytes(table)


def _build(code: int, fields: tuple) -> Any:
    return EVENT_KINDS[code](*fields)
