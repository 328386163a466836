"""Where a run's time went so far: paused, dependency, slot, worker, backoff, running, and more.

Derived from the run's events and its job's (pause and resume, blocked and unblocked ranges,
held and released runs), up to now. The phases cut the run's life, from its scheduled tick to
now (or to its end), into pieces that do not overlap, so they sum to its life so far:

- *before its backfill*: a run a backfill created, from its logical tick to the backfill (the
  other phases count from there);
- *paused*: it fell due while its job was paused (a pause or a ``scheduler_down`` window), so it
  was not created until the resume caught it up. A pause stops the creation of runs only: a run
  created before it waits for a worker as any other;
- *waiting for a dependency*: BLOCKED, from the ``OccurrenceBlocked`` that opened its job's
  blocked range (its own, or an earlier run's while it fell due) to the ``OccurrenceUnblocked``;
- *waiting for a slot*: held by its overlap rule (its job had ``max_active`` runs active) until
  an ``OccurrenceReleased`` gave it a slot;
- *schedule lag*: the rest of the time before it could take a worker (the engine's own ready
  tick for it, ``ready_since``, is later than the events explain);
- *waiting for a pool slot*: ready, but every slot of its job's pool was taken (before each
  attempt), however many workers were idle;
- *waiting for a worker*: ready, no worker free for it (before each attempt);
- *backoff*: between a failed attempt and the tick its retry became eligible;
- *running*: its attempts, each up to the event that ended it.

Each tick of the life goes to the first of these that covers it, in the order running, backoff,
waiting for a pool slot, waiting for a worker after an attempt, paused, dependency, slot,
waiting for a worker before the first attempt; a tick none covers is schedule lag.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from engine.model import events as ev
from engine.model.job_rules import Overlap
from engine.rules.overlap import ACTIONS, Action

Span = tuple[int, int]
"""Ticks ``[start, stop)``."""

_FINAL = (ev.OccurrenceFailed, ev.OccurrenceCancelled, ev.AttemptSucceeded, ev.OccurrenceSkipped)
"""A run's own events after which it is over (a run in a cancelled backlog has none: its
``BacklogCancelled`` range says so)."""


@dataclass(frozen=True, slots=True)
class Phases:
    schedule_lag: int = 0
    dependency: int = 0
    paused: int = 0
    worker: int = 0
    backoff: int = 0
    running: int = 0
    backfill: int = 0
    slot: int = 0
    pool_slot: int = 0
    pool: str | None = None

    def named(self) -> list[tuple[str, int]]:
        return [
            ("before its backfill", self.backfill),
            ("paused", self.paused),
            ("waiting for a dependency", self.dependency),
            ("waiting for a slot (overlap rule)", self.slot),
            ("schedule lag", self.schedule_lag),
            (f"waiting for a pool slot ({self.pool})", self.pool_slot),
            ("waiting for a worker", self.worker),
            ("backoff", self.backoff),
            ("running", self.running),
        ]


def phases(context: Context, job_id: str, scheduled: int) -> Phases:
    """The phases of the run ``job_id@scheduled``, from its scheduled tick to now or its end."""
    job_events = context.events_of(job_id)
    run = context.run_events(job_id, scheduled)
    end = _end(job_events, run, scheduled, context.now)
    since = next((e.tick for e in run if isinstance(e, ev.RunBackfilled)), scheduled)
    running, backoff, after = _attempt_spans(run, end)
    first = next((e.tick for e in run if isinstance(e, ev.AttemptStarted)), end)
    paused = _caught_up(job_events, scheduled) if since == scheduled else []
    blocked = _blocked(job_events, scheduled, end)
    held = _held(job_events, run, scheduled, end)
    ready = max(
        [since, _engine_ready(context, job_id, scheduled)]
        + [stop for spans in (paused, blocked, held) for _, stop in spans]
    )
    before_first = [(min(ready, first), first)]
    pool = context.engine.query.jobs()[job_id].spec.pool
    full = _intersect(_pool_full(context, pool, end), after + before_first) if pool else []
    painted = _paint(
        (since, end),
        [running, backoff, full, after, paused, blocked, held, before_first],
    )
    ran, backed_off, no_slot, waited_again, was_paused, was_blocked, was_held, waited = painted
    return Phases(
        schedule_lag=end - since - sum(painted),
        dependency=was_blocked,
        paused=was_paused,
        worker=waited_again + waited,
        backoff=backed_off,
        running=ran,
        backfill=since - scheduled,
        slot=was_held,
        pool_slot=no_slot,
        pool=pool,
    )


def phase_lines(context: Context, found: Phases) -> Line:
    """Time in each phase so far, the phases with no time left out."""
    rows = [line(f"{name}: {context.ticks(ticks)}") for name, ticks in found.named() if ticks]
    if not rows:
        rows = [line("no time has passed since it fell due", tag=Tag.NOTE)]
    return section("Time so far", rows)


def _end(
    job_events: Sequence[ev.Event], run: list[ev.OccurrenceEvent], scheduled: int, now: int
) -> int:
    """The tick the run ended at, or now if it has not."""
    for event in run:
        if isinstance(event, _FINAL):
            return event.tick
    for event in job_events:
        if isinstance(event, ev.BacklogCancelled) and event.first <= scheduled <= event.last:
            return event.tick
    return now


def _attempt_spans(
    run: list[ev.OccurrenceEvent], end: int
) -> tuple[list[Span], list[Span], list[Span]]:
    """Its attempts (each to the event that ended it: ``ev.ATTEMPT_ENDS``), its backoffs, and
    its waits for a worker after an attempt ended (to the next start, or to its end)."""
    running: list[Span] = []
    backoff: list[Span] = []
    after: list[Span] = []
    started: int | None = None
    ended: int | None = None
    for event in run:
        if isinstance(event, ev.AttemptStarted):
            if ended is not None:
                after.append((ended, event.tick))
            started, ended = event.tick, None
        elif isinstance(event, ev.ATTEMPT_ENDS) and started is not None:
            running.append((started, event.tick))
            started, ended = None, event.tick
        elif isinstance(event, ev.RetryScheduled):
            backoff.append((event.tick, event.eligible_at))
    if started is not None:
        running.append((started, end))
    if ended is not None:
        after.append((ended, end))
    return running, backoff, after


def _caught_up(job_events: Sequence[ev.Event], scheduled: int) -> list[Span]:
    """From its tick to the resume that created it, if it fell due while its job was paused.

    The runs due at the pause's tick were created before it (a tick's runs are created before
    its commands), so a run fell due while paused when its tick is after the pause's and not
    after the resume's."""
    paused_at: int | None = None
    for event in job_events:
        if isinstance(event, ev.JobPaused):
            paused_at = event.tick
        elif isinstance(event, ev.JobResumed) and paused_at is not None:
            if paused_at < scheduled <= event.tick:
                return [(scheduled, event.tick)]
            paused_at = None
    return []


