"""A change for each finding: the fleet with it made, and the figures it must improve.

- a herd: its jobs' fire minutes spread over the herd's minute and the ``--window`` minutes
  after it (within the hour: only the minute field of a cron expression, or of a ``daily``
  time, changes), the jobs in order of their ids, so the same fleet gets the same minutes;
- a long run: ``overlap: Forbid``, a run falling due while one is active is skipped (what
  Kubernetes' ``Forbid`` documents and systemd does with a unit still active);
- a DST hour: a fixed hour moved to the first hour no change touches, else the job run in UTC;
- a peak: the fewest workers that leave no run waiting at the 95th percentile
  (:func:`workers_needed`);
- missed-run exposure: ``catch_up: latest`` (the most recent missed run starts when the
  scheduler is back, as Kubernetes and systemd's ``Persistent=true`` do) and a
  ``start_deadline`` of one interval, proven under an outage at each job's first run.

A finding a change cannot be written for (a job from ``generate:``, a schedule in another form)
gets no proposal, and says why. So does a change that the file a job goes back to cannot say, when
the fleet is written back to the crontabs, manifests and timers its jobs came from
(:attr:`~cronlapse.analyses.advise.advice.AdviceOptions.kept`): a crontab has no overlap rule and
no catch-up, so cron's jobs are proposed only new fire times; a calendar timer catches up
(``Persistent=true``) but has no start deadline; and no source system has a pool of workers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from cronlapse.analyses.advise.dst_hours import calendar_parts, changed_hours
from cronlapse.analyses.advise.figures import Played
from cronlapse.analyses.advise.findings import Finding, Kind, first_run, usual_interval
from cronlapse.analyses.advise.fleet import DROP, Fleet
from cronlapse.analyses.sweep.keys import Value

NICKNAMES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
"""Cron's nicknames as the five fields they stand for, so that their minute can move."""
_TIME_OF_DAY = re.compile(r"([0-9]{1,2}):([0-9]{2})\Z")
MAX_WORKERS = 10_000
"""The largest pool a proposal searches: ``cronlapse import --workers``'s limit."""
WIDENINGS = 4
"""Times the worker search doubles its upper bound before settling for what it found."""

GENERATED = "the jobs come from generate:, whose items a change cannot rewrite"
ONE_GENERATED = "{job} comes from generate:, whose items a change cannot rewrite"

Measure = Callable[[Fleet], Played]
Kept = Mapping[str, frozenset[str]]
"""For each job of a fleet that goes back to its files, the keys its file says so that an
import reads them back the same."""


@dataclass(frozen=True, slots=True)
class Proposal:
    finding: Finding
    summary: str
    """What changes, in a line."""
    changes: tuple[str, ...]
    """Each job's change, ``job: key old -> new``."""
    targets: tuple[str, ...]
    """The figures it must improve (:data:`cronlapse.analyses.advise.figures.NAMES`)."""
    after: Fleet
    probe: tuple[tuple[int, int], ...] = ()
    """Scheduler outages ``[from, to)`` both plays are given, for a change that matters only
    when the scheduler is down."""
    moved: tuple[str, ...] = ()
    """The jobs whose fire times it changes (a later herd leaves them be)."""


@dataclass(frozen=True, slots=True)
class NoProposal:
    finding: Finding
    reason: str


def propose(
    finding: Finding,
    fleet: Fleet,
    until: int,
    window: int,
    moved: frozenset[str],
    measure: Measure,
    kept: Kept | None = None,
) -> Proposal | NoProposal:
    """The change for ``finding`` in ``fleet`` (the fleet with the changes taken so far);
    ``kept``, when the fleet goes back to its source files, limits what a change may set."""
    if finding.kind is Kind.HERD:
        return _spread(finding, fleet, window, moved, kept)
    if finding.kind is Kind.LONG_RUN:
        return _forbid_overlap(finding, fleet, kept)
    if finding.kind is Kind.DST_HOUR:
        return _leave_dst_hours(finding, fleet, until, kept)
    if finding.kind is Kind.PEAK:
        if kept is not None:
            return NoProposal(finding, NO_POOL)
        return workers_needed(finding, fleet, measure)
    return _catch_up(finding, fleet, until, kept)


