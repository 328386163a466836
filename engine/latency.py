"""Latency attribution: where each run's waiting went, summarised overall, per priority, per job.

For every run that started, from the event log and the runs' records:

- **schedule lag**: from its scheduled tick to the tick it could first take a worker (waiting for
  a dependency, a pause, a late creation), or to its first start if that came sooner;
- **queue wait**: ready, but no worker took it: before its first attempt, and between each
  retry's eligibility and its start;
- **backoff wait**: between each failed attempt and its retry's eligibility.

Each is summarised by count, p50, p95 (nearest rank: an observed value) and max. Runs that never
started are counted as ``waiting`` but have no figures: their wait has no end yet.

The report is the metric source for other tools (a sweep, a comparison): :data:`METRICS` names
every figure, and :meth:`LatencyReport.metric` reads one for all runs, one priority or one job.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine import events as ev
from engine.core import Engine
from engine.model import PRIORITY_LEVELS, OccurrenceState
from engine.queries import count_occurrences
from engine.scenario.stats import percentile, run_stats

S = OccurrenceState

MEASURES = {"lag": "schedule lag", "wait": "queue wait", "backoff": "backoff wait"}
STATISTICS = ("p50", "p95", "max")
COUNTS = ("runs", "waiting", "failed", "cancelled", "skipped")
METRICS = (
    *(f"{stat}_{measure}" for measure in MEASURES for stat in STATISTICS),
    *COUNTS,
    "utilisation",
)
"""Every name :meth:`LatencyReport.metric` answers: ``p95_wait``, ``max_lag``, ``failed``..."""
WORST_RUNS = 10


@dataclass(frozen=True, slots=True)
class RunLatency:
    """One started run's waiting, in ticks."""

    job_id: str
    scheduled: int
    priority: int
    lag: int
    wait: int
    backoff: int

    @property
    def total(self) -> int:
        return self.lag + self.wait + self.backoff


@dataclass(frozen=True, slots=True)
class Summary:
    count: int
    p50: int | None
    p95: int | None
    max: int | None

    @classmethod
    def of(cls, values: list[int]) -> Summary:
        return cls(
            len(values),
            percentile(values, 0.5),
            percentile(values, 0.95),
            max(values, default=None),
        )


@dataclass(frozen=True, slots=True)
class Latency:
    """The summaries of one group of runs (all, one priority, one job)."""

    runs: int
    lag: Summary
    wait: Summary
    backoff: Summary

    @classmethod
    def of(cls, runs: list[RunLatency]) -> Latency:
        return cls(
            len(runs),
            Summary.of([r.lag for r in runs]),
            Summary.of([r.wait for r in runs]),
            Summary.of([r.backoff for r in runs]),
        )

    def figure(self, measure: str, stat: str) -> int | None:
        return getattr(getattr(self, measure), stat)


@dataclass(frozen=True, slots=True)
class LatencyReport:
    now: int
    overall: Latency
    by_priority: dict[int, Latency]
    """Highest priority first."""
    by_job: dict[str, Latency]
    """In the order jobs were scheduled."""
    worst: tuple[RunLatency, ...]
    """The runs that waited longest in all (lag + wait + backoff), longest first."""
    runs: tuple[RunLatency, ...] = field(repr=False)
    waiting: int = 0
    failed: int = 0
    cancelled: int = 0
    skipped: int = 0
    utilisation: float | None = None
    """The workers' busy share of their time since registering, all workers together."""

    def metric(
        self, name: str, *, priority: int | None = None, job: str | None = None
    ) -> float | None:
        """One figure by its :data:`METRICS` name, for all runs or one priority or one job
        (counts and utilisation are for all runs). None where there is no run to measure."""
        if name not in METRICS:
            raise KeyError(f"no metric {name!r}; the metrics are {', '.join(METRICS)}")
        if name in ("runs", *COUNTS[1:], "utilisation"):
            if name == "runs":
                group = self._group(priority, job)
                return group.runs if group is not None else 0
            return getattr(self, name)
        stat, measure = name.split("_", 1)
        group = self._group(priority, job)
        return None if group is None else group.figure(measure, stat)

    def metrics(self) -> dict[str, float | None]:
        """Every metric for all runs, by name."""
        return {name: self.metric(name) for name in METRICS}

    def _group(self, priority: int | None, job: str | None) -> Latency | None:
        if job is not None:
            return self.by_job.get(job)
        if priority is not None:
            return self.by_priority.get(priority)
        return self.overall


