"""What a play of a fleet shows, in the figures a proof compares before and after a change.

- **p95 wait**: the queue wait of the runs that fell due, p95 by nearest rank, in ticks
  (:mod:`cronlapse.analyses.latency.attribution`: a run still waiting counts its wait so far);
- **peak concurrency**: the most attempts running at once, the workers the fleet keeps busy;
- **missed runs**: runs that fell due and never ran: skipped on resume after an outage, dropped
  by an overlap rule, expired past a start deadline, cancelled;
- **doubled runs**: runs that should have been one: a run of a job started while another of the
  same job was still running, or a second run of a job at a wall time it already ran at (the
  repeated hour of a change to standard time);
- **DST-hour runs**: the fire times the jobs ask for in an hour a daylight-saving change skips
  or repeats (:mod:`~cronlapse.analyses.advise.dst_hours`), counted from the schedules.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime

from cronlapse.analyses.advise.dst_hours import calendar_parts, dst_hour_fires
from cronlapse.analyses.latency.attribution import RunLatency, latency_report
from engine.core import Engine
from engine.model import events as ev
from engine.scenario import Scenario, ScenarioRunner

NAMES = {
    "p95_wait": "p95 wait (ticks)",
    "peak_concurrency": "peak concurrency",
    "missed": "missed runs",
    "doubled": "doubled runs",
    "dst_hour_runs": "DST-hour runs",
}
"""Each figure's field and what a table calls it, in the order tables list them."""


@dataclass(frozen=True, slots=True)
class Figures:
    p95_wait: int | None
    """None when no run fell due."""
    peak_concurrency: int
    missed: int
    doubled: int
    dst_hour_runs: int

    def value(self, name: str) -> int | None:
        return getattr(self, name)


assert tuple(NAMES) == tuple(field.name for field in fields(Figures))


@dataclass(frozen=True, slots=True)
class Played:
    """A play's figures, and the runs that waited for a worker (for the finding of a peak)."""

    figures: Figures
    waited: tuple[RunLatency, ...]
    workers: int


def play(scenario: Scenario, until: int) -> Played:
    """Play ``scenario`` to tick ``until`` and measure it."""
    runner = ScenarioRunner(scenario, until)
    runner.run()
    engine = runner.engine
    report = latency_report(engine, worst=0)
    figures = Figures(
        report.overall.wait.p95,
        _peak_concurrency(engine),
        _missed(engine),
        _overlapping_starts(engine) + _repeated_wall_times(engine, scenario),
        _dst_hour_runs(scenario, until),
    )
    waited = tuple(run for run in report.runs if run.wait > 0)
    return Played(figures, waited, len(engine.query.workers()))


def _peak_concurrency(engine: Engine) -> int:
    running = peak = 0
    for kind, _ in engine.log.stored_since(0):
        if kind is ev.AttemptStarted:
            running += 1
            peak = max(peak, running)
        elif kind in ev.ATTEMPT_ENDS:
            running -= 1
    return peak


def _missed(engine: Engine) -> int:
    count = 0
    jobs = engine.query.jobs()
    for kind, stored in engine.log.stored_since(0):
        if kind in (ev.OccurrenceSkipped, ev.RunExpired, ev.OccurrenceCancelled):
            count += 1
        elif kind is ev.BacklogCancelled:
            count += ev.BacklogCancelled(*stored).runs
        elif kind is ev.OccurrencesSkipped:
            skipped = ev.OccurrencesSkipped(*stored)
            schedule = jobs[skipped.job_id].spec.schedule
            count += sum(1 for _ in schedule.fire_ticks(skipped.after + 1, skipped.through))
    return count


def _overlapping_starts(engine: Engine) -> int:
    """First attempts started while an attempt of another run of the same job was running."""
    running: dict[str, set[int]] = {}
    count = 0
    for kind, stored in engine.log.stored_since(0):
        if kind is ev.AttemptStarted:
            _, job_id, scheduled, attempt, _ = stored
            active = running.setdefault(job_id, set())
            if attempt == 1 and active - {scheduled}:
                count += 1
            active.add(scheduled)
        elif kind in ev.ATTEMPT_ENDS:
            _, job_id, scheduled, _, _ = stored
            running.get(job_id, set()).discard(scheduled)
    return count


def _repeated_wall_times(engine: Engine, scenario: Scenario) -> int:
    """Runs of a calendar job at a wall time (in its zone) one of its runs already had."""
    zones = {}
    for spec in scenario.jobs:
        part = next(calendar_parts(spec.schedule), None)
        if part is not None:
            zones[spec.job_id] = part.clock
    seen: set[tuple[str, datetime]] = set()
    count = 0
    for kind, stored in engine.log.stored_since(0):
        if kind is ev.AttemptStarted and stored[3] == 1 and stored[1] in zones:
            job_id, scheduled = stored[1], stored[2]
            wall = zones[job_id].to_datetime(scheduled).replace(tzinfo=None)
            if (job_id, wall) in seen:
                count += 1
            seen.add((job_id, wall))
    return count


def _dst_hour_runs(scenario: Scenario, until: int) -> int:
    if scenario.clock is None:
        return 0
    start, end = scenario.clock.to_datetime(0), scenario.clock.to_datetime(until)
    return sum(len(dst_hour_fires(spec.schedule, start, end)) for spec in scenario.jobs)