NO_POOL = (
    "the fleet goes back to crontabs, manifests or timers, which have no pool of workers: "
    "cron, Kubernetes and systemd start every due run"
)


def unsaid(fleet: Fleet, job_id: str, keys: tuple[str, ...], kept: Kept | None) -> str | None:
    """Why the file ``job_id`` goes back to cannot say ``keys``; None if it can (or the fleet
    is written as a scenario, which says everything)."""
    if kept is None:
        return None
    missing = [key for key in keys if key not in kept.get(job_id, frozenset())]
    if not missing:
        return None
    source = fleet.scenario.sources.get(job_id, {})
    return f"its {source.get('format', 'source')} file cannot say {', '.join(missing)}"


def _jobs_and_why(unsayable: dict[str, list[str]]) -> str:
    """``jobs: why`` for each reason, the jobs in their order."""
    return "; ".join(f"{', '.join(jobs)}: {why}" for why, jobs in unsayable.items())


# ------------------------------------------------------------------------------- herds


def _spread(
    finding: Finding, fleet: Fleet, window: int, moved: frozenset[str], kept: Kept | None
) -> Proposal | NoProposal:
    movable = {
        job_id: minute
        for job_id in finding.jobs
        if job_id not in moved
        and (minute := _minute(fleet, job_id)) is not None
        and unsaid(fleet, job_id, (_schedule_key(fleet, job_id),), kept) is None
    }
    if not movable:
        return NoProposal(finding, _why_not_movable(fleet, finding.jobs, moved))
    order = [job_id for job_id in finding.jobs if job_id not in movable] + sorted(movable)
    after, changes = fleet, []
    for place, job_id in enumerate(order):
        if job_id not in movable:
            continue
        minute = movable[job_id]
        offset = place * (min(window, 59 - minute) + 1) // len(order)
        if offset == 0:
            continue
        key, old, new = _moved_minute(fleet, job_id, minute + offset)
        after = after.with_job(job_id, {key: new})
        changes.append(f"{job_id}: {key} {old} -> {new}")
    if not changes:
        return NoProposal(finding, f"--window {window} leaves no minute to move them to")
    summary = f"spread their fire minutes over the {window} minutes after (--window {window})"
    moved_jobs = tuple(sorted(movable))
    return Proposal(
        finding, summary, tuple(changes), ("p95_wait", "peak_concurrency"), after, moved=moved_jobs
    )


def _cron_fields(fleet: Fleet, job_id: str) -> list[str] | None:
    cron = fleet.job_keys(job_id).get("cron")
    if not isinstance(cron, str):
        return None
    fields = NICKNAMES.get(cron.strip().lower(), cron).split()
    return fields if len(fields) == 5 else None


def _schedule_key(fleet: Fleet, job_id: str) -> str:
    """The key a new fire time is written in: the job's ``cron``, else its ``daily``."""
    return "cron" if _cron_fields(fleet, job_id) is not None else "daily"


def _minute(fleet: Fleet, job_id: str) -> int | None:
    """The one minute the job's ``cron`` or ``daily`` names, or None."""
    fields = _cron_fields(fleet, job_id)
    if fields is not None:
        return int(fields[0]) if fields[0].isdigit() and int(fields[0]) < 60 else None
    daily = fleet.job_keys(job_id).get("daily")
    matched = _TIME_OF_DAY.fullmatch(daily) if isinstance(daily, str) else None
    return int(matched.group(2)) if matched else None


