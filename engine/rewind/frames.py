"""Keyframes along a recording, stored by what changed, restored by what differs.

A history (:mod:`engine.play.history`) rewinds by restoring the nearest keyframe at or before
its target and replaying the commands from there (the engine is deterministic). A whole copy
of the live state per keyframe (:class:`engine.rewind.live_state.Keyframe`) costs the live
state's size in time and memory each time: at seed 000's sizes that is 60,000 job records, tens
of milliseconds and megabytes a keyframe. Most of them do not change between two keyframes, so
:class:`Frames` keeps, per keyframe:

- the containers (ready queue, heaps, idle pool): copied whole every :data:`WHOLE_EVERY`
  keyframes, else as what changed since the keyframe before: the items a heap logged as pushed
  and popped (:mod:`engine.rewind.heap`), the positions that changed in a copy of the others
  (:mod:`engine.rewind.deltas`); the counters, the generator's state and the event log's length;
- the length of each record table (they only grow: jobs, workers, notifications, and the runs of
  an engine that does not archive) and, once, the records born in each span, in order;
- which records each *live table* holds (an archiving engine's live runs: they come and go),
  its keys and its records;
- the records changed in the span before it, each with its values then (its ``save()``) and
  its values at the keyframe before (what a rewind past the span puts back), and the records
  new in a live table.

Each record keeps its versions (the keyframes that saved it, in order) and which of them it
holds now, unless it was changed since, in its ``versions`` field
(:data:`~engine.model.journaled.VERSIONS`). A restore sets only the records that may differ from
the target: the ones changed since the keyframe the engine started from (the parts call
``touch`` before each change, which marks them) and the ones changed between that keyframe and
the target, each found with its values at the target by dict updates over the spans' lists
(going forward, the last values saved up to the target; going back, the values before the first
change after it), and skipped when it holds those values already. So a step back costs what
changed since the last keyframe, and a long jump what changed on the way (in C loops), setting
only the records whose values differ, not the size of the state.

The records of a table are the same objects in every keyframe: a restore puts the keyframe's
objects back (a replay makes new ones for the runs it creates, which a later restore drops), so
the containers' copies, which refer to records, agree with the tables.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import compress, islice, repeat
from operator import attrgetter, is_, is_not, itemgetter
from typing import Any

from engine.model import journaled
from engine.model.events import EventLog, EventRecords
from engine.model.rng import TrackedRandom
from engine.model.values import mutable_record
from engine.rewind.deltas import apply, delta
from engine.rewind.live_state import StatePart

_held = attrgetter("held")
_VERSIONS = "versions"
"""A record's field with its :class:`_Versions` (None, or unset in a record loaded from a pickle
written before the field was: read with ``getattr``'s default)."""
_saves_of = attrgetter("saves")
_key_of = attrgetter("key")
_first, _last = itemgetter(0), itemgetter(-1)

WHOLE_EVERY = 16
"""Every this many keyframes copy the containers whole; the others keep what changed since the
keyframe before (:mod:`engine.rewind.deltas`), so a restore rebuilds at most this many. At
seed 000's sizes the ready queue holds up to 47,000 waiting jobs, and its whole copies were most
of the containers' cost: every 16 keyframes rather than 8 they cost 2.7 MB less (of 78), and
a rebuild replays at most 15 spans of a few hundred pushes and pops (a step back's worst 2 ms
more)."""


@mutable_record
class _Frame:
    """One keyframe: what it copied whole, and what changed in the span leading to it."""

    label: int
    containers: tuple
    """The containers' copies: whole every :data:`WHOLE_EVERY` keyframes, else each one's
    changes since the keyframe before: what a heap logged (:mod:`engine.rewind.heap`), or a
    delta between copies (:mod:`engine.rewind.deltas`)."""
    live: tuple[tuple, ...]
    """Each live table's records: a live table holds each record under its ``key``
    (:meth:`engine.rewind.live_state.StatePart.live_tables`), so the keys are not kept (they
    were 1.5 MB at seed 000's sizes)."""
    scalars: tuple[tuple, ...]
    rng_state: tuple
    log_length: int
    lengths: tuple[int, ...]
    """Each record table's length."""
    born: list[_Versions]
    """The records born in the span before it (saved for the first time at this keyframe)."""
    births: array
    """The records changed in the span before it and saved before (each saved again here):
    the keyframe each was born at, in order (a restore takes the ones born in a range of
    keyframes as one slice), as 4-byte integers (8 bytes were 0.4 MB more at seed 000's sizes)..."""
    changed: tuple[_Versions, ...]
    """...the records, by their birth (then by when they were first changed in the span)..."""
    saves: tuple[tuple, ...]
    """...their values then (for a record that left the state in the span, an archived run,
    its values at the keyframe before: nothing restores it to later ones)..."""
    previous: tuple[tuple, ...]
    """...and their values at the keyframe before."""


