"""Liveness: under automatic dispatch no run waits while a worker that could take it is idle.

A run *waits* from the tick it may run (for a job in a pool, while its pool has a slot free:
:mod:`cronlapse.analyses.invariants.pools`): its first attempt from the tick it was created (the
tick it fell due, or its paused job's resume) or unblocked (or released from its job's overlap
buffer:
:mod:`engine.rules.overlap`), a retry from the end of its backoff. It stops waiting when an attempt
starts or it is cancelled; a run skipped by a resume or an overlap rule, held for a slot by one,
or not created because its job is paused, never waits. A worker *could take* any run (workers
are interchangeable) when it is registered, up, not draining and runs nothing: a down worker
cannot, a draining one runs its last attempt and goes down, and under reported completion a
worker stays busy until its attempt is reported.

Replaying the log rebuilds, for the end of every tick, which workers were idle, and for every
run the ticks it waited. Two checks:

- (a) a run that waited at the end of a tick at which a worker was idle, and was taken or
  cancelled later: judged when it stops waiting (through the tick before, which has settled),
  reported at the first such tick;
- (b) a run still waiting at the end of the run that waited while a worker was idle: never
  dispatched, cancelled or skipped; judged through the tick the caller says has settled,
  reported at the end.

Under manual dispatch a created run rightly waits for the caller's next Dispatch, which the log
does not record, so neither check applies (seed 000).
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Callable, Mapping
from functools import partial

from cronlapse.analyses.invariants.facts import JobFacts, Violation
from cronlapse.analyses.invariants.pools import PoolTicks
from engine.core import Engine
from engine.model import events as ev
from engine.model.records import OccurrenceState

S = OccurrenceState
Key = tuple[str, int]


class IdleTicks:
    """The ends of ticks at which some worker was idle, read from the log in order: pieces of
    ticks ``[start, end]``, each with a worker idle throughout."""

    def __init__(self, busy: Mapping[str, object]) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.workers: list[str] = []
        self.now_idle: dict[str, None] = {}
        """The workers idle now, ordered, so the worker named is the same every run; an attempt
        started or ended updates it (:func:`.replay.replay`)."""
        self.busy = busy
        """The workers running an attempt (kept by the safety replay: :class:`.LogSafety`)."""
        self.down: set[str] = set()
        self._tick: int | None = None

    def advance(self, tick: int) -> None:
        """Events of ``tick`` follow: the state after the previous tick's held until now."""
        if self._tick is not None and tick > self._tick:
            self._close(tick - 1)
        self._tick = tick

    def finish(self, through: int) -> None:
        """The state after the last event holds through ``through``."""
        if self._tick is not None and through >= self._tick:
            self._close(through)
            self._tick = through + 1

    def read(self, event: ev.Event) -> None:
        """A worker's own event (attempts update :attr:`now_idle` as they are read)."""
        match event:
            case ev.WorkerRegistered(worker_id=worker_id):
                self.now_idle[worker_id] = None
            case ev.WorkerWentDown(worker_id=worker_id):
                self.down.add(worker_id)
                self.now_idle.pop(worker_id, None)
            case ev.WorkerCameUp(worker_id=worker_id):
                self.down.discard(worker_id)
                if worker_id not in self.busy:
                    self.now_idle[worker_id] = None

    def first(
        self, start: int, end: int, free: Callable[[int, int], int | None] | None = None
    ) -> tuple[int, str] | None:
        """The first tick in ``[start, end]`` at whose end a worker was idle, and that worker;
        with ``free``, the first such tick ``free(from, to)`` accepts (a pool's free slot)."""
        if start > end:
            return None
        index = bisect.bisect_left(self.ends, start)
        while index < len(self.ends) and self.starts[index] <= end:
            low, high = max(self.starts[index], start), min(self.ends[index], end)
            tick = low if free is None else free(low, high)
            if tick is not None:
                return tick, self.workers[index]
            index += 1
        return None

    def closed(self, through: int) -> IdleTicks:
        """A copy whose state after the last event holds through ``through`` (this one reads
        on)."""
        closed = copy.copy(self)
        closed.starts, closed.ends, closed.workers = (
            list(self.starts),
            list(self.ends),
            list(self.workers),
        )
        closed.finish(through)
        return closed

    def _close(self, through: int) -> None:
        assert self._tick is not None
        if not self.now_idle:
            return
        worker = next(iter(self.now_idle))
        if self.ends and self.ends[-1] == self._tick - 1 and self.workers[-1] == worker:
            self.ends[-1] = through
        else:
            self.starts.append(self._tick)
            self.ends.append(through)
            self.workers.append(worker)