def _moved_minute(fleet: Fleet, job_id: str, minute: int) -> tuple[str, Value, str]:
    """The key, its old value and its new one with the minute ``minute``."""
    keys = fleet.job_keys(job_id)
    fields = _cron_fields(fleet, job_id)
    if fields is not None:
        return "cron", keys["cron"], " ".join([str(minute), *fields[1:]])
    daily = str(keys["daily"])
    return "daily", daily, f"{daily.split(':')[0]}:{minute:02d}"


def _why_not_movable(fleet: Fleet, jobs: tuple[str, ...], moved: frozenset[str]) -> str:
    if all(job_id in moved for job_id in jobs):
        return "their minutes were spread above"
    if not any(fleet.written(job_id) for job_id in jobs):
        return GENERATED
    return "none has a cron or daily schedule with one fixed minute to move"


# ------------------------------------------------------------------------------- long runs


def _forbid_overlap(finding: Finding, fleet: Fleet, kept: Kept | None) -> Proposal | NoProposal:
    (job_id,) = finding.jobs
    if not fleet.written(job_id):
        return NoProposal(finding, ONE_GENERATED.format(job=job_id))
    if (why := unsaid(fleet, job_id, ("overlap",), kept)) is not None:
        return NoProposal(finding, f"{job_id}: {why}")
    old = fleet.job_keys(job_id).get("overlap", "none")
    after = fleet.with_job(job_id, {"overlap": "Forbid", "max_active": DROP})
    return Proposal(
        finding,
        "skip a run that falls due while the last one is still active (overlap: Forbid)",
        (f"{job_id}: overlap {old} -> Forbid",),
        ("doubled", "peak_concurrency"),
        after,
    )


# ------------------------------------------------------------------------------- DST hours


def _leave_dst_hours(
    finding: Finding, fleet: Fleet, until: int, kept: Kept | None
) -> Proposal | NoProposal:
    (job_id,) = finding.jobs
    spec = fleet.spec(job_id)
    if spec is None or not fleet.written(job_id):
        return NoProposal(finding, ONE_GENERATED.format(job=job_id))
    keys = (_schedule_key(fleet, job_id), "timezone")
    if (why := unsaid(fleet, job_id, keys, kept)) is not None:
        return NoProposal(finding, f"{job_id}: {why}")
    clock = fleet.scenario.clock
    assert clock is not None  # a calendar job needs one
    touched: set[int] = set()
    for part in calendar_parts(spec.schedule):
        for hours in changed_hours(part.clock.zone, clock.to_datetime(0), clock.to_datetime(until)):
            touched |= hours.hours
    hour = _hour(fleet, job_id)
    targets = ("dst_hour_runs", "doubled")
    if hour is not None and hour in touched:
        free = next((h for h in range(hour + 1, 24) if h not in touched), None)
        if free is not None:
            key, old, new = _moved_hour(fleet, job_id, free)
            after = fleet.with_job(job_id, {key: new})
            summary = f"move it to {free:02d}:xx, an hour no change skips or repeats"
            return Proposal(finding, summary, (f"{job_id}: {key} {old} -> {new}",), targets, after)
    if not isinstance(fleet.job_keys(job_id).get("cron"), str) and hour is None:
        return NoProposal(finding, f"{job_id}'s schedule is not a cron or daily one to rewrite")
    old = fleet.job_keys(job_id).get("timezone", clock.zone.key)
    after = fleet.with_job(job_id, {"timezone": "UTC"})
    summary = "run it in UTC, which has no DST changes (its local time moves by the offset)"
    return Proposal(finding, summary, (f"{job_id}: timezone {old} -> UTC",), targets, after)


def _hour(fleet: Fleet, job_id: str) -> int | None:
    fields = _cron_fields(fleet, job_id)
    if fields is not None:
        return int(fields[1]) if fields[1].isdigit() and int(fields[1]) < 24 else None
    daily = fleet.job_keys(job_id).get("daily")
    matched = _TIME_OF_DAY.fullmatch(daily) if isinstance(daily, str) else None
    return int(matched.group(1)) if matched else None


