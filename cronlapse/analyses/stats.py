"""What a run amounted to, computed from the event log alone (so any engine run can be summarised).

Attempts are paired from their start and end events; per job it counts runs (attempts started),
successes, failures for good, retries (attempts after the first), runs its overlap rule dropped
(skipped: each ``OccurrenceSkipped``, and a run BufferLatest held and let go when a newer one fell
due, which never starts, as Kubernetes never creates it) and cancellations (a cancelled backlog
counts each of its runs, as their records would), and the
queue wait of each occurrence (its first attempt's start minus its scheduled tick); per worker,
busy ticks over the ticks since it was registered.

A long run is summarised as it goes (:class:`RunStatsReader`, fed the log's new events a stretch
at a time), so the log need not be kept: what is kept is counters per job and worker (with
how many attempts run on each worker), and each job's waits as a count per value
(:class:`Waits`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import field

from engine.model import events as ev
from engine.model.event_log import EVENT_KINDS
from engine.model.job_rules import Overlap
from engine.model.records import AttemptOutcome, CancelReason
from engine.model.values import mutable_record

_ENDINGS: dict[type, AttemptOutcome] = {
    ev.AttemptSucceeded: AttemptOutcome.SUCCEEDED,
    ev.AttemptFailed: AttemptOutcome.FAILED,
    ev.AttemptTimedOut: AttemptOutcome.TIMED_OUT,
    ev.AttemptLost: AttemptOutcome.LOST,
    ev.AttemptTerminated: AttemptOutcome.TERMINATED,
}


@mutable_record
class AttemptRecord:
    """One attempt: where and when it ran, and how it ended (RUNNING if it has not)."""

    job_id: str
    scheduled: int
    attempt: int
    worker_id: str
    start: int
    end: int | None = None
    outcome: AttemptOutcome = AttemptOutcome.RUNNING


def attempt_records(events: Iterable[ev.Event]) -> list[AttemptRecord]:
    """Every attempt in the order they started."""
    records: list[AttemptRecord] = []
    running: dict[tuple[str, int, int], AttemptRecord] = {}
    for event in events:
        if isinstance(event, ev.AttemptStarted):
            record = AttemptRecord(
                event.job_id, event.scheduled, event.attempt, event.worker_id, event.tick
            )
            records.append(record)
            running[(event.job_id, event.scheduled, event.attempt)] = record
            continue
        outcome = _ENDINGS.get(type(event))
        if outcome is not None:
            key = (event.job_id, event.scheduled, event.attempt)  # type: ignore[attr-defined]
            ended = running.pop(key, None)
            if ended is not None:
                ended.end = event.tick
                ended.outcome = outcome
    return records


class Waits:
    """Queue waits (ticks) as a count per value: the summary reads their nearest-rank
    percentiles and maximum, which the counts give exactly, in memory that follows the distinct
    waits (a handful in a fleet), not the runs (a month of a fleet starts millions)."""

    __slots__ = ("_counts",)

    def __init__(self, counts: dict[int, int] | None = None) -> None:
        """Over ``counts`` (how many runs waited each number of ticks) when given: its maker may
        go on counting in it (:class:`RunStatsReader` does, without a call a run)."""
        self._counts: dict[int, int] = {} if counts is None else counts

    @classmethod
    def merged(cls, many: Iterable[Waits]) -> Waits:
        counts: dict[int, int] = {}
        for waits in many:
            for wait, count in waits.counts().items():
                counts[wait] = counts.get(wait, 0) + count
        return cls(counts)

    def counts(self) -> Mapping[int, int]:
        """How many runs waited each number of ticks (read it, never change it)."""
        return self._counts

    def __len__(self) -> int:
        return sum(self._counts.values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Waits) and self._counts == other.counts()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Waits({dict(sorted(self._counts.items()))})"

    def __iter__(self) -> Iterator[int]:
        """Every wait, least first."""
        for wait in sorted(self._counts):
            yield from itertools.repeat(wait, self._counts[wait])

    def percentile(self, share: float) -> int | None:
        """:func:`percentile` of the waits, from their counts."""
        total = len(self)
        if not total:
            return None
        rank = _rank(share, total)
        seen = 0
        for wait in sorted(self._counts):
            seen += self._counts[wait]
            if seen >= rank:
                return wait
        raise AssertionError("a rank beyond the count")

    def max(self) -> int | None:
        return max(self._counts, default=None)


@mutable_record
class JobStats:
    runs: int = 0
    successes: int = 0
    failures: int = 0
    retries: int = 0
    skipped: int = 0
    cancellations: int = 0
    waits: Waits = field(default_factory=Waits)
    """One per run started."""


@mutable_record
class WorkerStats:
    registered: int
    busy: int = 0

    def utilisation(self, now: int) -> float | None:
        """Busy share of the ticks since registration; None before any tick has passed."""
        span = now - self.registered
        return None if span <= 0 else min(1.0, self.busy / span)


@mutable_record
class RunStats:
    now: int
    jobs: dict[str, JobStats] = field(default_factory=dict)
    """By job id, in the order jobs were scheduled."""
    workers: dict[str, WorkerStats] = field(default_factory=dict)
    """By worker id, in registration order."""


def run_stats(log: ev.EventLog, now: int) -> RunStats:
    """The summary of a whole log whose last processed tick is ``now``."""
    reader = RunStatsReader()
    reader.read(log.coded_since(0))
    return reader.summary(now)


class RunStatsReader:
    """The summary of a log read a stretch at a time (each stretch once, in order): a month of
    a fleet logs millions of events, which are neither kept nor paired into records here.
    Nearly all of them start or end an attempt, and those are read from their stored fields
    (:data:`engine.model.events.ATTEMPT_ENDS`); only the others are built.

    An attempt's busy ticks are its end less its start, so a worker's are the sum of its
    attempts' ends less the sum of their starts: each start and end is added to its worker as
    it is read, and no attempt is kept until its end (the log names the worker in both, and
    logs an attempt's start before its end). Pairing each end with its start in a dict was
    134 M of the reader's 600 M instructions for the demo's week (callgrind)."""

    def __init__(self) -> None:
        self._jobs: dict[str, tuple[JobStats, dict[int, int]]] = {}
        """Each job's figures, and the counts its waits are over (see :meth:`read`)."""
        self._workers: dict[str, _WorkerTally] = {}

    def summary(self, now: int) -> RunStats:
        """The summary at ``now`` (the last processed tick, at or after every event read): the
        attempts still running count as busy until then. Reading may go on afterwards."""
        workers = {
            worker_id: WorkerStats(tally.registered, tally.busy + tally.running * now)
            for worker_id, tally in self._workers.items()
        }
        return RunStats(now, {job_id: job for job_id, (job, _) in self._jobs.items()}, workers)

    def read(self, coded: Iterable[tuple[int, tuple]]) -> None:
        """Events as the log stores them, each class given by its code
        (:meth:`~engine.model.event_log.EventLog.coded_since`)."""
        jobs, workers = self._jobs, self._workers
        # The codes looked for at each event, as locals: the kinds as ``ev``'s attributes
        # were 20 M of the reader's 412 M instructions over the demo's week (callgrind).
        started, ends, succeeded = _STARTED, _ENDS, _SUCCEEDED
        for code, fields in coded:
            if code == started:
                tick, job_id, scheduled, attempt, worker_id = fields
                entry = jobs.get(job_id)
                if entry is None:
                    entry = jobs[job_id] = _new_job()
                job, waits = entry
                job.runs += 1
                if attempt == 1:
                    # Counted in the counts under job.waits: a method of Waits called at each
                    # first attempt was 100 M of the 466 M instructions the reader took for
                    # the demo's week (callgrind).
                    wait = tick - scheduled
                    waits[wait] = waits.get(wait, 0) + 1
                else:
                    job.retries += 1
                worker = workers.get(worker_id)
                if worker is None:
                    # A worker the log never registered counts from tick 0, listed at its
                    # first attempt.
                    worker = workers[worker_id] = _WorkerTally(0)
                worker.busy -= tick
                worker.running += 1
            elif code in ends:
                tick, job_id, _, _, worker_id = fields
                worker = workers[worker_id]
                worker.busy += tick
                worker.running -= 1
                if code == succeeded:
                    jobs[job_id][0].successes += 1
            else:
                _count(jobs, workers, EVENT_KINDS[code](*fields))


_STARTED: int = ev.AttemptStarted.code  # type: ignore[attr-defined]
_SUCCEEDED: int = ev.AttemptSucceeded.code  # type: ignore[attr-defined]
_ENDS = frozenset(kind.code for kind in ev.ATTEMPT_ENDS)  # type: ignore[attr-defined]
"""The codes :meth:`RunStatsReader.read` looks for."""


@mutable_record
class _WorkerTally:
    """A worker as :class:`RunStatsReader` follows it: ``busy`` is the ends of its attempts
    less all their starts, and ``running`` how many have not ended (each is busy until the
    summary's tick)."""

    registered: int
    busy: int = 0
    running: int = 0


def _new_job() -> tuple[JobStats, dict[int, int]]:
    """A job's figures as :class:`RunStatsReader` keeps them: with the counts its waits are
    over, which the reader counts in."""
    counts: dict[int, int] = {}
    return JobStats(waits=Waits(counts)), counts


def _count(
    jobs: dict[str, tuple[JobStats, dict[int, int]]],
    workers: dict[str, _WorkerTally],
    event: ev.Event,
) -> None:
    """An event that neither starts nor ends an attempt."""
    if isinstance(event, ev.WorkerRegistered):
        workers.setdefault(event.worker_id, _WorkerTally(event.tick))
        return
    job_id = getattr(event, "job_id", None)
    if job_id is None or isinstance(event, ev.OccurrencesSkipped | ev.JobModified):
        return
    entry = jobs.get(job_id)
    if entry is None:
        entry = jobs[job_id] = _new_job()
    job = entry[0]
    if isinstance(event, ev.OccurrenceFailed):
        job.failures += 1
    elif isinstance(event, ev.OccurrenceSkipped) or _let_go(event):
        job.skipped += 1
    elif isinstance(event, ev.OccurrenceCancelled):
        job.cancellations += 1
    elif isinstance(event, ev.BacklogCancelled):
        job.cancellations += event.runs


def _let_go(event: ev.Event) -> bool:
    """A run BufferLatest held, let go when a newer one fell due."""
    return (
        isinstance(event, ev.OccurrenceCancelled)
        and event.reason is CancelReason.REPLACED
        and event.cause == Overlap.BUFFER_LATEST.value
    )


def percentile(values: Sequence[int], share: float) -> int | None:
    """The nearest-rank percentile (an observed value, never an interpolation); None if empty."""
    return percentile_of_sorted(sorted(values), share)


def percentile_of_sorted(ordered: Sequence[int], share: float) -> int | None:
    """:func:`percentile` of values already in order (a reader of several percentiles of the
    same values sorts them once)."""
    if not ordered:
        return None
    return ordered[_rank(share, len(ordered)) - 1]


def _rank(share: float, count: int) -> int:
    """The nearest rank (from 1) of the ``share`` percentile among ``count`` values."""
    return max(1, -(-int(share * 100) * count // 100))
