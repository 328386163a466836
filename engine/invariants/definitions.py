"""Creation: every due run is created once, in its schedule, with its definition's values.

A modification applies to the runs created after it (docs/engine.md): a run keeps the priority,
attempts allowed, duration and timeout of the definition its job had when the run was created,
and a new schedule applies from the modification's tick. So a job's history is a list of
definitions, each in force from its tick to the next one's (both ends included: at a
modification's own tick a run may have been created just before it or just after). The checks:

- every materialised run lies in the schedule of a definition in force at its tick (a run
  cancelled before its tick: or at the cancel, which created it);
- its values are those of a definition in force when it was created: under automatic dispatch
  from the tick it fell due (or its resume) to that tick, under manual dispatch at any later tick
  (only a dispatch creates it); a cancelled run may have been created by the cancel itself;
- behind the cursor of a job still producing runs, every tick of the current schedule (from the
  tick after the last schedule change) was created, or skipped by a resume or an overlap rule.

A definition nobody observed (see :class:`engine.invariants.Checker`) accepts any run.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from engine.calendar import CronSchedule
from engine.core import Engine
from engine.invariants.facts import Definition, Facts, JobFacts, Violation
from engine.model import AttemptOutcome, Job, JobSpec, Occurrence
from engine.policies import DispatchMode
from engine.schedules import Schedule


@dataclass(frozen=True, slots=True)
class Window:
    """Ticks ``[start, end]`` (``end`` None: onwards) under one schedule (None: unknown)."""

    start: int
    end: int | None
    schedule: Schedule | None

    def overlaps(self, first: int, last: int) -> bool:
        return self.start <= last and (self.end is None or first <= self.end)


def creation_violations(engine: Engine, facts: Facts) -> list[Violation]:
    found: list[Violation] = []
    runs: dict[str, list[Occurrence]] = {}
    for occurrence in engine.occurrences.values():
        runs.setdefault(occurrence.job_id, []).append(occurrence)
    auto = engine.policy.dispatch is DispatchMode.AUTO
    walks = _SharedWalks(engine.now)
    for job_id, job in engine.jobs.items():
        known = facts.jobs.get(job_id)
        if known is None or not known.definitions:
            found.append(Violation(engine.now, f"job {job_id} has no JobScheduled event"))
            continue
        windows = _schedule_windows(known.definitions)
        missing, walked = _walk_behind_cursor(
            engine, job, known, windows[-1], len(windows) > 1, walks
        )
        found += missing
        limit = engine.policy.execution_limit
        values = [
            _spec_values(d.spec, limit) if d.spec is not None else None for d in known.definitions
        ]
        for occurrence in runs.get(job_id, ()):
            if occurrence.scheduled not in walked:  # else the walk found it in the schedule
                found += _schedule_violation(occurrence, windows, facts)
            found += _values_violation(engine, occurrence, known, values, facts, auto)
    return found


def _schedule_windows(definitions: list[Definition]) -> list[Window]:
    """One window per schedule: the first definition and each change of the schedule start
    one; any observed definition in it tells its schedule."""
    starts = [i for i, d in enumerate(definitions) if d.fields is None or "schedule" in d.fields]
    windows = []
    for number, first in enumerate(starts):
        stop = starts[number + 1] if number + 1 < len(starts) else len(definitions)
        specs = [d.spec for d in definitions[first:stop] if d.spec is not None]
        end = definitions[stop].tick if stop < len(definitions) else None
        schedule = specs[-1].schedule if specs else None
        windows.append(Window(definitions[first].tick, end, schedule))
    return windows


def _schedule_violation(
    occurrence: Occurrence, windows: list[Window], facts: Facts
) -> list[Violation]:
    """The run lies in a schedule in force at its tick (or, cancelled early, at the cancel)."""
    job_id, scheduled = occurrence.key
    earliest = min(scheduled, facts.cancelled_at.get(occurrence.key, scheduled))
    created = facts.backfilled_at.get(occurrence.key, scheduled)  # a backfill's: its own tick
    holding = [w for w in windows if w.overlaps(earliest, created)]
    if not holding:
        text = f"{job_id}@{scheduled} falls before its job was scheduled (tick {windows[0].start})"
        return [Violation(scheduled, text)]
    if any(w.schedule is None or w.schedule.contains(scheduled) for w in holding):
        return []
    since = ", ".join(str(w.start) for w in holding)
    text = f"{job_id}@{scheduled} is not in its job's schedule (the one defined at tick {since})"
    return [Violation(scheduled, text)]


Values = tuple[int, int, int, int | None]
"""What a run takes from its definition: priority, attempts allowed, duration, timeout."""


def _spec_values(spec: JobSpec, execution_limit: int | None) -> Values:
    """A job without a timeout of its own has the policy's execution limit."""
    timeout = spec.timeout if spec.timeout is not None else execution_limit
    return spec.priority, spec.max_attempts, spec.duration, timeout


