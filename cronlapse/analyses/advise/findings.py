"""What hurts a fleet, each finding naming its jobs and the times it happens.

Found on the fleet as the file has it, over the advice's horizon (ticks ``0..until``):

- a **herd**: calendar jobs (cron, daily...) firing in the same minute (at least
  :data:`HERD_SIZE`), of those that fire at most hourly: a job firing every minute is in every
  minute's crowd, and no spreading moves it; jobs on an interval (``every``) meet by the chance
  of their first ticks, not because people like round times;
- a **peak**: runs that fell due with no worker free and waited;
- a **DST hour**: a calendar job asking for times a daylight-saving change skips or repeats;
- a **long run**: a job whose runs take longer than its interval and may overlap (no rule);
- **missed-run exposure**: recurring jobs that lose a run when the scheduler is down at its
  time (``catch_up: skip``, the default), without a start deadline.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass
from enum import Enum
from zoneinfo import ZoneInfo

from cronlapse.analyses.advise.dst_hours import calendar_parts, changed_hours, dst_hour_fires
from cronlapse.analyses.advise.figures import Played
from cronlapse.analyses.advise.fleet import Fleet
from cronlapse.analyses.advise.times import time_of_day, when
from engine.model.records import CatchUp, JobSpec
from engine.scenario.schema import MAX_TICK
from engine.schedules.kinds import Once, Schedule

HERD_SIZE = 3
"""Jobs firing in one minute that make a herd."""
INTERVAL_FIRES = 50
"""Fires a job's interval is measured over: its shortest gap among its first ones."""
SHOWN = 3
"""Times a finding lists before saying how many more."""
JOBS_SHOWN = 10
"""Jobs a finding lists before saying how many more."""


class Kind(Enum):
    HERD = "herd"
    LONG_RUN = "long run"
    DST_HOUR = "DST hour"
    PEAK = "peak over the pool"
    MISSED = "missed-run exposure"


@dataclass(frozen=True, slots=True)
class Finding:
    kind: Kind
    jobs: tuple[str, ...]
    ticks: tuple[int, ...]
    """When it happens (a herd's minutes, a peak's due ticks), first first."""
    text: str
    """One line saying what and when."""


def gaps(spec: JobSpec) -> list[int]:
    """The gaps between the job's first :data:`INTERVAL_FIRES` fires from tick 0 (a weekly job's
    too, beyond a horizon of a week); none for a one-time job."""
    return list(_gaps(spec.schedule))


@functools.lru_cache(maxsize=4096)
def _gaps(schedule: Schedule) -> tuple[int, ...]:
    """Worked out once per schedule: herds, long runs and missed runs each ask."""
    if isinstance(schedule, Once):
        return ()
    fires = list(itertools.islice(schedule.fire_ticks(0, MAX_TICK), INTERVAL_FIRES))
    return tuple(later - earlier for earlier, later in itertools.pairwise(fires))


def interval(spec: JobSpec) -> int | None:
    """The shortest gap between the job's fires (a day that DST shortens, for a daily job):
    the least time a run has before the next falls due. None for a job that fires once."""
    return min(gaps(spec), default=None)


def usual_interval(spec: JobSpec) -> int | None:
    """The gap between the job's fires seen most often (the shorter of two as common)."""
    counted = Counter(gaps(spec))
    return min(counted, key=lambda gap: (-counted[gap], gap)) if counted else None


def find(fleet: Fleet, until: int, played: Played) -> list[Finding]:
    """Every finding, in the order advice takes them: herds (largest first), long runs, DST
    hours, the peak, the exposure to missed runs."""
    return [
        *herds(fleet, until),
        *long_runs(fleet, until),
        *dst_hours(fleet, until),
        *peaks(fleet, played),
        *missed_exposure(fleet, until),
    ]