def _moved_hour(fleet: Fleet, job_id: str, hour: int) -> tuple[str, Value, str]:
    keys = fleet.job_keys(job_id)
    fields = _cron_fields(fleet, job_id)
    if fields is not None:
        return "cron", keys["cron"], " ".join([fields[0], str(hour), *fields[2:]])
    daily = str(keys["daily"])
    return "daily", daily, f"{hour:02d}:{daily.split(':')[1]}"


# ------------------------------------------------------------------------------- workers


def workers_needed(finding: Finding, fleet: Fleet, measure: Measure) -> Proposal | NoProposal:
    """The fewest workers, more than the fleet has, whose play has a p95 wait of 0: found by
    doubling an upper bound (the workers plus the most runs that waited at one tick), then
    halving the range between."""
    current = measure(fleet)
    if not current.waited:
        return NoProposal(finding, "after the changes above no run waits for a worker")
    have = current.workers
    by_tick: dict[int, int] = {}
    for run in current.waited:
        by_tick[run.scheduled] = by_tick.get(run.scheduled, 0) + 1
    pools: dict[int, Fleet] = {}

    def settled(count: int) -> bool:
        """Whether ``count`` workers leave no wait at p95 (each count played once)."""
        pool = pools.setdefault(count, fleet.with_workers(count))
        return not measure(pool).figures.p95_wait

    high = min(MAX_WORKERS, have + max(by_tick.values()))
    for _ in range(WIDENINGS):
        if settled(high) or high == MAX_WORKERS:
            break
        high = min(MAX_WORKERS, high * 2)
    low = have  # waits, known
    if settled(high):
        while high - low > 1:
            middle = (low + high) // 2
            if settled(middle):
                high = middle
            else:
                low = middle
    after = pools[high]
    return Proposal(
        finding,
        f"run {high} workers instead of {have}",
        (f"workers: {have} -> {high}",),
        ("p95_wait",),
        after,
    )


# ------------------------------------------------------------------------------- missed runs


def _catch_up(
    finding: Finding, fleet: Fleet, until: int, kept: Kept | None
) -> Proposal | NoProposal:
    """``catch_up: latest`` and a ``start_deadline`` of one interval for each job; where its
    file has no start deadline (a timer), the catch-up alone; none where it has no catch-up."""
    after, changes, probe = fleet, [], []
    unsayable: dict[str, list[str]] = {}
    for job_id in finding.jobs:  # their first runs in this fleet: a herd's may have moved
        spec = fleet.spec(job_id)
        usual = usual_interval(spec) if spec is not None else None
        first = first_run(spec, until) if spec is not None else None
        if usual is None or first is None or not fleet.written(job_id):
            continue
        if (why := unsaid(fleet, job_id, ("catch_up",), kept)) is not None:
            unsayable.setdefault(why, []).append(job_id)
            continue
        change = f"{job_id}: catch_up skip -> latest"
        if unsaid(fleet, job_id, ("start_deadline",), kept) is None:
            after = after.with_job(job_id, {"catch_up": "latest", "start_deadline": usual})
            change += f", start_deadline none -> {usual}"
        else:
            after = after.with_job(job_id, {"catch_up": "latest"})
        changes.append(change)
        probe.append((first - 1, first + 1))
    if not changes:
        return NoProposal(finding, _jobs_and_why(unsayable) if unsayable else GENERATED)
    summary = "start the latest missed run when the scheduler is back (catch_up: latest)"
    if any("start_deadline" in change for change in changes):
        summary += ", if it can start within its usual interval (start_deadline)"
    if unsayable:
        summary += f"; not {_jobs_and_why(unsayable)}"
    return Proposal(finding, summary, tuple(changes), ("missed",), after, tuple(_merged(probe)))


def _merged(windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Outage windows in order and apart, as a scenario's ``scheduler_down`` takes them."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(windows):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