class _Versions:
    """One record's values at the keyframes that saved it, oldest first, and which of them it
    holds now."""

    __slots__ = ("held", "record", "saves")

    def __init__(self, record: Any, index: int) -> None:
        """A record born in the span before keyframe ``index``, saved there."""
        saved = record.save()
        self.record = record
        record.versions = self
        self.saves: tuple = (index, saved)
        """A keyframe's index and the values it saved, in turn, oldest first: one tuple rather
        than two, as most records are saved once or twice (at seed 000's sizes, 80,000 records),
        and a tuple made anew for each save rather than a list, which is 16 bytes larger and
        over-allocated as it grows (lists cost 2.2 MB more at seed 000's sizes)."""
        self.held: tuple | None = saved
        """The save whose values the record holds, unless it was touched since the keyframe
        the engine started from; None when not known. A restore skips a record that holds
        the values it would set: one dropped by a rewind and back again is not set twice."""

    def at(self, index: int) -> tuple | None:
        """Its values at keyframe ``index``; None if it was born after it. A scan from the
        newest: a record has few versions, and a rewind mostly wants a recent one."""
        saves = self.saves
        for at in range(len(saves) - 2, -1, -2):
            if saves[at] <= index:
                return saves[at + 1]
        return None

    def drop_from(self, index: int) -> bool:
        """Forget its saves at keyframe ``index`` and after; whether any is left."""
        saves = self.saves
        while saves and saves[-2] >= index:
            saves = saves[:-2]
        self.saves = saves
        return bool(saves)


class _LiveVersions(_Versions):
    """The versions of a record born in a live table, which may leave the state (archived)."""

    __slots__ = ()


class UntouchedWrite(AssertionError):
    """A record changed without ``touch`` first: a rewind would keep its new value. Only raised
    in the debug mode (:attr:`Frames.check`)."""


