"""What a sweep measures in each run: waits as percentiles, outcomes as counts, worker use.

A metric is named ``STAT_MEASURE`` with an optional selector: ``p95_wait``, ``max_wait``,
``p50_wait[priority=high]``, ``p95_wait[job=etl]``, or a count: ``failed``, ``cancelled``,
``skipped``, ``runs``, and ``utilisation`` (the workers' mean busy share, 0 to 1).

A run's *wait* is the ticks from its scheduled tick to its first attempt's start: the delay a
user of the scheduler sees, whatever caused it. A run still waiting when the run ends counts
with its wait so far: leaving it out would make an overloaded fleet look fast, since the runs
that wait longest are the ones that never start. Percentiles are nearest-rank (an observed wait,
never an interpolation); a metric over no runs (no high-priority run started) is None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine import events as ev
from engine.core import Engine
from engine.model import PRIORITY_LEVELS, OccurrenceState
from engine.ranges import fire_count, implicit_range, runs_in
from engine.scenario.stats import percentile, run_stats

WAIT_STATS = {"p50": 0.50, "p90": 0.90, "p95": 0.95, "p99": 0.99}
"""Percentiles by name; ``max`` and ``mean`` are the others."""
COUNTS = ("failed", "cancelled", "skipped", "runs")
MEASURES = ("wait",)
SELECTORS = ("priority", "job")
DEFAULT_METRICS = ("p50_wait", "p95_wait", "max_wait", "failed", "utilisation")

_NAME = re.compile(r"([a-z0-9_]+)(?:\[([a-z_]+)=([^\]]+)\])?\Z")


class MetricError(ValueError):
    """A metric name that means nothing; the message lists what is known."""


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    """As the user wrote it, and as the tables, CSV and JSON name it."""
    stat: str
    measure: str
    selector: tuple[str, str] | None = None

    def value(self, run: RunMeasures) -> float | None:
        if self.measure == "utilisation":
            return run.utilisation
        if self.measure in COUNTS:
            return float(run.count(self.measure, self.selector))
        waits = run.waits(self.selector)
        if not waits:
            return None
        if self.stat == "max":
            return float(max(waits))
        if self.stat == "mean":
            return sum(waits) / len(waits)
        found = percentile(waits, WAIT_STATS[self.stat])
        return None if found is None else float(found)


def parse_metric(text: str) -> Metric:
    """The metric ``text`` names; raises :class:`MetricError` with the names it knows."""
    matched = _NAME.fullmatch(text.strip())
    if matched is None:
        raise MetricError(_unknown(text))
    base, field, wanted = matched.groups()
    selector = None
    if field is not None:
        if field not in SELECTORS:
            raise MetricError(f"metric {text!r}: select by priority or job, not {field!r}")
        if field == "priority" and wanted not in PRIORITY_LEVELS and not _integer(wanted):
            raise MetricError(f"metric {text!r}: a priority is high, medium, low or a whole number")
        selector = (field, wanted)
    if base in COUNTS:
        return Metric(text, "count", base, selector)
    if base == "utilisation":
        if selector is not None:
            raise MetricError(f"metric {text!r}: utilisation is the whole fleet's")
        return Metric(text, "mean", base)
    stat, _, measure = base.partition("_")
    if measure in MEASURES and (stat in WAIT_STATS or stat in ("max", "mean")):
        return Metric(text, stat, measure, selector)
    raise MetricError(_unknown(text))


def _integer(text: str) -> bool:
    return re.fullmatch(r"-?[0-9]+", text) is not None


def _unknown(text: str) -> str:
    stats = ", ".join([*WAIT_STATS, "max", "mean"])
    return (
        f"unknown metric {text!r}: expected STAT_wait with STAT one of {stats}; or one of "
        f"{', '.join(COUNTS)}, utilisation; optionally [priority=high] or [job=ID]"
    )


@dataclass(frozen=True, slots=True)
class RunWait:
    job_id: str
    priority: int
    wait: int


class RunMeasures:
    """A played run reduced to what metrics read."""

    def __init__(self, engine: Engine, now: int) -> None:
        self.priorities = {job_id: job.spec.priority for job_id, job in engine.jobs.items()}
        self.runs: list[RunWait] = []
        self.outcomes: dict[str, dict[str, int]] = {}
        self._read(engine.log)
        self._still_waiting(engine, now)
        stats = run_stats(engine.log, now)
        shares = [worker.utilisation(now) for worker in stats.workers.values()]
        known = [share for share in shares if share is not None]
        self.utilisation = sum(known) / len(known) if known else None
        for job_id, job in engine.jobs.items():
            skipped = sum(
                fire_count(job.spec.schedule, after + 1, through) for after, through in job.skipped
            )
            if skipped:
                self._add(job_id, "skipped", skipped)

    def _read(self, events: Iterable[ev.Event]) -> None:
        for event in events:
            if isinstance(event, ev.AttemptStarted):
                self._add(event.job_id, "runs", 1)
                if event.attempt == 1:
                    self._wait(event.job_id, event.tick - event.scheduled)
            elif isinstance(event, ev.OccurrenceFailed):
                self._add(event.job_id, "failed", 1)
            elif isinstance(event, ev.OccurrenceCancelled):
                self._add(event.job_id, "cancelled", 1)
            elif isinstance(event, ev.BacklogCancelled):
                self._add(event.job_id, "cancelled", event.runs)

    def _still_waiting(self, engine: Engine, now: int) -> None:
        """Runs due by ``now`` whose first attempt has not started: records, then the lazy
        backlogs (:mod:`engine.ranges`)."""
        for state in (OccurrenceState.QUEUED, OccurrenceState.BLOCKED):
            for job_id, scheduled in engine.by_state[state]:
                if scheduled <= now:
                    self._wait(job_id, now - scheduled)
        for job in engine.jobs.values():
            backlog = implicit_range(engine, job)
            if backlog is None or backlog.state is OccurrenceState.CANCELLED:
                continue
            for scheduled in runs_in(engine, job, backlog.first, min(backlog.last, now)):
                self._wait(job.job_id, now - scheduled)

    def _wait(self, job_id: str, wait: int) -> None:
        self.runs.append(RunWait(job_id, self.priorities.get(job_id, 0), wait))

    def _add(self, job_id: str, what: str, count: int) -> None:
        per_job = self.outcomes.setdefault(job_id, {})
        per_job[what] = per_job.get(what, 0) + count

    def _selected(self, job_id: str, selector: tuple[str, str] | None) -> bool:
        if selector is None:
            return True
        field, wanted = selector
        if field == "job":
            return job_id == wanted
        level = PRIORITY_LEVELS.get(wanted)
        return self.priorities.get(job_id) == (int(wanted) if level is None else level)

    def waits(self, selector: tuple[str, str] | None) -> list[int]:
        return [run.wait for run in self.runs if self._selected(run.job_id, selector)]

    def count(self, what: str, selector: tuple[str, str] | None) -> int:
        return sum(
            counts.get(what, 0)
            for job_id, counts in self.outcomes.items()
            if self._selected(job_id, selector)
        )
