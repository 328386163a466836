"""Latency attribution: where each run's waiting went, summarised overall, per priority, per job.

For every run that has fallen due, from the event log and the runs' records:

- **schedule lag**: from its scheduled tick to the tick it could first take a worker (waiting for
  a dependency, a pause, a late creation), or to its first start if that came sooner;
- **queue wait**: ready, but no worker took it: before its first attempt, and between each
  retry's eligibility and its start;
- **backoff wait**: between each failed attempt and its retry's eligibility.

Each is summarised by count, p50, p95 (nearest rank: an observed value) and max. A run still
waiting at ``now`` (for its first attempt, or for a worker after its backoff) counts with its
waiting so far: leaving it out would make an overloaded fleet look fast, since the runs that wait
longest are those that have not started. ``runs`` counts the runs that started, ``waiting`` the
due runs that have not; the tables count a group's ``due`` runs, both together, which its figures
are over.

The report is the metric source for other tools (a sweep, a comparison): :data:`METRICS` names
every figure, and :meth:`LatencyReport.metric` reads one for all runs, one priority or one job.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from cronlapse.analyses.stats import percentile_of_sorted
from engine.core import Engine
from engine.model import events as ev
from engine.model.records import PRIORITY_LEVELS, CancelReason, OccurrenceState
from engine.model.values import value

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


@value
class RunLatency:
    """One due run's waiting, in ticks (so far, for a run that has not started). A ``@value``:
    a report builds one a run, and a frozen dataclass's ``__init__`` was most of that."""

    job_id: str
    scheduled: int
    priority: int
    lag: int
    wait: int
    backoff: int
    started: bool = True

    @property
    def total(self) -> int:
        return self.lag + self.wait + self.backoff


Figures = tuple[str, int, int, int, int, int, bool]
"""A due run's :class:`RunLatency` fields, in their order, as a plain tuple: the report's
figures are worked out from these, and a :class:`RunLatency` is built only for a run the report
keeps (a sweep keeps none: building them was a fifth of its report on the demo)."""
_JOB, _PRIORITY, _LAG, _WAIT, _BACKOFF, _STARTED = 0, 2, 3, 4, 5, 6


@dataclass(frozen=True, slots=True)
class Summary:
    count: int
    p50: int | None
    p95: int | None
    max: int | None

    @classmethod
    def of(cls, values: list[int]) -> Summary:
        """The figures of ``values``, sorted once (not once a percentile)."""
        ordered = sorted(values)
        return cls(
            len(ordered),
            percentile_of_sorted(ordered, 0.5),
            percentile_of_sorted(ordered, 0.95),
            ordered[-1] if ordered else None,
        )


