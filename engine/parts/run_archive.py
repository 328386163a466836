"""The run archive: finished runs out of the live state, in columns of plain values.

Why: a finished run's record, its attempts and its entries in the store's tables cost about 580
bytes as Python objects, for as long as the engine lives, though nothing live reads most of them
again. A headless run of a fleet makes hundreds of thousands of them a day. Here a finished run is
a row of machine integers in an array (with one attempt and its lookup entry, about 140 bytes),
so an engine that archives grows with its history at a quarter of the rate, and its live tables
(the ones every tick walks, and the cycle collector with them) hold live work only.

A run is archived once it is final and its tick is over (:meth:`OccurrenceStore.archive_finished`):
what still names it afterwards (a stale timer, a late report, a status question) finds it here
through the store, never in the live table. Reading an archived run builds an
:class:`~engine.model.records.Occurrence` equal to the one archived, a new object each time:
compare with ``==``, never ``is``, and never change it (it is not the engine's).

The archive is append-only, so going back to an earlier length is a truncation (:meth:`truncate`):
a keyframe of the engine (:mod:`engine.rewind.frames`) keeps the archive's length. A truncation
hides the rows after that length rather than deleting them (they stay in the columns and in the
per-job lookup, which skips them), so it costs a count of their states, not a row at a time; and
going forward again (:meth:`advance`) shows them again. A replay after a rewind archives the same
runs again: a run that matches the row hidden at its place shows that row; one that does not
means the history changed, and every hidden row is dropped (:meth:`drop_hidden`).

An engine that does not rewind may instead forget (:meth:`RunArchive.forget`): each job's runs
scheduled before a floor tick leave the archive (but the latest of them, for a job whose status
reads it), and the job's *forgotten before* tick records how far its history is gone, so that
what asks about a run behind it can be told "forgotten" rather than "no such run": a job whose
runs are all forgotten costs that tick alone (a few bytes in a pickle). Lengths then no longer
count from the first run archived, so an archive that forgot refuses to be truncated behind the
length it had right after (its floor): a length taken since counts the rows kept then, and
truncating to it takes exactly the runs archived after it (the live dashboard rewinds an engine
loaded from a service's snapshot, which forgot, to keyframes taken after the load).
"""

from __future__ import annotations

import bisect
import itertools
import json
import struct
import zlib
from array import array
from collections.abc import Iterator, Sequence

from engine.model.records import (
    Attempt,
    AttemptOutcome,
    CancelReason,
    Occurrence,
    OccurrenceState,
)

Key = tuple[str, int]

_STATES = tuple(OccurrenceState)
_STATE_CODE = {state: code for code, state in enumerate(_STATES)}
_OUTCOMES = tuple(AttemptOutcome)
_OUTCOME_CODE = {outcome: code for code, outcome in enumerate(_OUTCOMES)}
_REASONS = (None, *CancelReason)
_REASON_CODE = {reason: code for code, reason in enumerate(_REASONS)}
_NONE = -(2**63)
"""A column's stand-in for None (no timeout, an attempt with no end)."""


def _or_none(value: int) -> int | None:
    return None if value == _NONE else value


def _pack(job_ids: list[str]) -> bytes:
    """Job ids as one compressed text (see :meth:`RunArchive.__getstate__`)."""
    return zlib.compress(json.dumps(job_ids).encode())


def _unpack(packed: bytes) -> list[str]:
    return json.loads(zlib.decompress(packed))