def _blocked(job_events: Sequence[ev.Event], scheduled: int, end: int) -> list[Span]:
    """The blocked ranges of its job that it was in: opened at this run or an earlier one, and
    not closed before it fell due (a run falling due in an open range is BLOCKED with it)."""
    spans: list[Span] = []
    opened: ev.OccurrenceBlocked | None = None
    for event in job_events:
        if isinstance(event, ev.OccurrenceBlocked):
            opened = event
        elif isinstance(event, ev.OccurrenceUnblocked | ev.BacklogCancelled) and opened is not None:
            if opened.scheduled <= scheduled < event.tick:
                spans.append((opened.tick, event.tick))
            opened = None
    if opened is not None and opened.scheduled <= scheduled:
        spans.append((opened.tick, end))
    return spans


def _held(
    job_events: Sequence[ev.Event], run: list[ev.OccurrenceEvent], scheduled: int, end: int
) -> list[Span]:
    """From its tick to the ``OccurrenceReleased`` that gave it a slot, if its overlap rule held
    it: by its own ``OccurrenceHeld``, or by an earlier run's under a rule that holds every
    later run with it (BufferAll, max_active_runs) until a release empties the buffer."""
    released = next((e.tick for e in run if isinstance(e, ev.OccurrenceReleased)), None)
    if released is not None:
        return [(scheduled, released)]
    if any(isinstance(e, ev.OccurrenceHeld) for e in run):
        return [(scheduled, end)]
    opened: ev.OccurrenceHeld | None = None
    for event in job_events:
        if isinstance(event, ev.OccurrenceHeld) and event.scheduled <= scheduled:
            holds_later = ACTIONS[Overlap(event.policy)] is Action.BUFFER_ALL
            opened = event if holds_later else None
        elif isinstance(event, ev.OccurrenceReleased) and event.emptied and opened is not None:
            if event.tick > scheduled:
                return [(scheduled, event.tick)]
            opened = None
    return [(scheduled, end)] if opened is not None else []


def _pool_full(context: Context, pool: str, end: int) -> list[Span]:
    """The ticks up to ``end`` at whose dispatch every slot of ``pool`` was taken, from the
    attempts of its jobs in the log (an attempt holds a slot from its start to its end)."""
    engine = context.engine
    use = engine.query.pool(pool)
    if use is None:
        return []
    members = {job_id for job_id, job in engine.query.jobs().items() if job.spec.pool == pool}
    change: dict[int, int] = {}
    for _, event in engine.log.select((ev.AttemptStarted, *ev.ATTEMPT_ENDS)):
        if event.tick > end:
            break
        if event.job_id in members:
            step = 1 if isinstance(event, ev.AttemptStarted) else -1
            change[event.tick] = change.get(event.tick, 0) + step
    spans: list[Span] = []
    running = 0
    full_since: int | None = None
    for tick in sorted(change):
        running += change[tick]
        full = running >= use.slots
        if full and full_since is None:
            full_since = tick
        elif not full and full_since is not None:
            spans.append((full_since, tick))
            full_since = None
    if full_since is not None:
        spans.append((full_since, end))
    return spans


def _intersect(spans: list[Span], within: list[Span]) -> list[Span]:
    """The parts of ``spans`` inside ``within``."""
    return [(max(a, c), min(b, d)) for a, b in spans for c, d in within if max(a, c) < min(b, d)]


def _engine_ready(context: Context, job_id: str, scheduled: int) -> int:
    """The tick the engine counts the run as ready from (its aging counts from there)."""
    query = context.engine.query
    record = query.record(job_id, scheduled)
    if record is not None:
        return record.ready_since
    job = query.job(job_id)
    return max(scheduled, job.runnable_since or 0) if job is not None else scheduled


def _paint(life: Span, layers: Iterable[list[Span]]) -> list[int]:
    """The ticks of ``life`` each layer covers, a tick going to the first layer covering it."""
    low, high = life
    clipped = [[(max(low, a), min(high, b)) for a, b in spans] for spans in layers]
    clipped = [[(a, b) for a, b in spans if a < b] for spans in clipped]
    cuts = sorted({low, high, *(tick for spans in clipped for span in spans for tick in span)})
    totals = [0] * len(clipped)
    for start, stop in pairwise(cuts):
        for index, spans in enumerate(clipped):
            if any(a <= start and stop <= b for a, b in spans):
                totals[index] += stop - start
                break
    return totals