class LivenessReplay:
    """Checks (a) and (b) of the module docstring, reading the log as it grows (each event once,
    in order: the attempts by :func:`.replay.replay`, beside the safety replay, the others by
    :meth:`read_other`). What it keeps is live: the runs waiting or running (a run the log
    finishes is forgotten), the idle stretches of workers and pools, and each job's blocked and
    held ranges. Check (a) judges a stretch when the run stops waiting; check (b), at the end."""

    def __init__(
        self, jobs: dict[str, JobFacts], pools: PoolTicks, busy: Mapping[str, object]
    ) -> None:
        self.found: list[Violation] = []
        self.idle = IdleTicks(busy)
        self.pools = pools
        self._jobs = jobs
        """The facts about each job, read up to at least the events read here."""
        self.waiting: dict[Key, int | None] = {}
        """Live runs the log has told about: since when each waits (None: it does not)."""
        self._blocked: dict[str, list[list]] = {}
        """Per job, its blocked ranges: ``[first scheduled tick, tick unblocked or None]``. One
        event opens a range and one closes it; every run created in between waits only from the
        close."""
        self._held: dict[str, list[list]] = {}
        """Per job, the runs its overlap rule held for a slot: ``[first, last or None]`` by
        scheduled tick. A held run does not wait; each one's ``OccurrenceReleased`` says from
        when it does."""
        self.current: int | None = None
        """The tick of the last event read."""

    def since(self, key: Key, at: int) -> int | None:
        waiting = self.waiting
        if key in waiting:
            return waiting[key]
        job_id, scheduled = key
        held = self._held.get(job_id)
        if held:
            for first, last in held:
                if first <= scheduled and (last is None or scheduled <= last):
                    return None
        known = self._jobs.get(job_id)  # not yet touched: implicit, waiting once created
        if known is None:
            return None
        start = known.created_at(scheduled, at) if known.pauses else scheduled
        # A run created while a blocked range that covers it was open waits from the range's
        # end; a job whose runs wait on upstream runs one by one opens a range per run, so the
        # latest such end counts, and one still open means the run does not wait yet.
        blocked = self._blocked.get(job_id)
        if blocked:
            for first, unblocked in blocked:
                if (
                    start is not None
                    and scheduled >= first
                    and (unblocked is None or start < unblocked)
                ):
                    if unblocked is None:
                        return None
                    start = unblocked
        return start

    def advance(self, tick: int) -> None:
        """Events of ``tick`` follow (a later tick than :attr:`current`'s)."""
        self.idle.advance(tick)
        if self.pools.slots:
            self.pools.advance(tick)
        self.current = tick

    def read_other(self, event: ev.Event, tick: int) -> None:
        """An event that neither starts nor ends an attempt (those are read by
        :func:`.replay.replay`). The cases say what makes a run wait or stop waiting; the last,
        what changes a worker."""
        waiting, blocked, held = self.waiting, self._blocked, self._held
        match event:
            case ev.OccurrenceCancelled(job_id=job_id, scheduled=scheduled):
                self.stopped((job_id, scheduled), tick)
                waiting.pop((job_id, scheduled))
            case ev.OccurrenceFailed(job_id=job_id, scheduled=scheduled):
                waiting.pop((job_id, scheduled), None)
            case ev.BacklogCancelled(job_id=job_id, first=first):
                self.stopped((job_id, first), tick)
            case ev.RunBackfilled(job_id=job_id, scheduled=scheduled):
                waiting[(job_id, scheduled)] = tick
            case ev.RetryScheduled(job_id=job_id, scheduled=scheduled, eligible_at=eligible_at):
                waiting[(job_id, scheduled)] = eligible_at
            case ev.OccurrenceBlocked(job_id=job_id, scheduled=scheduled):
                waiting[(job_id, scheduled)] = None
                blocked.setdefault(job_id, []).append([scheduled, None])
            case ev.OccurrenceHeld(job_id=job_id, scheduled=scheduled):
                waiting[(job_id, scheduled)] = None
                held.setdefault(job_id, []).append([scheduled, None])
            case ev.OccurrenceReleased(job_id=job_id, scheduled=scheduled):
                waiting[(job_id, scheduled)] = tick
                if event.emptied:
                    for period in held.get(job_id, ()):
                        if period[1] is None:
                            period[1] = scheduled
            case ev.OccurrenceUnblocked(job_id=job_id, scheduled=scheduled):
                waiting[(job_id, scheduled)] = tick
                for period in blocked.get(job_id, ()):
                    if period[1] is None:
                        period[1] = tick
            case _:
                self.idle.read(event)

    def violations(self, engine: Engine, through: int) -> list[Violation]:
        """Check (a)'s findings so far, and check (b) through the end of tick ``through``
        (reading may go on afterwards)."""
        found = list(self.found)
        idle, pools = self.idle.closed(through), self.pools.closed(through)
        for key in _still_waiting(engine):
            start = self.since(key, engine.now)
            hit = _chance(idle, pools, key, start, through) if start is not None else None
            if hit is not None:
                text = (
                    f"{key[0]}@{key[1]} still waits at the end (it could run from tick {start}), "
                    f"though {hit[1]} was idle at the end of tick {hit[0]}: it was never "
                    "dispatched, cancelled or skipped"
                )
                found.append(Violation(through, text))
        return found

    def stopped(self, key: Key, tick: int) -> None:
        """The run stopped waiting at ``tick``: had it waited at the end of an earlier tick at
        which it could have been taken?"""
        start = self.since(key, tick)
        # Most runs start at the tick they may: no earlier tick to look at, and no call.
        hit = (
            _chance(self.idle, self.pools, key, start, tick - 1)
            if start is not None and start < tick
            else None
        )
        if hit is not None:
            text = (
                f"{key[0]}@{key[1]} waited at the end of the tick while {hit[1]} was idle "
                f"(it could run from tick {start})"
            )
            self.found.append(Violation(hit[0], text))
        self.waiting[key] = None


def _chance(
    idle: IdleTicks, pools: PoolTicks, key: Key, start: int, end: int
) -> tuple[int, str] | None:
    """The first tick in ``[start, end]`` at which the run could have been taken: a worker idle
    and, for a pooled job, a slot of its pool free."""
    pool = pools.pool_of.get(key[0])
    return idle.first(start, end, None if pool is None else partial(pools.first_free, pool))


def _still_waiting(engine: Engine) -> list[Key]:
    """Runs waiting now: created and QUEUED (each job's earliest implicit one stands for the
    rest, which became ready no earlier) or RETRY_PENDING."""
    query = engine.query
    keys = list(query.record_keys(S.QUEUED)) + list(query.record_keys(S.RETRY_PENDING))
    for job_id, job in query.jobs().items():
        due = job.next_due
        if (
            due is not None
            and not query.has_record(job_id, due)
            and query.run_state(job_id, due) is S.QUEUED
        ):
            keys.append((job_id, due))
    return keys