def _squeeze(values: array, width: int) -> bytes:
    """Rows of ``width`` integers as one compressed text, column by column: a column that
    counts in equal steps (a job code, a row number, a state all alike) as its first value and
    step, the others as they are. A service's snapshot holds each job's latest run, rows of
    nearly the same values: they cost a few bytes a row, and load in C, without a step a value.
    One bytes object, not a tuple of parts: every object a snapshot's pickle meets here first
    pushes the memo positions of everything after it, and past the 256th a reference to one
    grows by three bytes (a few dozen objects here cost a snapshot of 20,000 jobs 250 kB)."""
    rows = len(values) // width
    header, plain = array("q", (rows,)), array("q")
    for field in range(width):
        column = values[field::width]
        first = column[0] if rows else 0
        step = column[1] - first if rows > 1 else 0
        if _NONE <= step < -_NONE and column == _progression(first, step, rows):
            header.extend((1, first, step))
        else:
            header.extend((0, 0, 0))
            plain.extend(column)
    return zlib.compress(header.tobytes() + plain.tobytes())


def _progression(first: int, step: int, count: int) -> array | None:
    """``count`` values from ``first`` in steps of ``step``; None if they leave 64 bits (a
    column holding the stand-in for None and a tick counts in no such steps)."""
    if step == 0:
        return array("q", (first,)) * count
    try:
        return array("q", range(first, first + step * count, step))
    except OverflowError:
        return None


def _unsqueeze(packed: bytes, width: int) -> array:
    """The rows :func:`_squeeze` packed."""
    squeezed = array("q")
    squeezed.frombytes(zlib.decompress(packed))
    rows, at = squeezed[0], 1 + 3 * width
    values = array("q", (0,)) * (rows * width)
    for field in range(width):
        counts, first, step = squeezed[1 + 3 * field : 4 + 3 * field]
        if counts:
            values[field::width] = _progression(first, step, rows)  # type: ignore[assignment]
        else:
            values[field::width] = squeezed[at : at + rows]
            at += rows
    return values


class _JobRuns:
    """One job's archived runs: their scheduled ticks in order, and each one's row; and the
    job's code. A job with one run (what forgetting leaves most jobs) has no such object: the
    per-job index holds that run's row alone (:meth:`RunArchive._job_runs`)."""

    __slots__ = ("code", "forgotten_before", "rows", "ticks")

    def __init__(self, code: int) -> None:
        self.code = code
        self.ticks = array("q")
        self.rows = array("q")
        self.forgotten_before = _NONE
        """Only in an archive an older cronlapse pickled: the archive's ``_forgotten`` holds it
        now (moved there on load, :meth:`RunArchive.__setstate__`)."""

    def add(self, scheduled: int, row: int) -> None:
        ticks = self.ticks
        if not ticks or ticks[-1] < scheduled:  # runs mostly end in the order they were due
            ticks.append(scheduled)
            self.rows.append(row)
            return
        at = bisect.bisect_left(ticks, scheduled)
        ticks.insert(at, scheduled)
        self.rows.insert(at, row)

    def row(self, scheduled: int) -> int | None:
        ticks = self.ticks
        if not ticks or scheduled > ticks[-1]:
            return None
        at = bisect.bisect_left(ticks, scheduled)
        return self.rows[at] if ticks[at] == scheduled else None


_RUN_WIDTH = 10
"""A run's row: job code, scheduled, state code, max attempts, priority, ready since, duration,
timeout, cancel reason code, its first attempt's row."""
_JOB, _SCHEDULED, _STATE, _MAX_ATTEMPTS, _PRIORITY, _READY, _DURATION, _TIMEOUT, _REASON, _FIRST = (
    range(_RUN_WIDTH)
)
_ATTEMPT_WIDTH = 5
"""An attempt's row: number, worker code, started, ended, outcome code."""
_RUN_ROW = struct.Struct(f"{_RUN_WIDTH}q").pack
_ATTEMPT_ROW = struct.Struct(f"{_ATTEMPT_WIDTH}q").pack
"""A row's bytes, appended to its column with ``frombytes``: ``array.extend`` of a tuple
converts each value through ``PyArg_Parse``, three times the cost of packing them in C."""