def _run_values(occurrence: Occurrence) -> Values:
    """A lost attempt adds one to the attempts allowed (it does not count)."""
    lost = sum(a.outcome is AttemptOutcome.LOST for a in occurrence.attempts)
    return (
        occurrence.priority,
        occurrence.max_attempts - lost,
        occurrence.duration,
        occurrence.timeout,
    )


def _values_violation(
    engine: Engine,
    occurrence: Occurrence,
    known: JobFacts,
    candidates: list[Values | None],
    facts: Facts,
    auto: bool,
) -> list[Violation]:
    """The run carries the values of a definition in force when it was created
    (``candidates``: each definition's values, None when unknown)."""
    values = _run_values(occurrence)
    if len(candidates) == 1 and candidates[0] in (None, values):
        return []
    job_id, scheduled = occurrence.key
    earliest = min(scheduled, facts.cancelled_at.get(occurrence.key, scheduled))
    latest = known.created_at(scheduled, engine.now) if auto else None
    latest = facts.backfilled_at.get(occurrence.key, latest)
    if latest is None:
        latest = engine.now
    definitions = known.definitions
    for number, definition in enumerate(definitions):
        following = definitions[number + 1].tick if number + 1 < len(definitions) else None
        if definition.tick > latest or (following is not None and following < earliest):
            continue
        if candidates[number] in (None, values):
            return []
    priority, attempts, duration, timeout = values
    text = (
        f"{job_id}@{scheduled} was created with priority={priority}, max_attempts={attempts}, "
        f"duration={duration}, timeout={timeout}, which no definition of {job_id} in force "
        f"from tick {earliest} to {latest} has"
    )
    return [Violation(scheduled, text)]


class _SharedWalks:
    """The fire ticks of each cron schedule, walked once for every job on it: a fleet puts
    hundreds of jobs on a few expressions, and the walks behind their cursors cover nearly the
    same ticks (asked one by one, each would be a cronsim walk once a month of runs outgrows
    the answers the schedule remembers)."""

    def __init__(self, through: int) -> None:
        self._through = through
        self._walks: dict[CronSchedule, tuple[int, list[int]]] = {}
        """A schedule's fire ticks in ``[0, through]``, and ``through``."""

    def fire_ticks(self, schedule: Schedule, low: int, high: int) -> Iterator[int]:
        """``schedule.fire_ticks(low, high)``."""
        if not isinstance(schedule, CronSchedule):
            return schedule.fire_ticks(low, high)
        walk = self._walks.get(schedule)
        if walk is None or walk[0] < high:
            through = max(high, self._through)
            walk = self._walks[schedule] = (through, list(schedule.fire_ticks(0, through)))
        ticks = walk[1]
        return islice(ticks, bisect.bisect_left(ticks, low), bisect.bisect_right(ticks, high))


def _walk_behind_cursor(
    engine: Engine,
    job: Job,
    known: JobFacts,
    current: Window,
    modified: bool,
    walks: _SharedWalks,
) -> tuple[list[Violation], set[int]]:
    """Every tick of the current schedule behind the cursor was created or skipped; the first
    one missing, and the ticks walked (all in the schedule). After a schedule change the
    change's own tick is left out: a run of the old schedule may hold it. The walk visits each
    run once and jumps over skipped ranges, so it costs what the engine holds."""
    walked: set[int] = set()
    if job.next_due is None or current.schedule is None:
        return [], walked
    schedule, last = current.schedule, job.next_due - 1
    # One walk of the schedule, restarted past a skipped range rather than walked through it.
    ticks = walks.fire_ticks(schedule, current.start + 1 if modified else current.start, last)
    tick = next(ticks, None)
    while tick is not None:
        skip = next((t for a, t in known.skipped if a < tick <= t), None)
        if skip is not None:
            ticks = walks.fire_ticks(schedule, skip + 1, last)
            tick = next(ticks, None)
            continue
        if tick not in known.skipped_runs:
            if (job.job_id, tick) not in engine.occurrences:
                text = f"{job.job_id}@{tick} fell behind the cursor without being created"
                return [Violation(tick, text)], walked
            walked.add(tick)
        tick = next(ticks, None)
    return [], walked