def priority_name(priority: int) -> str:
    """``high``, ``medium``, ``low`` for seed 003's levels, else the number."""
    for name, level in PRIORITY_LEVELS.items():
        if level == priority:
            return name
    return str(priority)


def latency_report(engine: Engine, worst: int = WORST_RUNS) -> LatencyReport:
    """Attribute the waiting of every run the engine has started so far (its log to ``now``)."""
    runs = attribute(engine)
    by_priority: dict[int, list[RunLatency]] = {}
    by_job: dict[str, list[RunLatency]] = {job_id: [] for job_id in engine.jobs}
    for run in runs:
        by_priority.setdefault(run.priority, []).append(run)
        by_job.setdefault(run.job_id, []).append(run)
    counts = _counts(engine)
    longest = sorted(runs, key=lambda r: (-r.total, r.scheduled, r.job_id))[:worst]
    return LatencyReport(
        engine.now,
        Latency.of(runs),
        {p: Latency.of(by_priority[p]) for p in sorted(by_priority, reverse=True)},
        {j: Latency.of(group) for j, group in by_job.items() if group},
        tuple(longest),
        tuple(runs),
        waiting=counts["waiting"],
        failed=counts["failed"],
        cancelled=counts["cancelled"],
        skipped=counts["skipped"],
        utilisation=_utilisation(engine),
    )


def attribute(engine: Engine) -> list[RunLatency]:
    """Each started run's lag, wait and backoff, in the order runs first started."""
    eligible: dict[tuple[str, int], int] = {}
    found: dict[tuple[str, int], list[int]] = {}
    for event in _run_events(engine.log):
        key = (event.job_id, event.scheduled)
        if isinstance(event, ev.AttemptStarted):
            figures = found.get(key)
            if figures is None:
                record = engine.occurrences[key]
                ready = max(record.ready_since, event.scheduled)
                lag = min(ready, event.tick) - event.scheduled
                found[key] = [lag, event.tick - min(ready, event.tick), 0]
            elif key in eligible:
                figures[1] += max(0, event.tick - eligible.pop(key))
        elif isinstance(event, ev.RetryScheduled):
            eligible[key] = event.eligible_at
            found[key][2] += event.eligible_at - event.tick
    priorities = {key: engine.occurrences[key].priority for key in found}
    return [
        RunLatency(key[0], key[1], priorities[key], *_closed(engine, key, figures))
        for key, figures in found.items()
    ]


def _closed(engine: Engine, key: tuple[str, int], figures: list[int]) -> tuple[int, int, int]:
    """A backoff still running at ``now`` counts only up to now."""
    lag, wait, backoff = figures
    record = engine.occurrences[key]
    if record.eligible_at is not None and record.eligible_at > engine.now:
        backoff -= record.eligible_at - engine.now
    return lag, wait, backoff


_KINDS = (ev.AttemptStarted, ev.RetryScheduled)


def _run_events(log: Iterable) -> Iterable[ev.OccurrenceEvent]:
    for kind, fields in log.stored_since(0):
        if kind in _KINDS:
            yield kind(*fields)


def _counts(engine: Engine) -> dict[str, int]:
    """Runs failed for good, cancelled, skipped on resume, and waiting without a start."""
    counts = {"failed": 0, "cancelled": 0, "skipped": 0}
    for kind, fields in engine.log.stored_since(0):
        if kind is ev.OccurrenceFailed:
            counts["failed"] += 1
        elif kind is ev.OccurrenceCancelled:
            counts["cancelled"] += 1
        elif kind is ev.BacklogCancelled:
            counts["cancelled"] += ev.BacklogCancelled(*fields).runs
        elif kind is ev.OccurrencesSkipped:
            counts["skipped"] += _skipped(engine, ev.OccurrencesSkipped(*fields))
    counts["waiting"] = sum(
        count_occurrences(engine, state=state) for state in (S.QUEUED, S.BLOCKED)
    )
    return counts


def _skipped(engine: Engine, event: ev.OccurrencesSkipped) -> int:
    """How many of the job's fire times fell in the skipped range ``(after, through]``."""
    job = engine.jobs[event.job_id]
    count, tick = 0, event.after + 1
    while (fire := job.spec.schedule.first_at_or_after(tick)) is not None and fire <= event.through:
        count += 1
        tick = fire + 1
    return count


def _utilisation(engine: Engine) -> float | None:
    workers = run_stats(engine.log, engine.now).workers.values()
    busy = sum(w.busy for w in workers)
    span = sum(max(0, engine.now - w.registered) for w in workers)
    return busy / span if span else None