class Frames:
    """The keyframes of one engine's recording; the engine's ``touch`` marks changed records."""

    def __init__(
        self, parts: Sequence[StatePart], log: EventLog, rng: TrackedRandom, check: bool = False
    ) -> None:
        self._parts = tuple(parts)
        self._tables = tuple(table for part in parts for _, table in part.tables())
        self._containers = tuple(container for part in parts for container in part.containers())
        self._logged_at = tuple(
            position
            for position, container in enumerate(self._containers)
            if hasattr(container, "changes")
        )
        """The containers that log their changes (the heaps: :mod:`engine.rewind.heap`), which
        a keyframe keeps rather than comparing copies (:mod:`engine.rewind.deltas`)."""
        self._logged = tuple(self._containers[position] for position in self._logged_at)
        for container in self._logged:
            container.log_changes()
        self._live = tuple(table for part in parts for _, table in part.live_tables())
        self._log, self._rng = log, rng
        self._frames: list[_Frame] = []
        self._born: list[tuple[list, list]] = [([], []) for _ in self._tables]
        """Per table, its keys and records in the order the recording made them (up to the last
        keyframe)."""
        self._events = EventRecords(bytearray(), [])
        """The events up to the last keyframe, as stored (a restore forward puts them back)."""
        self._last_containers: tuple = ()
        """The containers' copies at the last keyframe, what the next one's delta is taken
        against: whole but for the containers that log their changes, which are None unless
        that keyframe was whole (or in the debug mode, which compares their copies)."""
        self._rebuilt: tuple[int, tuple] = (-1, ())
        """The keyframe whose containers' copies were rebuilt last, and those copies."""
        self._base = 0
        """The keyframe the engine's state started from: every record not marked since holds
        its value there."""
        self._stamp = 1
        self._dirty: list[Any] = []
        """The records changed since the base keyframe, as touched (a record once or more)."""
        self.check = check
        """Debug mode, for tests (the engine's state machine turns it on): every keyframe checks
        that each record whose values changed since the one before was touched first, by
        comparing every record with its values then (:class:`UntouchedWrite`)."""
        self.touch: Callable[[Any], object] = self._stamped if check else self._dirty.append
        """Called with a record before each change to it (the engine's ``journal.touch``): the
        list's own ``append``, a call in C where a method was a Python call per change (a
        record touched twice is there twice; a keyframe or a restore takes each once). The
        debug mode also stamps the record (:meth:`_stamped`)."""
        self._shadow: dict[int, tuple[Any, tuple]] = {}
        self.gathered = 0
        """How many records the last restore gathered with their values at its target (for
        tests: what a jump costs)."""

    # ---------------------------------------------------------------- marking

    def _stamped(self, record: Any) -> None:
        """The debug mode's ``touch``: mark the record once per keyframe, and stamp it (its
        ``gen``: what the write check and the tests' fingerprints read)."""
        if record.gen != self._stamp:
            record.gen = self._stamp
            self._dirty.append(record)

    def _start_from(self, index: int) -> None:
        self._base = index
        self._stamp += 1
        self._dirty.clear()  # in place: ``touch`` is its ``append``
        if self.check:
            records = self._records()
            self._shadow = {id(record): (record, journaled.values(record)) for _, record in records}

    def _records(self) -> list[tuple[Any, Any]]:
        """Every record of the tables, with its key."""
        return [item for table in (*self._tables, *self._live) for item in table.items()]

    def _check_writes(self) -> None:
        """Debug mode: a record not touched since the base keyframe holds its values then."""
        for key, record in self._records():
            before = self._shadow.get(id(record))
            if record.gen == self._stamp or before is None or before[0] is not record:
                continue
            if journaled.values(record) != before[1]:
                name, old, new = journaled.changed_field(record, before[1])  # type: ignore[misc]
                raise UntouchedWrite(
                    f"{type(record).__name__} {key!r}: field {name!r} changed from {old!r} to "
                    f"{new!r} without a touch first"
                )

    def _check_live_keys(self) -> None:
        """Debug mode: a live table holds each record under its ``key`` (a restore puts it
        back there)."""
        for live in self._live:
            for key, record in live.items():
                if record.key != key:
                    raise ValueError(f"a live table holds {record.key!r} under {key!r}")

    def _check_live_births(self) -> None:
        """Debug mode: the records a live table gained since the last keyframe are its last
        ones (:func:`_new_live`), which is all a keyframe looks at."""
        for live in self._live:
            records = list(live.values())
            unknown = list(compress(records, map(is_, _versions_of(records), repeat(None))))
            if unknown != _new_live(live):
                raise ValueError(
                    "a live table holds a record it gained since the last keyframe before one "
                    "it held then: a record enters a live table only as a new one, at its end"
                )

    # ---------------------------------------------------------------- reading

    @property
    def labels(self) -> list[int]:
        return [frame.label for frame in self._frames]

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def base(self) -> int:
        """The index of the keyframe the engine's state follows."""
        return self._base

    # ---------------------------------------------------------------- writing

    def take(self, label: int) -> None:
        """Make the state as it is now a keyframe, after the last one: the engine must be past
        the last keyframe, reached from it (by restoring it or taking it) and played forward."""
        index = len(self._frames)
        if index and self._base != index - 1:
            raise ValueError("a keyframe is only taken past the last one")
        if self.check:
            self._check_writes()
            self._check_live_keys()
            self._check_live_births()
        # The records gathered by C loops (map, compress, dict), each once, in order: a loop
        # in Python over every touch and every live record was a sixth of the keyframes' cost.
        # The records touched (once or more each) and saved before, in the order first touched:
        # before the births.
        known = list(filter(None, dict.fromkeys(_versions_of(self._dirty))))
        new: list[Any] = []
        for table, (keys, records) in zip(self._tables, self._born, strict=True):
            new_keys, new_records = _tail(table, len(keys))
            keys += new_keys
            records += new_records
            new += new_records
        born = list(map(_Versions, new, repeat(index, len(new))))
        for live in self._live:
            new_live = _new_live(live)
            born += map(_LiveVersions, new_live, repeat(index, len(new_live)))
        births, kepts, known_saves, previous = _saved_again(known, index, self._left(known))
        log = self._log
        last = self._frames[-1].log_length if self._frames else 0
        self._events.extend(log.records(last, len(log)))
        whole = index % WHOLE_EVERY == 0
        containers = self._copies(whole or self.check)
        changes = [container.changes() for container in self._logged]
        last = self._last_containers
        if self.check and index:
            for position, change in zip(self._logged_at, changes, strict=True):
                self._containers[position].check_changes(
                    last[position], change, containers[position]
                )
        if whole:
            kept: tuple = containers
        else:
            logged = dict(zip(self._logged_at, changes, strict=True))
            kept = tuple(
                logged[position] if position in logged else delta(before, after)
                for position, (before, after) in enumerate(zip(last, containers, strict=True))
            )
        self._last_containers = containers
        rng = self._rng
        if self._frames and not rng.drawn:
            rng_state = self._frames[-1].rng_state  # one copy (2.5 KB) while nothing draws
        else:
            rng_state, rng.drawn = rng.getstate(), False
        self._frames.append(
            _Frame(
                label,
                kept,
                tuple(tuple(live.values()) for live in self._live),
                tuple(part.scalars() for part in self._parts),
                rng_state,
                len(log),
                tuple(len(table) for table in self._tables),
                born,
                births,
                kepts,
                known_saves,
                previous,
            )
        )
        self._start_from(index)

    def work_out_recent(self) -> None:
        """Work out the heaps' changes (:class:`engine.rewind.heap.HeapChanges`) that a restore
        of the keyframe before the last reads: those of the keyframes after the last whole copy
        before it. A run forward calls this as it ends, as a step back from its end restores
        that keyframe and rebuilds the heaps through up to 15 keyframes' changes: worked out
        there, they made the first step back 2 to 5 ms longer. The older keyframes keep their
        logs until a restore reads them."""
        last = len(self._frames) - 1
        whole = max(0, last - 1 - (last - 1) % WHOLE_EVERY)
        for index in range(whole + 1, last + 1):
            if index % WHOLE_EVERY:  # (a whole keyframe keeps copies, not changes)
                kept = self._frames[index].containers
                for position in self._logged_at:
                    self._containers[position].work_out(kept[position])

    def _left(self, known: list[_Versions]) -> set[_Versions]:
        """The records of ``known`` born in a live table that holds them no more (archived
        runs). They left the state for good (a live table gains no record back), so a keyframe
        saves nothing of theirs but their values before, which a rewind past it puts back: at
        seed 000's sizes 20,000 of the 22,000 runs saved again were archived, and their saves
        4 MB of the keyframes' 73."""
        left = set()
        for kept in compress(known, map(is_, map(type, known), repeat(_LiveVersions))):
            record = kept.record
            for live in self._live:
                if live.get(record.key) is record:
                    break
            else:
                left.add(kept)
        return left

    def reachable(self, index: int) -> bool:
        """Whether keyframe ``index`` can be restored from the state now: a part that goes back
        by truncation (an engine's run archive) goes forward only as far as the rows it
        truncated reach; past them a history replays instead (and records the keyframes ahead
        again)."""
        scalars = self._frames[index].scalars
        return all(part.reaches(values) for part, values in zip(self._parts, scalars, strict=True))

    def restore(self, index: int) -> None:
        """Return the engine to keyframe ``index``'s state exactly (see :meth:`reachable`)."""
        frames, base = self._frames, self._base
        target, start = frames[index], frames[base]
        if self.check:
            self._check_writes()
        self._set_records(index)
        for table, (keys, records), had, wanted in zip(
            self._tables, self._born, start.lengths, target.lengths, strict=True
        ):
            kept_length = min(had, wanted)
            _truncate(table, kept_length)
            table.update(zip(keys[kept_length:wanted], records[kept_length:wanted], strict=True))
        for container, saved in zip(self._containers, self._rebuild(index), strict=True):
            container.restore(saved)
        for live, records in zip(self._live, target.live, strict=True):
            live.clear()
            live.update(zip(map(_key_of, records), records, strict=True))
        for part, values in zip(self._parts, target.scalars, strict=True):
            part.restore_scalars(values)
        self._rng.setstate(target.rng_state)
        log = self._log
        kept_events = min(start.log_length, target.log_length, len(log))
        log.truncate(kept_events)
        log.extend_records(self._events.slice(kept_events, target.log_length))
        self._start_from(index)

    def _set_records(self, index: int) -> None:
        """Give the records that may differ from keyframe ``index`` their values there. A
        record that already holds those values (:attr:`_Versions.held`) is not set again.

        A record outside the state (born after the keyframe the engine follows, the base)
        holds its last values, those of the last keyframe that saved it: after a jump back it
        is mostly left alone (a record that changes seldom holds what a jump forward wants).
        So only two kinds of records are gathered, each as a slice of a keyframe's changed
        records (they are sorted by birth):

        - going forward, those born up to the base and changed on the way (their last save up
          to ``index``), and those born on the way and changed after ``index`` (their values
          before that change);
        - going back, those born up to ``index`` and changed between it and the base (their
          values before their first change after ``index``), and those born between the two
          and changed after the base (their last values: they leave the state);

        and the records changed since the base (:attr:`_dirty`), each to its values at
        ``index``, or its last ones if born after it. A jump thus looks at the records that
        change between the two states, not at the ones born between them.

        The records and their values there are gathered and compared by C loops (dict
        updates, ``map``, ``compress``), with no search per record."""
        frames, base = self._frames, self._base
        dirty = list(filter(None, dict.fromkeys(_versions_of(self._dirty))))
        for kept in dirty:
            kept.held = None
        values: dict[_Versions, tuple] = {}
        update = values.update
        if index > base:
            for frame in frames[base + 1 : index + 1]:
                born_before = bisect_right(frame.births, base)
                update(zip(frame.changed[:born_before], frame.saves[:born_before], strict=True))
            for frame in reversed(frames[index + 1 :]):
                births = frame.births
                low = bisect_right(births, base)
                high = bisect_right(births, index, low)
                if high > low:
                    update(zip(frame.changed[low:high], frame.previous[low:high], strict=True))
        else:
            for frame in reversed(frames[index + 1 : base + 1]):
                born_before = bisect_right(frame.births, index)
                update(zip(frame.changed[:born_before], frame.previous[:born_before], strict=True))
            for frame in frames[base + 1 :]:
                births = frame.births
                low = bisect_right(births, index)
                high = bisect_right(births, base, low)
                if high > low:
                    update(zip(frame.changed[low:high], frame.saves[low:high], strict=True))
        self.gathered = len(values)
        differing = map(is_not, map(_held, values), values.values())
        for kept, saved in compress(values.items(), differing):
            kept.record.restore(saved, kept.held)
            kept.held = saved
        for kept in dirty:
            if kept not in values:
                saves = kept.saves
                saved = saves[-1] if saves[0] > index else kept.at(index)
                kept.record.restore(saved)
                kept.held = saved

    def drop_from(self, index: int) -> None:
        """Forget keyframe ``index`` and those after it (a command changed their past); the
        engine's state must follow an earlier one. Keyframe 0 stays."""
        if index <= self._base:
            raise ValueError("the engine's state follows a keyframe that would be dropped")
        dropped = self._frames[index:]
        if not dropped:
            return
        base = self._base
        for frame in dropped:
            for kept in (*frame.born, *frame.changed):
                if not kept.drop_from(index):
                    kept.record.versions = None
                elif kept.saves[0] > base and kept.held is not kept.saves[-1]:
                    # Outside the state: it holds its last values, now those of a keyframe kept.
                    kept.held = kept.saves[-1]
                    kept.record.restore(kept.held)
        last = self._frames[index - 1]
        for part, values in zip(self._parts, last.scalars, strict=True):
            part.forget_ahead(values)
        for (keys, records), length in zip(self._born, last.lengths, strict=True):
            del keys[length:], records[length:]
        self._events.truncate(last.log_length)
        del self._frames[index:]
        if self._rebuilt[0] >= index:
            self._rebuilt = (-1, ())
        self._last_containers = self._rebuild(index - 1)

    def _copies(self, logged_too: bool) -> tuple:
        """The containers' copies now; those of the containers that log their changes (the
        heaps) only if ``logged_too``, else None. A keyframe that is not whole keeps their
        changes, and a restore rebuilds their copies from those: at seed 000's sizes the
        heaps hold 80,000 items, and copying them at every keyframe (with their changes
        counted through a set of the pushed items' ids) cost 190 M instructions of a
        recording's 8,370 M."""
        logged = self._logged_at
        return tuple(
            container.snapshot() if logged_too or position not in logged else None
            for position, container in enumerate(self._containers)
        )

    def _rebuild(self, index: int) -> tuple:
        """The containers' copies at keyframe ``index``, rebuilt from the last whole copy at or
        before it. The ones rebuilt last are kept: a step back restores the same keyframe again
        and again."""
        if self._rebuilt[0] == index:
            return self._rebuilt[1]
        first = index - index % WHOLE_EVERY
        whole = self._frames[first].containers
        after = [frame.containers for frame in self._frames[first + 1 : index + 1]]
        copies = []
        for position, (container, copy) in enumerate(zip(self._containers, whole, strict=True)):
            if position in self._logged_at:
                copy = container.rebuild(copy, [kept[position] for kept in after])
            else:
                for kept in after:
                    copy = apply(copy, kept[position])
            copies.append(copy)
        self._rebuilt = (index, tuple(copies))
        return self._rebuilt[1]