class RunArchive:
    """Finished runs by ``(job id, scheduled tick)``, as fixed-width rows of 64-bit integers.

    Rows, not a column per field: archiving a run is then one ``extend`` of a tuple (and one
    per attempt), where a column per field cost a call per field, a tenth of seed 001's play
    (measured with cProfile on 3,000 jobs). A row costs 80 bytes, an attempt 40."""

    def __init__(self) -> None:
        self._job_ids: list[str] = []
        self._worker_ids: list[str] = []
        self._worker_code: dict[str, int] = {}
        self._by_job: dict[str, _JobRuns | int] = {}
        """The jobs with archived runs (a job whose runs were all forgotten has no entry): the
        row of a job's run if it has one, else its :class:`_JobRuns`. Most jobs of a service
        keep one run (the latest) once it forgets: an integer a job, where an index object and
        its two columns cost half a kilobyte."""
        self._forgotten: dict[str, int] = {}
        """Each job's forgotten-before tick, for the jobs whose runs were forgotten: the one thing
        an archive keeps of a job whose runs it forgot (a tick a job, not a run)."""
        self._runs = array("q")
        self._attempts = array("q")
        self._state_counts = [0] * len(_STATES)
        # The rare fields, by row: a cascade's cause, a retry's backoff when a waiting retry
        # was cancelled.
        self._cause: dict[int, str] = {}
        self._retry: dict[int, tuple[int | None, int | None]] = {}
        # Counting through forgetting: the rows kept at the last forget come first, then those
        # archived since, whose sequence numbers (the order of archiving) follow ``_base``.
        self._kept = 0
        self._base = 0
        self._length = 0
        """The rows shown; those after it in the columns are hidden by a truncation."""

    # ---------------------------------------------------------------- pickling

    def __getstate__(self) -> dict:
        """The columns squeezed (:func:`_squeeze`: a service's snapshot holds each job's latest
        run, a row of nearly the same values a job); the per-job index and the job codes left
        out (rebuilt from the rows, which name their job and tick); and the forgotten-before
        ticks grouped by tick, each job by its code (or its id, for a job with no run left).
        Job ids go as one compressed text, not a reference to each: the thousands of ids a
        snapshot's pickle would meet here first push the memo positions of everything after
        them past one byte, and every later reference grows by three (measured: 25 bytes a
        job). Most jobs share the horizon of the last forget, so a job costs a few bits of
        that."""
        state = dict(self.__dict__)
        for name in ("_by_job", "_job_ids", "_forgotten", "_runs", "_attempts"):
            del state[name]
        state["_squeezed_rows"] = (
            _pack(self._job_ids),
            _squeeze(self._runs, _RUN_WIDTH),
            _squeeze(self._attempts, _ATTEMPT_WIDTH),
        )
        codes = {job_id: code for code, job_id in enumerate(self._job_ids)}
        by_tick: dict[int, tuple[array, list[str]]] = {}
        for job_id, before in self._forgotten.items():
            group = by_tick.get(before)
            if group is None:
                group = by_tick[before] = (array("q"), [])
            code = codes.get(job_id)
            if code is None:
                group[1].append(job_id)
            else:
                group[0].append(code)
        state["_forgotten_codes"] = [
            (before, _squeeze(in_index, 1), _pack(others))
            for before, (in_index, others) in by_tick.items()
        ]
        return state

    def __setstate__(self, state: dict) -> None:
        """Also loads an archive an older cronlapse pickled: its columns as arrays, its per-job
        index as arrays or as objects with the job codes beside them, each job's
        forgotten-before tick on its entry in the index or by id."""
        state = dict(state)
        by_tick = state.pop("_forgotten_by_tick", None)
        by_code = state.pop("_forgotten_codes", None)
        packed = state.pop("_packed_jobs", None)
        columns = state.pop("_squeezed_rows", None)
        job_code = state.pop("_job_code", None)
        self.__dict__.update(state)
        if columns is not None:
            self._job_ids = _unpack(columns[0])
            self._runs = _unsqueeze(columns[1], _RUN_WIDTH)
            self._attempts = _unsqueeze(columns[2], _ATTEMPT_WIDTH)
            self._index_rows()
        elif packed is not None:
            job_ids, counts, ticks, rows = packed
            self._job_ids = _unpack(job_ids)
            self._by_job, at = {}, 0
            for code, (job_id, count) in enumerate(zip(self._job_ids, counts, strict=True)):
                if count == 1:
                    self._by_job[job_id] = rows[at]
                else:
                    job_runs = self._by_job[job_id] = _JobRuns(code)
                    job_runs.ticks, job_runs.rows = ticks[at : at + count], rows[at : at + count]
                at += count
        elif job_code is not None:  # the index's objects as an older cronlapse pickled them
            for job_id, job_runs in self._by_job.items():
                job_runs.code = job_code[job_id]  # type: ignore[union-attr]
        if by_code is not None:
            job_ids, self._forgotten = self._job_ids, {}
            for before, in_index, others in by_code:
                self._forgotten.update(
                    dict.fromkeys(map(job_ids.__getitem__, _unsqueeze(in_index, 1)), before)
                )
                self._forgotten.update(dict.fromkeys(_unpack(others), before))
        elif by_tick is None:
            self._forgotten = {
                job_id: job_runs.forgotten_before
                for job_id, job_runs in self._by_job.items()
                if job_runs.__class__ is _JobRuns and job_runs.forgotten_before != _NONE
            }
        else:
            # The ids the index holds already, not a second string a job.
            same = {job_id: job_id for job_id in self._by_job}
            self._forgotten = {
                same.get(job_id, job_id): before
                for before, job_ids in by_tick
                for job_id in _unpack(job_ids)
            }

    def _index_rows(self) -> None:
        """The per-job index of the rows (shown and hidden), as :meth:`add` built it. Once a
        forget renumbered the jobs, each job's code is the order of its first row, so where
        every job has one row the ``n``-th row is the ``n``-th job's: the index is then made
        in C, without a step a job."""
        job_ids, runs = self._job_ids, self._runs
        codes = runs[_JOB::_RUN_WIDTH]
        if len(codes) == len(job_ids) and codes == array("q", range(len(codes))):
            self._by_job = dict(zip(job_ids, range(len(codes)), strict=True))
            return
        self._by_job = by_job = {}
        for row, code in enumerate(codes):
            job_id = job_ids[code]
            entry = by_job.get(job_id)
            if entry is None:
                by_job[job_id] = row
                continue
            if entry.__class__ is int:
                entry = by_job[job_id] = self._expanded(entry)
            entry.add(runs[row * _RUN_WIDTH + _SCHEDULED], row)
        for code, job_id in enumerate(job_ids):
            if job_id not in by_job:  # its runs were dropped as hidden: it keeps its code
                by_job[job_id] = _JobRuns(code)

    # ---------------------------------------------------------------- writing

    def add(self, occurrence: Occurrence) -> None:
        """Archive a final run (its record is the caller's to drop)."""
        self.add_all((occurrence,))

    def add_all(self, occurrences: Sequence[Occurrence]) -> None:
        """Archive final runs in order (a tick's): one loop with the columns and tables read
        once, not once a run (the archive cost a sixth of a headless play's instructions).

        In a replay after a rewind, a run that matches the row hidden at its place shows that
        row; the first that does not drops every hidden row (:meth:`drop_hidden`)."""
        at = 0
        while at < len(occurrences) and len(self._runs) > self._length * _RUN_WIDTH:
            if not self._matches_hidden(occurrences[at], self._length):
                self.drop_hidden()
                break
            self.advance(self._length + 1)
            at += 1
        row = self._length
        self._length = row + len(occurrences) - at
        by_job, job_ids, runs, attempts = self._by_job, self._job_ids, self._runs, self._attempts
        counts, worker_code, worker_ids = self._state_counts, self._worker_code, self._worker_ids
        for occurrence in itertools.islice(occurrences, at, None):
            job_id, scheduled = occurrence.key
            entry = by_job.get(job_id)
            if entry is None:
                code = len(job_ids)
                job_ids.append(job_id)
                by_job[job_id] = row
            else:
                if entry.__class__ is int:
                    entry = by_job[job_id] = self._expanded(entry)
                entry.add(scheduled, row)
                code = entry.code
            state = _STATE_CODE[occurrence.state]
            counts[state] += 1
            timeout = occurrence.timeout
            runs.frombytes(
                _RUN_ROW(
                    code,
                    scheduled,
                    state,
                    occurrence.max_attempts,
                    occurrence.priority,
                    occurrence.ready_since,
                    occurrence.duration,
                    _NONE if timeout is None else timeout,
                    _REASON_CODE[occurrence.cancel_reason],
                    len(attempts) // _ATTEMPT_WIDTH,
                )
            )
            if occurrence.cancel_cause is not None:
                self._cause[row] = occurrence.cancel_cause
            if occurrence.eligible_at is not None or occurrence.retry_delay is not None:
                self._retry[row] = (occurrence.eligible_at, occurrence.retry_delay)
            for attempt in occurrence.attempts:
                worker = worker_code.get(attempt.worker_id)
                if worker is None:
                    worker = worker_code[attempt.worker_id] = len(worker_ids)
                    worker_ids.append(attempt.worker_id)
                ended = attempt.ended
                attempts.frombytes(
                    _ATTEMPT_ROW(
                        attempt.number,
                        worker,
                        attempt.started,
                        _NONE if ended is None else ended,
                        _OUTCOME_CODE[attempt.outcome],
                    )
                )
            row += 1

    def truncate(self, length: int) -> None:
        """Go back to the first ``length`` runs archived: the later ones are hidden, kept for
        :meth:`advance`. O(1) in Python (a count of their states in C). Once runs were
        forgotten, only to a length taken since (at least the rows then kept)."""
        if length < self._kept < self._base:
            raise ValueError(
                f"an archive that forgot runs cannot go back behind its floor ({self._kept} "
                f"runs kept when it forgot) to {length}"
            )
        if length < self._length:
            self._count_states(length, self._length, -1)
            self._length = length

    def reaches(self, length: int) -> bool:
        """Whether :meth:`advance` can show ``length`` runs (the rows are there, hidden)."""
        return length * _RUN_WIDTH <= len(self._runs)

    def advance(self, length: int) -> None:
        """Show the hidden rows up to ``length`` again: going forward past a stretch played
        before costs a count of their states, not a replay of it."""
        if not self._length <= length or not self.reaches(length):
            raise ValueError(f"an archive of {self._length} runs cannot advance to {length}")
        self._count_states(self._length, length, 1)
        self._length = length

    def drop_hidden(self) -> None:
        """Forget the hidden rows: the history changed after the runs shown, so they are
        another future's. O(the rows dropped)."""
        length, runs = self._length, self._runs
        stored = len(runs) // _RUN_WIDTH
        if stored == length:
            return
        by_job = self._by_job
        for row in range(stored - 1, length - 1, -1):
            job_id = self._job_ids[runs[row * _RUN_WIDTH + _JOB]]
            job_runs = by_job[job_id]
            if job_runs.__class__ is int:
                # Its one run goes: the job keeps its code, with no run.
                job_runs = by_job[job_id] = self._expanded(job_runs)
            at = len(job_runs.rows) - 1
            if job_runs.rows[at] != row:
                at = job_runs.rows.index(row)
            del job_runs.ticks[at]
            del job_runs.rows[at]
            self._cause.pop(row, None)
            self._retry.pop(row, None)
        del self._attempts[runs[length * _RUN_WIDTH + _FIRST] * _ATTEMPT_WIDTH :]
        del runs[length * _RUN_WIDTH :]

    def _count_states(self, start: int, stop: int, sign: int) -> None:
        """Add ``sign`` times the states of rows ``start`` to ``stop`` to the counts."""
        states = self._runs[start * _RUN_WIDTH + _STATE : stop * _RUN_WIDTH : _RUN_WIDTH]
        counts = self._state_counts
        for code in range(len(_STATES)):
            counts[code] += sign * states.count(code)

    def _matches_hidden(self, occurrence: Occurrence, row: int) -> bool:
        """Whether ``occurrence`` is the run hidden at ``row``, as archived then."""
        key = occurrence.key
        entry = self._by_job.get(key[0])
        return (
            entry is not None
            and self._entry_row(entry, key[1]) == row
            and self._record(row) == occurrence
        )

    def _expanded(self, row: int) -> _JobRuns:
        """The index object of a job whose one run is at ``row`` (for a second run)."""
        base = row * _RUN_WIDTH
        job_runs = _JobRuns(self._runs[base + _JOB])
        job_runs.add(self._runs[base + _SCHEDULED], row)
        return job_runs

    def _entry_row(self, entry: _JobRuns | int, scheduled: int) -> int | None:
        """The row of the job's run at ``scheduled`` in its index entry, if it has one there
        (shown or hidden)."""
        if entry.__class__ is int:
            return entry if self._runs[entry * _RUN_WIDTH + _SCHEDULED] == scheduled else None
        return entry.row(scheduled)  # type: ignore[union-attr]

    # ---------------------------------------------------------------- reading

    def __len__(self) -> int:
        """How many runs the archive holds (those forgotten or hidden are not among them)."""
        return self._length

    @property
    def total(self) -> int:
        """How many runs were ever archived, forgotten ones included."""
        return self._base + len(self) - self._kept

    def forgotten_before(self, job_id: str) -> int | None:
        """The tick before which the job's archived runs were forgotten (but the latest of them,
        if the forget kept it); None if none of its runs was."""
        return self._forgotten.get(job_id)

    def is_forgotten(self, key: Key) -> bool:
        """Whether ``key``'s tick lies behind its job's forgotten-before tick and the archive
        holds no run there: a run it had there is gone, and whether it had one is not known."""
        before = self._forgotten.get(key[0])
        return before is not None and key[1] < before and self._row(key) is None

    def __contains__(self, key: object) -> bool:
        job_id, scheduled = key  # type: ignore[misc]
        job_runs = self._by_job.get(job_id)
        if job_runs is None:
            return False
        if job_runs.__class__ is int:
            return self._row(key) is not None  # type: ignore[arg-type]
        ticks = job_runs.ticks
        # The common question (a job's cursor, walking on): a run after every one archived.
        if not ticks or scheduled > ticks[-1]:
            return False
        return self._row(key) is not None  # type: ignore[arg-type]

    def _row(self, key: Key) -> int | None:
        entry = self._by_job.get(key[0])
        row = None if entry is None else self._entry_row(entry, key[1])
        return None if row is None or row >= self._length else row

    def state(self, key: Key) -> OccurrenceState | None:
        """The archived run's final state; None if it is not archived."""
        row = self._row(key)
        return None if row is None else _STATES[self._runs[row * _RUN_WIDTH + _STATE]]

    def ready_and_priorities(self) -> dict[Key, tuple[int, int]]:
        """Each archived run's ``ready_since`` and ``priority`` by key, read from the columns
        in C without building a record (the latency figures read them for every run: a seek a
        run cost a quarter of a sweep's variant)."""
        runs, stop = self._runs, self._length * _RUN_WIDTH
        jobs = map(self._job_ids.__getitem__, runs[_JOB:stop:_RUN_WIDTH])
        keys = zip(jobs, runs[_SCHEDULED:stop:_RUN_WIDTH], strict=True)
        values = zip(runs[_READY:stop:_RUN_WIDTH], runs[_PRIORITY:stop:_RUN_WIDTH], strict=True)
        return dict(zip(keys, values, strict=True))

    def get(self, key: Key) -> Occurrence | None:
        """The archived run as a record equal to the one archived; None if it is not archived."""
        row = self._row(key)
        return None if row is None else self._record(row)

    def count(self, state: OccurrenceState) -> int:
        return self._state_counts[_STATE_CODE[state]]

    def keys(self, state: OccurrenceState | None = None) -> Iterator[Key]:
        """The archived runs' keys in the order they were archived (of one state, if given)."""
        job_ids, runs = self._job_ids, self._runs
        code = None if state is None else _STATE_CODE[state]
        for base in range(0, self._length * _RUN_WIDTH, _RUN_WIDTH):
            if code is None or runs[base + _STATE] == code:
                yield (job_ids[runs[base + _JOB]], runs[base + _SCHEDULED])

    def job_ticks(self, job_id: str, since: int) -> Iterator[int]:
        """The scheduled ticks of the job's archived runs from ``since`` on, in order: a seek in
        the job's own column, so a page deep in a long history costs what the first costs."""
        job_runs = self._by_job.get(job_id)
        if job_runs is None:
            return iter(())
        if job_runs.__class__ is int:
            tick = self._runs[job_runs * _RUN_WIDTH + _SCHEDULED]
            return iter((tick,) if tick >= since and job_runs < self._length else ())
        ticks = job_runs.ticks
        at = bisect.bisect_left(ticks, since)
        if len(self._runs) == self._length * _RUN_WIDTH:
            return itertools.islice(ticks, at, None)
        shown, length = (
            itertools.islice(zip(ticks, job_runs.rows, strict=True), at, None),
            self._length,
        )
        return (tick for tick, row in shown if row < length)

    def records(self, start: int = 0) -> Iterator[Occurrence]:
        """The archived runs from the ``start``-th on (counting every run ever archived) as
        records, in the order they were archived; raises ValueError if some were forgotten."""
        if start < self._base:
            raise ValueError(f"archived runs from the {start}-th on were partly forgotten")
        return map(self._record, range(self._kept + start - self._base, len(self)))

    # ---------------------------------------------------------------- forgetting

    def forget(self, floors: dict[str, int]) -> int:
        """Drop each job's runs scheduled before its floor in ``floors`` but the latest of them
        (what its status word reads, and a dependent created later: its upstream's latest run
        at or before each of its own); a job not in ``floors`` keeps every run. Returns how
        many runs were dropped.

        Costs the rows kept, not those dropped: the kept ones are copied to new columns, in
        the order they were archived, and the old columns go; a job left with no run leaves
        the per-job index, its forgotten-before tick alone staying."""
        self.drop_hidden()
        forgotten = self._forgotten
        for job_id, before in forgotten.items():
            if job_id not in self._by_job:
                floor = floors.get(job_id)
                if floor is not None and floor > before:
                    forgotten[job_id] = floor
        keep: list[int] = []
        for job_id, job_runs in self._by_job.items():
            floor = floors.get(job_id)
            if job_runs.__class__ is int:  # one run, the latest: it stays
                keep.append(job_runs)
                if floor is not None and floor > forgotten.get(job_id, _NONE):
                    forgotten[job_id] = floor
                continue
            if floor is None or floor <= forgotten.get(job_id, _NONE):
                keep += job_runs.rows
                continue
            forgotten[job_id] = floor
            at = bisect.bisect_left(job_runs.ticks, floor)
            if at:
                at -= 1
            keep += job_runs.rows[at:]
        dropped = len(self) - len(keep)
        if dropped:
            self._keep_rows(sorted(keep))
        return dropped

    def _keep_rows(self, rows: list[int]) -> None:
        """Rebuild the columns with ``rows`` only (in that order), renumbering what refers to
        a row."""
        old_runs, old_attempts = self._runs, self._attempts
        runs, attempts = array("q"), array("q")
        renumbered: dict[int, int] = {}
        counts = [0] * len(_STATES)
        for new, row in enumerate(rows):
            renumbered[row] = new
            base, after = row * _RUN_WIDTH, (row + 1) * _RUN_WIDTH
            first = old_runs[base + _FIRST] * _ATTEMPT_WIDTH
            last = old_runs[after + _FIRST] * _ATTEMPT_WIDTH if after < len(old_runs) else None
            fields = old_runs[base:after]
            fields[_FIRST] = len(attempts) // _ATTEMPT_WIDTH
            counts[fields[_STATE]] += 1
            runs.extend(fields)
            attempts.extend(old_attempts[first:last])
        self._base, self._kept, self._length = self.total, len(rows), len(rows)
        self._runs, self._attempts, self._state_counts = runs, attempts, counts
        self._cause = {renumbered[r]: v for r, v in self._cause.items() if r in renumbered}
        self._retry = {renumbered[r]: v for r, v in self._retry.items() if r in renumbered}
        by_job: dict[str, _JobRuns | int] = {}
        for job_id, job_runs in self._by_job.items():
            if job_runs.__class__ is int:
                if job_runs in renumbered:
                    by_job[job_id] = renumbered[job_runs]
                continue
            kept = [
                (tick, renumbered[row])
                for tick, row in zip(job_runs.ticks, job_runs.rows, strict=True)
                if row in renumbered
            ]
            if len(kept) == 1:
                by_job[job_id] = kept[0][1]
            elif kept:
                job_runs.ticks = array("q", (tick for tick, _ in kept))
                job_runs.rows = array("q", (row for _, row in kept))
                by_job[job_id] = job_runs
        self._by_job = by_job
        self._recode_jobs()

    def _recode_jobs(self) -> None:
        """Number the jobs with rows only, in the order of their first row: a job whose runs
        were all forgotten leaves the job columns too."""
        job_ids, code = self._job_ids, {}
        runs = self._runs
        for base in range(_JOB, len(runs), _RUN_WIDTH):
            job_id = job_ids[runs[base]]
            new = code.get(job_id)
            if new is None:
                new = code[job_id] = len(code)
            runs[base] = new
        self._job_ids = list(code)
        for job_id, job_runs in self._by_job.items():
            if job_runs.__class__ is _JobRuns:
                job_runs.code = code[job_id]

    def _record(self, row: int) -> Occurrence:
        runs, base = self._runs, row * _RUN_WIDTH
        timeout = runs[base + _TIMEOUT]
        occurrence = Occurrence(
            (self._job_ids[runs[base + _JOB]], runs[base + _SCHEDULED]),
            _STATES[runs[base + _STATE]],
            runs[base + _MAX_ATTEMPTS],
            runs[base + _PRIORITY],
            runs[base + _READY],
            runs[base + _DURATION],
            None if timeout == _NONE else timeout,
        )
        attempts, worker_ids = self._attempts, self._worker_ids
        first = runs[base + _FIRST] * _ATTEMPT_WIDTH
        after = base + _RUN_WIDTH
        last = runs[after + _FIRST] * _ATTEMPT_WIDTH if after < len(runs) else len(attempts)
        for at in range(first, last, _ATTEMPT_WIDTH):
            number, worker, started, ended, outcome = attempts[at : at + _ATTEMPT_WIDTH]
            occurrence.attempts.append(
                Attempt(number, worker_ids[worker], started, _or_none(ended), _OUTCOMES[outcome])
            )
        occurrence.cancel_reason = _REASONS[runs[base + _REASON]]
        occurrence.cancel_cause = self._cause.get(row)
        retry = self._retry.get(row)
        if retry is not None:
            occurrence.eligible_at, occurrence.retry_delay = retry
        return occurrence