def herds(fleet: Fleet, until: int) -> list[Finding]:
    scenario = fleet.scenario
    hourly = -(-3600 // scenario.tick_seconds)
    by_tick: dict[int, list[str]] = defaultdict(list)
    for spec in scenario.jobs:
        gap = interval(spec)
        if next(calendar_parts(spec.schedule), None) is None or (gap is not None and gap < hourly):
            continue
        for tick in spec.schedule.fire_ticks(0, until):
            by_tick[tick].append(spec.job_id)
    at_time: dict[str, tuple[set[str], list[int]]] = {}
    for tick, jobs in sorted(by_tick.items()):
        if len(jobs) >= HERD_SIZE:
            crowd, ticks = at_time.setdefault(time_of_day(scenario, tick), (set(), []))
            crowd.update(jobs)
            ticks.append(tick)
    crowds: dict[tuple[str, ...], tuple[list[str], list[int]]] = {}
    for time, (crowd, ticks) in at_time.items():  # the times of day one crowd meets at
        times, all_ticks = crowds.setdefault(tuple(sorted(crowd)), ([], []))
        times.append(time)
        all_ticks += ticks
    found = []
    for jobs, (times, ticks) in sorted(crowds.items(), key=lambda c: (-len(c[0]), min(c[1][1]))):
        ticks.sort()
        text = (
            f"{len(jobs)} jobs fire in the same minute at {_listed(times)} "
            f"({_count(len(ticks), 'time')} from {when(scenario, ticks[0])}): "
            + ", ".join(_first(list(jobs), JOBS_SHOWN))
        )
        found.append(Finding(Kind.HERD, jobs, tuple(ticks), text))
    return found


def long_runs(fleet: Fleet, until: int) -> list[Finding]:
    found = []
    for spec in fleet.scenario.jobs:
        gap = interval(spec)
        if gap is None or spec.duration <= gap or spec.overlap is not None:
            continue
        copies = -(-spec.duration // gap)
        first = spec.schedule.first_at_or_after(0)
        text = (
            f"{spec.job_id} runs {spec.duration} ticks but fires every {gap}: with no overlap "
            f"rule up to {copies} of its runs are active at once, from "
            f"{when(fleet.scenario, first or 0)}"
        )
        found.append(Finding(Kind.LONG_RUN, (spec.job_id,), (first or 0,), text))
    return found


def dst_hours(fleet: Fleet, until: int) -> list[Finding]:
    scenario = fleet.scenario
    if scenario.clock is None:
        return []
    start, end = scenario.clock.to_datetime(0), scenario.clock.to_datetime(until)
    found = []
    for spec in scenario.jobs:
        fires = dst_hour_fires(spec.schedule, start, end)
        if not fires:
            continue
        zone = next(iter(_zones(spec)), scenario.clock.zone)
        hours = changed_hours(zone, start, end)
        said = []
        for fire in fires:
            change = next(h for h in hours if h.contains(fire))
            what = "does not exist" if change.gap else "happens twice"
            said.append(f"{fire:%Y-%m-%d %H:%M} {what}")
        text = f"{spec.job_id} asks for times a DST change in {zone.key} touches: " + _listed(said)
        ticks = tuple(scenario.clock.to_tick_ceil(fire.replace(tzinfo=zone)) for fire in fires)
        found.append(Finding(Kind.DST_HOUR, (spec.job_id,), ticks, text))
    return found


def peaks(fleet: Fleet, played: Played) -> list[Finding]:
    if not played.waited:
        return []
    scenario = fleet.scenario
    by_tick: dict[int, list[int]] = defaultdict(list)
    jobs: dict[int, set[str]] = defaultdict(set)
    for run in played.waited:
        by_tick[run.scheduled].append(run.wait)
        jobs[run.scheduled].add(run.job_id)
    worst = sorted(by_tick, key=lambda tick: (-len(by_tick[tick]), tick))
    shown = worst[:SHOWN]
    lines = [
        f"{when(scenario, tick)}: {_count(len(by_tick[tick]), 'run')} waited up to "
        f"{_count(max(by_tick[tick]), 'tick')}"
        for tick in shown
    ]
    waited_jobs = sorted({run.job_id for run in played.waited})
    text = (
        f"{len(played.waited)} runs waited for one of {played.workers} workers; the worst: "
        + "; ".join(lines)
        + f" ({', '.join(_first(sorted(jobs[shown[0]])))})"
    )
    return [Finding(Kind.PEAK, tuple(waited_jobs), tuple(shown), text)]


def missed_exposure(fleet: Fleet, until: int) -> list[Finding]:
    exposed = {
        spec.job_id: first
        for spec in fleet.scenario.jobs
        if spec.catch_up is CatchUp.SKIP
        and spec.start_deadline is None
        and interval(spec) is not None
        and (first := first_run(spec, until)) is not None
    }
    if not exposed:
        return []
    ids, firsts = tuple(exposed), tuple(exposed.values())
    text = (
        f"{_jobs(len(ids))} lose the run an outage of the scheduler covers "
        f"(catch_up: skip, no start deadline): {', '.join(_first(list(ids), JOBS_SHOWN))}"
    )
    return [Finding(Kind.MISSED, ids, firsts, text)]


def first_run(spec: JobSpec, until: int) -> int | None:
    """The job's first fire after tick 0 and before ``until``: an outage can begin before it
    within the horizon (a run at tick 0 falls due before any outage can)."""
    first = spec.schedule.first_at_or_after(1)
    return first if first is not None and first < until else None


def _zones(spec: JobSpec) -> list[ZoneInfo]:
    return [part.clock.zone for part in calendar_parts(spec.schedule)]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _jobs(count: int) -> str:
    return f"{count} recurring job{'' if count == 1 else 's'}"


def _listed(items: list[str]) -> str:
    if len(items) <= SHOWN:
        return ", ".join(items)
    return ", ".join(items[:SHOWN]) + f" and {len(items) - SHOWN} more"


def _first(items: list[str], count: int = SHOWN) -> list[str]:
    return items if len(items) <= count else [*items[:count], f"{len(items) - count} more"]