@dataclass(frozen=True, slots=True)
class Latency:
    """The summaries of one group of runs (all, one priority, one job)."""

    runs: int
    """The runs that started (the ``runs`` metric)."""
    lag: Summary
    wait: Summary
    backoff: Summary
    due: int
    """Every due run the figures are over: the started ones and those still waiting."""

    @classmethod
    def of(cls, runs: Sequence[Figures]) -> Latency:
        return cls(
            sum(map(itemgetter(_STARTED), runs)),
            Summary.of(list(map(itemgetter(_LAG), runs))),
            Summary.of(list(map(itemgetter(_WAIT), runs))),
            Summary.of(list(map(itemgetter(_BACKOFF), runs))),
            len(runs),
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


def priority_words(priority: int) -> str:
    """A priority with its name, where it has one: ``2 (high)``, ``7``. The number is what
    orders runs, the name what a job was given (a file's ``priority: high``, the API's)."""
    name = priority_name(priority)
    return str(priority) if name == str(priority) else f"{priority} ({name})"


def latency_report(
    engine: Engine,
    worst: int = WORST_RUNS,
    jobs: Collection[str] | None = None,
    *,
    priorities: Collection[int] | None = None,
    keep_runs: bool = True,
) -> LatencyReport:
    """Attribute the waiting of every run the engine has started so far (its log to ``now``).

    ``jobs``: the jobs whose own figures the report keeps (``by_job``), by default every job;
    a reader of a few figures (a sweep's metrics) names the jobs it selects, or none, and the
    others' figures are never worked out (two thousand jobs' percentiles, on the demo).
    ``priorities``: the same for ``by_priority``; with neither jobs nor priorities wanted, the
    runs are not grouped at all. ``keep_runs``: the report keeps every run (``runs``); a reader
    of its figures alone passes False, and no :class:`RunLatency` is built but the ``worst``."""
    runs = attribute(engine)
    overall = Latency.of(runs)
    by_priority, by_job = _grouped(runs, priorities, jobs, engine.query.jobs())
    counts = _counts(engine)
    # nsmallest is sorted(...)[:worst], ties kept in the runs' order, without sorting them all.
    longest = heapq.nsmallest(worst, runs, key=_longest_first)
    return LatencyReport(
        engine.now,
        overall,
        {
            p: Latency.of(by_priority[p])
            for p in sorted(by_priority, reverse=True)
            if by_priority[p]
        },
        {j: Latency.of(group) for j, group in by_job.items() if group},
        tuple(RunLatency(*run) for run in longest),
        tuple(RunLatency(*run) for run in runs) if keep_runs else (),
        # A run is created when it falls due, never ahead: the due runs not started are every
        # run waiting (count_runs of QUEUED and BLOCKED, which counted each job's backlog again:
        # a cron schedule's day by day, 22 ms of a sweep's variant on the demo).
        waiting=overall.due - overall.runs,
        failed=counts["failed"],
        cancelled=counts["cancelled"],
        skipped=counts["skipped"],
        utilisation=_utilisation(engine),
    )


def _grouped(
    runs: list[Figures],
    priorities: Collection[int] | None,
    jobs: Collection[str] | None,
    every_job: Collection[str],
) -> tuple[dict[int, list[Figures]], dict[str, list[Figures]]]:
    """The runs by priority and by job: those of the ``priorities`` and ``jobs`` named, or
    (None) of every one, the engine's jobs (``every_job``) first, then a deleted job's. With
    none named (a sweep's metrics, mostly), the runs are not read."""
    by_priority: dict[int, list[Figures]] = (
        {} if priorities is None else {priority: [] for priority in priorities}
    )
    by_job: dict[str, list[Figures]] = {
        job_id: [] for job_id in (every_job if jobs is None else jobs)
    }
    if priorities is not None and jobs is not None and not by_priority and not by_job:
        return by_priority, by_job
    for run in runs:
        if priorities is None:
            by_priority.setdefault(run[_PRIORITY], []).append(run)
        elif run[_PRIORITY] in by_priority:
            by_priority[run[_PRIORITY]].append(run)
        if jobs is None:
            by_job.setdefault(run[_JOB], []).append(run)
        elif run[_JOB] in by_job:
            by_job[run[_JOB]].append(run)
    return by_priority, by_job


def _longest_first(run: Figures) -> tuple[int, int, str]:
    """The order of the worst runs: the longest waiting in all first, then by tick and job."""
    job_id, scheduled, _, lag, wait, backoff, _ = run
    return -(lag + wait + backoff), scheduled, job_id


def attribute(engine: Engine) -> list[Figures]:
    """Each due run's lag, wait and backoff: the started ones in the order they first started,
    then those still waiting.

    Reads the log's stored fields of two event kinds without building events, the others
    passed over in C: on the demo fleet's week (160,000 events) building them was most of the
    cost. The runs' ready ticks and priorities are read in one go, not a seek a run."""
    now = engine.now
    query = engine.query
    readiness = query.ready_and_priorities()
    eligible: dict[tuple[str, int], int] = {}
    started: list[Figures] = []
    place: dict[tuple[str, int], int] = {}
    """Each started run's index in ``started``: a run's figures are made at its first start,
    final unless it is retried (a few in a hundred), whose figures are made again."""
    for kind, fields in engine.log.stored_of((ev.AttemptStarted, ev.RetryScheduled)):
        if kind is ev.AttemptStarted:
            tick, job_id, scheduled = fields[0], fields[1], fields[2]
            key = (job_id, scheduled)
            at = place.get(key)
            if at is None:
                ready, priority = readiness[key]
                if ready < scheduled:  # min(max(ready, scheduled), tick), without two calls
                    ready = scheduled
                if ready > tick:
                    ready = tick
                place[key] = len(started)
                started.append(
                    (job_id, scheduled, priority, ready - scheduled, tick - ready, 0, True)
                )
            elif key in eligible:
                waited = tick - eligible.pop(key)
                if waited > 0:
                    started[at] = _waited_more(started[at], waited, 0)
        elif kind is ev.RetryScheduled:
            tick, key, eligible_at = fields[0], (fields[1], fields[2]), fields[4]
            eligible[key] = eligible_at
            at = place[key]
            started[at] = _waited_more(started[at], 0, min(eligible_at, now) - tick)
    for key, eligible_at in eligible.items():  # a retry waiting for a worker after its backoff
        if eligible_at < now and query.run_state(*key) is S.RETRY_PENDING:
            at = place[key]
            started[at] = _waited_more(started[at], now - eligible_at, 0)
    return started + _still_waiting(engine)


def _waited_more(run: Figures, wait: int, backoff: int) -> Figures:
    """``run``'s figures with ``wait`` more ticks of queue wait and ``backoff`` more of
    backoff."""
    job_id, scheduled, priority, lag, waited, backed_off, started = run
    return job_id, scheduled, priority, lag, waited + wait, backed_off + backoff, started


def _still_waiting(engine: Engine) -> list[Figures]:
    """Due runs without a first attempt: records (queued or blocked), then the lazy backlogs
    (the query API's implicit ranges), whose runs are counted, not materialised."""
    now = engine.now
    query = engine.query
    records = query.records()
    runs = []
    for state in (S.QUEUED, S.BLOCKED):
        for job_id, scheduled in query.record_keys(state):
            if scheduled <= now:
                record = records[(job_id, scheduled)]
                ready = None if state is S.BLOCKED else record.ready_since
                runs.append(_waiting(job_id, scheduled, record.priority, ready, now))
    for job in query.jobs().values():
        backlog = query.implicit_range(job.job_id)
        if backlog is None or backlog.state is S.CANCELLED:
            continue
        ready = None if backlog.state is S.BLOCKED else job.runnable_since
        for scheduled in query.implicit_runs(job.job_id, backlog.first, min(backlog.last, now)):
            priority = job.spec_for(scheduled).priority
            runs.append(_waiting(job.job_id, scheduled, priority, ready, now))
    return runs


def _waiting(job_id: str, scheduled: int, priority: int, ready: int | None, now: int) -> Figures:
    """A run not started by ``now``: lagging until it could run (all along if blocked), then
    waiting for a worker."""
    could_run = now if ready is None else min(max(ready, scheduled), now)
    return job_id, scheduled, priority, could_run - scheduled, now - could_run, 0, False


def _counts(engine: Engine) -> dict[str, int]:
    """Runs failed for good, cancelled and skipped.

    Skipped are the runs that never ran because of a rule: those a resume or an overlap rule
    skipped, and a held run a newer one took the place of (BufferLatest: Kubernetes never
    creates it). Cancelled are the runs a user, a cascade, a deletion, a start deadline or
    Replace (which takes an active run's place) ended."""
    log = engine.log
    counts = {"failed": log.count(ev.OccurrenceFailed), "cancelled": 0}
    counts["skipped"] = log.count(ev.OccurrenceSkipped)
    held: set[tuple[str, int]] = set()
    rare = (ev.OccurrenceHeld, ev.OccurrenceCancelled, ev.BacklogCancelled, ev.OccurrencesSkipped)
    for kind, fields in log.stored_of(rare):  # in the log's order: a hold before its cancel
        if kind is ev.OccurrenceHeld:
            event = ev.OccurrenceHeld(*fields)
            held.add((event.job_id, event.scheduled))
        elif kind is ev.OccurrenceCancelled:
            event = ev.OccurrenceCancelled(*fields)
            let_go = (
                event.reason is CancelReason.REPLACED and (event.job_id, event.scheduled) in held
            )
            counts["skipped" if let_go else "cancelled"] += 1
        elif kind is ev.BacklogCancelled:
            counts["cancelled"] += ev.BacklogCancelled(*fields).runs
        elif kind is ev.OccurrencesSkipped:
            counts["skipped"] += _skipped(engine, ev.OccurrencesSkipped(*fields))
    return counts


def _skipped(engine: Engine, event: ev.OccurrencesSkipped) -> int:
    """How many of the job's fire times fell in the skipped range ``(after, through]``."""
    job = engine.query.jobs()[event.job_id]
    count, tick = 0, event.after + 1
    while (fire := job.spec.schedule.first_at_or_after(tick)) is not None and fire <= event.through:
        count += 1
        tick = fire + 1
    return count


def _utilisation(engine: Engine) -> float | None:
    """Busy ticks over registered ticks, all workers together, from the workers' own counters."""
    now = engine.now
    workers = engine.query.workers().values()
    span = sum(max(0, now - worker.registered) for worker in workers)
    return sum(worker.busy_ticks_at(now) for worker in workers) / span if span else None
