"""Where a run's time went so far: schedule lag, dependency, paused, worker, backoff, running.

Derived from the run's events and its job's pause and resume events, up to now. The phases
cover the run's life from its scheduled tick to now (or to its end) without overlap:

- *paused*: its job was paused (a run caught up on resume waited from its tick to the resume);
- *waiting for a dependency*: it fell due before the jobs it depends on had succeeded;
- *before its backfill*: a run a backfill created, from its logical tick to the backfill (the
  other phases count from there);
- *schedule lag*: the rest of the time before it could take a worker (created late: manual
  dispatch, a late resume);
- *waiting for a worker*: ready, no worker free for it (before each attempt);
- *backoff*: between a failed attempt and the tick its retry became eligible;
- *running*: its attempts.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import events as ev
from engine.explain.context import Context
from engine.explain.lines import Line, Tag, line, section

_ENDS = (ev.AttemptSucceeded, ev.AttemptFailed, ev.AttemptTimedOut, ev.AttemptLost)
_FINAL = (ev.OccurrenceFailed, ev.OccurrenceCancelled, ev.AttemptSucceeded)


@dataclass(frozen=True, slots=True)
class Phases:
    schedule_lag: int = 0
    dependency: int = 0
    paused: int = 0
    worker: int = 0
    backoff: int = 0
    running: int = 0
    backfill: int = 0

    def named(self) -> list[tuple[str, int]]:
        return [
            ("before its backfill", self.backfill),
            ("schedule lag", self.schedule_lag),
            ("waiting for a dependency", self.dependency),
            ("paused", self.paused),
            ("waiting for a worker", self.worker),
            ("backoff", self.backoff),
            ("running", self.running),
        ]


def phases(context: Context, job_id: str, scheduled: int, ready: int | None) -> Phases:
    """The phases of a run; ``ready`` is the tick it could first take a worker (None: not yet)."""
    now = context.now
    job_events = list(context.events_of(job_id))
    run = [e for e in job_events if isinstance(e, ev.OccurrenceEvent) and e.scheduled == scheduled]
    starts = [e.tick for e in run if isinstance(e, ev.AttemptStarted)]
    first = starts[0] if starts else None
    end = next((e.tick for e in run if isinstance(e, _FINAL)), now)
    before = min(first if first is not None else end, end)
    since = next((e.tick for e in run if isinstance(e, ev.RunBackfilled)), scheduled)
    paused = _overlap(_paused_spans(job_events, now), since, before)
    dependency = 0
    if _had_dependencies(context, job_id):
        dependency = max(0, min(ready if ready is not None else before, before) - since)
        dependency = max(0, dependency - paused)
    worker = max(0, before - ready) if ready is not None else 0
    lag = max(0, before - since - paused - dependency - worker)
    running = backoff = 0
    waiting_since: int | None = None
    started: int | None = None
    for event in run:
        if isinstance(event, ev.AttemptStarted):
            if waiting_since is not None:
                worker += event.tick - waiting_since
                waiting_since = None
            started = event.tick
        elif isinstance(event, _ENDS) and started is not None:
            running += event.tick - started
            started = None
        elif isinstance(event, ev.RetryScheduled):
            eligible = min(event.eligible_at, now)
            backoff += max(0, eligible - event.tick)
            waiting_since = eligible
    if started is not None:
        running += now - started
    if waiting_since is not None and end == now:
        worker += max(0, now - waiting_since)
    return Phases(lag, dependency, paused, worker, backoff, running, since - scheduled)


def phase_lines(context: Context, found: Phases) -> Line:
    """Time in each phase so far, the phases with no time left out."""
    rows = [line(f"{name}: {context.ticks(ticks)}") for name, ticks in found.named() if ticks]
    if not rows:
        rows = [line("no time has passed since it fell due", tag=Tag.NOTE)]
    return section("Time so far", rows)


def _had_dependencies(context: Context, job_id: str) -> bool:
    job = context.engine.jobs.get(job_id)
    return job is not None and bool(job.spec.depends_on)


def _paused_spans(job_events: list[ev.Event], now: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    since: int | None = None
    for event in job_events:
        if isinstance(event, ev.JobPaused):
            since = event.tick
        elif isinstance(event, ev.JobResumed) and since is not None:
            spans.append((since, event.tick))
            since = None
    if since is not None:
        spans.append((since, now))
    return spans


def _overlap(spans: list[tuple[int, int]], start: int, stop: int) -> int:
    return sum(max(0, min(stop, high) - max(start, low)) for low, high in spans)