def _saved_again(
    known: list[_Versions], index: int, left: set[_Versions]
) -> tuple[array, tuple, tuple, tuple]:
    """Save the records of ``known`` (each saved before) at keyframe ``index``, each with its
    save before, which its cold fields may share (``hot``,
    :func:`engine.model.journaled.journaled`), but those that ``left`` the state, which keep
    their save before and hold values of their own (their ``held`` unknown). By their birth
    (then in the order of ``known``: the sort is stable), what a keyframe keeps of them
    (:class:`_Frame`): their births, the records, their values now and at the keyframe
    before. One loop in Python over them, not a comprehension of the saves and a loop over
    those."""
    births = list(map(_first, map(_saves_of, known)))
    order = sorted(range(len(births)), key=births.__getitem__)
    kepts = tuple(map(known.__getitem__, order))
    previous = tuple(map(_last, map(_saves_of, kepts)))
    saves: list[tuple] = []
    keep = saves.append
    for kept, before in zip(kepts, previous, strict=True):
        if kept in left:
            kept.held = None
            keep(before)
        else:
            saved = kept.record.save(before)
            kept.saves += (index, saved)
            kept.held = saved
            keep(saved)
    births.sort()  # as ``order`` has them
    return array("i", births), kepts, tuple(saves), previous


