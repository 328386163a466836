"""Per-run dependencies between recurring jobs, judged by Airflow's trigger rules.

A job that depends on a recurring job waits run by run: its run for tick T waits for the
*upstream run for T*, the upstream job's latest run at or before T. When both fire at T that is
its run at T, as the tasks of one Airflow DAG run share a logical date; when the schedules differ
it is the run that last fell due by T (a daily load waits for the hourly extract of its hour,
the last one before it). An upstream job with no run at or before T is not waited for.

Each upstream run has an outcome: ``success`` (SUCCEEDED), ``failed`` (FAILED),
``upstream_failed`` (cancelled by a cascade), ``skipped`` (skipped by a rule, a resume, or
cancelled otherwise: by a user, a replacement, a deletion) or ``pending`` (anything else). The
job's trigger rule turns the outcomes into a verdict (:func:`verdict`): the run runs, waits,
is cancelled as ``upstream_failed`` (reason ``cascade``, naming the job whose failure started
it) or is skipped (``OccurrenceSkipped``, because of the rule). Cancelled and skipped runs are
outcomes for the jobs downstream of them in turn: failures and skips cascade as Airflow's do.

A job's runs are judged in order, its cursor run first: while the cursor run waits, the runs
after it wait behind it (BLOCKED; ``OccurrenceBlocked`` once, ``OccurrenceUnblocked`` when it
may run). A job waiting for an upstream run is re-judged when a run of an upstream job ends, is
cancelled or is skipped: the costs are per upstream outcome, not per tick.

Given the tick clock, the event log, the job cursors and the occurrence store. Connected after
construction (:meth:`RunDependencies.connect`) to the dispatcher (a job that may go on is
released), the lifecycle (an ``upstream_failed`` run is cancelled) and the backfills (a backfill
waiting for an upstream run goes on): each of them asks this rule to judge, so they cannot be
built before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import Enum
from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.job_rules import TriggerRule
from engine.model.records import CancelReason, Job, OccurrenceState
from engine.schedules.kinds import last_at_or_before

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.parts.cursors import JobCursors
    from engine.parts.dispatcher import Dispatcher
    from engine.parts.lifecycle import Lifecycle
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.tick_clock import TickClock
    from engine.rules.backfill import Backfills


def upstream_reads(
    job: Job, tick: int, job_of: Callable[[str], Job | None]
) -> Iterator[tuple[Job, int]]:
    """Each upstream job of ``job`` with the tick of the run that ``job``'s run at ``tick``
    may read of it: the latest at or before ``tick``, whether it ran or not (upstream jobs
    with no tick of their schedule by then are left out). What the history a job keeps must
    reach back to: forgetting (:mod:`engine.parts.horizon`) and the backfills that refuse to
    reach behind it read it here."""
    for upstream_id in job.upstream_runs:
        upstream = job_of(upstream_id)
        if upstream is None:
            continue
        read = last_at_or_before(upstream.spec.schedule, tick, 0)
        if read is not None:
            yield upstream, read


S = OccurrenceState
R = TriggerRule


class Verdict(Enum):
    RUN = "run"
    WAIT = "wait"
    UPSTREAM_FAILED = "upstream_failed"
    SKIP = "skip"


def verdict(rule: TriggerRule, outcomes: list[str]) -> Verdict:
    """Airflow's trigger rule over the upstream outcomes (``success``, ``failed``,
    ``upstream_failed``, ``skipped``, ``pending``), decided as soon as it can be."""
    failed = sum(o in ("failed", "upstream_failed") for o in outcomes)
    success = outcomes.count("success")
    skipped = outcomes.count("skipped")
    pending = outcomes.count("pending")
    if rule is R.ALWAYS:
        return Verdict.RUN
    if rule is R.ALL_SUCCESS:
        if failed:
            return Verdict.UPSTREAM_FAILED
        if skipped and not pending:  # a pending upstream may still fail, which comes first
            return Verdict.SKIP
    elif rule is R.ALL_FAILED:
        if success or skipped:
            return Verdict.SKIP
    elif rule is R.ONE_SUCCESS:
        if success:
            return Verdict.RUN
        if not pending:
            return Verdict.SKIP if skipped == len(outcomes) else Verdict.UPSTREAM_FAILED
    elif rule is R.ONE_FAILED:
        if failed:
            return Verdict.RUN
        if not pending:
            return Verdict.SKIP
    elif rule is R.NONE_FAILED:
        if failed:
            return Verdict.UPSTREAM_FAILED
    elif rule is R.NONE_SKIPPED and skipped:
        return Verdict.SKIP
    return Verdict.WAIT if pending else Verdict.RUN


class RunDependencies:
    """Judges a job's cursor run against its upstream runs; owns no state beyond job records."""

    def __init__(
        self, clock: TickClock, log: EventLog, cursors: JobCursors, store: OccurrenceStore
    ) -> None:
        self._clock = clock
        self._log = log
        self._cursors = cursors
        self._jobs = cursors.jobs
        self._store = store
        self._records = store.runs
        self._dispatcher: Dispatcher
        self._lifecycle: Lifecycle
        self._backfills: Backfills

    def connect(self, dispatcher: Dispatcher, lifecycle: Lifecycle, backfills: Backfills) -> None:
        """The parts a verdict moves on, built after this rule (see the module docstring)."""
        self._dispatcher = dispatcher
        self._lifecycle = lifecycle
        self._backfills = backfills

    def upstream_tick(self, upstream: Job, tick: int) -> int | None:
        """The upstream job's run for ``tick``: its latest run at or before it. Before its first
        scheduled run, only a run a backfill created (or is to create) counts."""
        first = upstream.first_run
        if first is not None and tick >= first:
            return last_at_or_before(upstream.spec.schedule, tick, first)
        earlier = last_at_or_before(upstream.spec.schedule, tick, 0)
        if earlier is None:
            return None
        if (upstream.job_id, earlier) in self._records:
            return earlier
        if upstream.backfill is not None and self._backfills.pending(upstream, earlier):
            return earlier
        return None

    def outcome(self, upstream: Job, tick: int) -> str:
        record = self._records.get((upstream.job_id, tick))
        state = (
            record.state
            if record is not None
            else self._cursors.occurrence_state(upstream.job_id, tick)
        )
        if state is S.SUCCEEDED:
            return "success"
        if state is S.FAILED:
            return "failed"
        if state is S.CANCELLED:
            cascade = record is not None and record.cancel_reason is CancelReason.CASCADE
            if record is None and upstream.cancelled_backlog is not None:
                cascade = upstream.cancelled_backlog.reason is CancelReason.CASCADE
            return "upstream_failed" if cascade else "skipped"
        if state is None:
            if upstream.backfill is not None and self._backfills.pending(upstream, tick):
                return "pending"  # its backfill is still to create it
            return "skipped"  # a run the cursor passed without a record: skipped
        return "pending"

    def gate(self, job: Job) -> bool:
        """Judge the job's cursor run (and the next, while runs are cancelled or skipped): True
        when it may go on (or is not due yet), False when it waits for an upstream run."""
        cursors, log, now = self._cursors, self._log, self._clock.now
        while True:
            scheduled = job.next_due
            if scheduled is None or scheduled > cursors.created_limit(job):
                return True
            judged = self.judge(job, scheduled)
            if judged is Verdict.WAIT:
                if job.blocked_from is None:
                    job.blocked_from = scheduled
                    log.add(ev.OccurrenceBlocked, now, job.job_id, scheduled)
                return False
            if job.blocked_from is not None:
                job.blocked_from = None
                log.add(ev.OccurrenceUnblocked, now, job.job_id, scheduled)
            if judged is Verdict.RUN:
                return True
            if judged is Verdict.SKIP:
                because = job.spec.trigger_rule.value
                log.add(ev.OccurrenceSkipped, now, job.job_id, scheduled, because)
                cursors.advance(job)
                self.changed(job)
            else:
                occurrence = self._store.materialise(job, scheduled, S.QUEUED)
                cursors.advance(job)
                self._lifecycle.cascade(occurrence, self.root_cause(job, scheduled))

    def changed(self, upstream: Job) -> None:
        """A run of ``upstream`` reached an outcome: judge again the jobs waiting on it."""
        jobs = self._jobs
        for dependent_id in upstream.dependents:
            dependent = jobs[dependent_id]
            if (
                upstream.job_id in dependent.upstream_runs
                and dependent.blocked_from is not None
                and not dependent.unmet_dependencies
            ):
                self._dispatcher.release(dependent)
            if dependent.backfill is not None:
                self._backfills.upstream_changed(dependent)

    def judge(self, job: Job, scheduled: int) -> Verdict:
        jobs = self._jobs
        outcomes = []
        for upstream_id in job.upstream_runs:
            upstream = jobs[upstream_id]
            tick = self.upstream_tick(upstream, scheduled)
            if tick is not None:
                outcomes.append(self.outcome(upstream, tick))
        return verdict(job.spec.trigger_rule, outcomes)

    def root_cause(self, job: Job, scheduled: int) -> str:
        """The job whose failure started the cascade: the first failed upstream, or the cause it
        was itself cancelled for."""
        for upstream_id in job.upstream_runs:
            upstream = self._jobs[upstream_id]
            tick = self.upstream_tick(upstream, scheduled)
            if tick is None:
                continue
            outcome = self.outcome(upstream, tick)
            if outcome == "failed":
                return upstream_id
            if outcome == "upstream_failed":
                record = self._records.get((upstream_id, tick))
                cause = record.cancel_cause if record is not None else None
                if cause is None and upstream.cancelled_backlog is not None:
                    cause = upstream.cancelled_backlog.cause
                return cause or upstream_id
        return job.upstream_runs[0]