def _tail(table: dict, length: int) -> tuple[list, list]:
    """The keys and the records of ``table`` after its first ``length``, in order (O(what is
    after)); two lists, as a tuple per item would cost 64 bytes more."""
    count = len(table) - length
    keys, records = (
        list(islice(reversed(table), count)),
        list(islice(reversed(table.values()), count)),
    )
    keys.reverse()
    records.reverse()
    return keys, records


def _versions_of(records: Iterable[Any]) -> Iterator[_Versions | None]:
    """Each record's versions, None for a record no keyframe saved (a C loop: ``getattr`` with
    a default, as a record loaded from an older pickle has the field unset)."""
    return map(getattr, records, repeat(_VERSIONS), repeat(None))


def _new_live(live: dict) -> list:
    """The records ``live`` gained since the last keyframe, in order: its last ones, after the
    last record a keyframe saved (one with versions). A live table gains records only as
    new ones, inserted at its end (:meth:`engine.rewind.live_state.StatePart.live_tables`),
    and a restore puts a keyframe's records back before any is gained, so the new ones follow
    every one it held at the last keyframe. A scan from the end stops at the first record
    known: about 110 records a keyframe at seed 000's sizes, where a scan of the whole table
    looked at 900 (171 M of the keyframes' 2,096 M instructions, callgrind)."""
    known = map(is_not, _versions_of(reversed(live.values())), repeat(None))
    count = next(compress(range(len(live)), known), len(live))
    records = list(islice(reversed(live.values()), count))
    records.reverse()
    return records


def _truncate(table: dict, length: int) -> None:
    """Keep the first ``length`` items of ``table`` (O(what goes), or a rebuild when most do)."""
    extra = len(table) - length
    if extra <= 0:
        return
    if extra > length:
        kept = list(islice(table.items(), length))
        table.clear()
        table.update(kept)
    else:
        for _ in range(extra):
            table.popitem()
