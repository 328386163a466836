"""Backfill over a range: Airflow's ``dags backfill`` and Temporal's schedule backfill.

``BackfillJob(job, first, last, order)`` creates the job's runs whose logical (scheduled) ticks
fall in ``[first, last]`` and that do not exist: runs of that logical time like any other (they
wait for workers, pools and their upstream runs as scheduled runs do). A run exists when it has a
record, waits implicitly, was cancelled with its job's backlog, or is still the schedule's own (its
tick is at or after the job's cursor): a backfill creates none of those twice and says so
(``BackfillRunExists``). A run the cursor passed without a record (skipped by a rule, a resume or
an overlap rule) is created.

Order: ``parallel`` creates every run at once; ``sequential`` creates each once the one before is
final (Airflow's default run order). The backfill's own state is one small value on its job
(:class:`~engine.model.records.Backfill`, journaled with the job), so a rewind past it restores it.

Costs are per run of the range: the range is walked with the schedule, so a range of a billion
ticks of an hourly job costs its runs, and one with more than ``max_runs`` runs (10,000 unless
the command says otherwise) is refused after counting ``max_runs + 1`` of them. A job without a
backfill pays one comparison where a run of it ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.commands import BackfillJob, Outcome, Result, refused
from engine.model.limits import BACKFILL_RUNS
from engine.model.problems import Code
from engine.model.records import Backfill, BackfillOrder, Job, OccurrenceState
from engine.rules.run_dependencies import Verdict
from engine.schedules.kinds import Once

if TYPE_CHECKING:
    from engine.core import Engine

S = OccurrenceState


@dataclass(frozen=True, slots=True)
class Plan:
    """What a backfill would do now: the runs it would create and those that exist, in order."""

    create: tuple[int, ...]
    exist: tuple[int, ...]


class BackfillError(ValueError):
    """A backfill that cannot start: the command's answer, with the problem that says why."""

    def __init__(self, outcome: Outcome, code: Code, message: str, path: str = "") -> None:
        super().__init__(message)
        self.result = refused(outcome, code, message, path)


def plan(engine: Engine, command: BackfillJob) -> Plan:
    """The runs ``command`` would create now, and those it would find; raises
    :class:`BackfillError` for a backfill the engine refuses. Changes nothing (the dry run)."""
    job = _job(engine, command)
    create, exist = [], []
    tick = job.first_fire(command.first)
    while tick is not None and tick <= command.last:
        if len(create) + len(exist) == command.max_runs:
            raise BackfillError(
                Outcome.INVALID,
                Code.TOO_MANY_RUNS,
                f"the backfill of {job.job_id} from {command.first} to {command.last} has more "
                f"than {command.max_runs:,} runs (max_runs): narrow the range or raise max_runs",
                "max_runs",
            )
        (exist if exists(engine, job, tick) else create).append(tick)
        tick = job.first_fire(tick + 1)
    return Plan(tuple(create), tuple(exist))


def exists(engine: Engine, job: Job, tick: int) -> bool:
    """Whether the job's run for ``tick`` exists, or is its schedule's to create: it has a state
    (a record, a waiting or cancelled range, or SCHEDULED from the cursor on), where a run that
    was skipped, or that the cursor passed without a record, has none."""
    return engine.occurrence_state(job.job_id, tick) is not None


def _job(engine: Engine, command: BackfillJob) -> Job:
    job = engine.cursors.live(command.job_id)
    if job is None:
        raise BackfillError(
            Outcome.NOT_FOUND, Code.UNKNOWN_JOB, f"no job {command.job_id!r}", "job_id"
        )
    invalid = Outcome.INVALID
    if isinstance(job.spec.schedule, Once):
        message = f"{job.job_id} runs once: a backfill covers a recurring job's logical times"
        raise BackfillError(invalid, Code.RUNS_ONCE, message, "job_id")
    if command.last < command.first:
        message = f"to: {command.last} is before from: {command.first}"
        raise BackfillError(invalid, Code.RANGE_REVERSED, message, "last")
    if command.last > engine.now:
        message = (
            f"to: {command.last} is after now ({engine.now}): a backfill covers logical times "
            "that have passed"
        )
        raise BackfillError(invalid, Code.RANGE_NOT_PAST, message, "last")
    too_many = BACKFILL_RUNS.problem(command.max_runs)
    if too_many is not None:
        raise BackfillError(invalid, Code.OUT_OF_RANGE, f"max_runs: {too_many}", "max_runs")
    if job.backfill is not None:
        message = f"{job.job_id} has a backfill under way"
        raise BackfillError(Outcome.CONFLICT, Code.BACKFILL_UNDER_WAY, message, "job_id")
    if job.unmet_dependencies:
        message = f"{job.job_id} waits for the one-time jobs it depends on"
        raise BackfillError(Outcome.CONFLICT, Code.DEPENDENCIES_UNMET, message, "job_id")
    return job


class Backfills:
    """Starts backfills and moves them on; owns no state beyond the job records."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def start(self, command: BackfillJob) -> Result:
        engine = self._engine
        try:
            planned = plan(engine, command)
        except BackfillError as error:
            return error.result
        job = engine.jobs[command.job_id]
        order = command.order
        engine.log.add(
            ev.BackfillStarted,
            engine.now,
            job.job_id,
            command.first,
            command.last,
            order.value,
            len(planned.create),
        )
        engine.journal.touch(job)
        job.backfill = Backfill(job.first_fire(command.first), command.last, order)
        self.pump(job)
        return Result(Outcome.OK, len(planned.create))

    def pump(self, job: Job) -> None:
        """Create the backfill's runs as far as its order and the upstream runs allow."""
        engine = self._engine
        backfill = job.backfill
        assert backfill is not None
        engine.journal.touch(job)
        tick = backfill.next
        while tick is not None and tick <= backfill.last:
            if exists(engine, job, tick):
                engine.log.add(ev.BackfillRunExists, engine.now, job.job_id, tick)
            else:
                verdict = (
                    engine.run_dependencies.judge(job, tick) if job.upstream_runs else Verdict.RUN
                )
                if verdict is Verdict.WAIT:
                    break  # judged again when an upstream run ends
                if verdict is Verdict.RUN and _at_limit(engine, job):
                    break  # the end of one of its active runs frees a slot
                self._create(job, tick, verdict)
                if backfill.order is BackfillOrder.SEQUENTIAL and verdict is Verdict.RUN:
                    following = job.first_fire(tick + 1)
                    job.backfill = Backfill(following, backfill.last, backfill.order, tick)
                    return
            tick = job.first_fire(tick + 1)
        if tick is None or tick > backfill.last:
            job.backfill = None
            engine.log.add(ev.BackfillFinished, engine.now, job.job_id)
        else:
            job.backfill = Backfill(tick, backfill.last, backfill.order)

    def _create(self, job: Job, tick: int, verdict: Verdict) -> None:
        """The run for ``tick``: ready to run, or skipped or cancelled by its trigger rule."""
        engine = self._engine
        if verdict is Verdict.SKIP:
            because = job.spec.trigger_rule.value
            engine.log.add(ev.OccurrenceSkipped, engine.now, job.job_id, tick, because)
            engine.run_dependencies.changed(job)
            return
        occurrence = engine.store.materialise(job, tick, S.QUEUED)
        engine.log.add(ev.RunBackfilled, engine.now, job.job_id, tick)
        if verdict is Verdict.UPSTREAM_FAILED:
            engine.lifecycle.cascade(occurrence, engine.run_dependencies.root_cause(job, tick))
            return
        occurrence.ready_since = engine.now
        engine.dispatcher.push_ready(occurrence)

    def ended(self, job: Job, scheduled: int) -> None:
        """A run of ``job`` became final: the next run of a sequential backfill waiting for it,
        or, under an overlap rule, the runs a full limit held back."""
        backfill = job.backfill
        if backfill is None:
            return
        if backfill.waiting_for == scheduled:
            self._engine.journal.touch(job)
            job.backfill = Backfill(backfill.next, backfill.last, backfill.order)
            self.pump(job)
        elif backfill.waiting_for is None and job.spec.overlap is not None:
            self.pump(job)

    def upstream_changed(self, job: Job) -> None:
        """An upstream run of ``job`` reached an outcome: a backfill waiting for it goes on."""
        backfill = job.backfill
        if backfill is not None and backfill.waiting_for is None:
            self.pump(job)

    def pending(self, job: Job, tick: int) -> bool:
        """Whether the job's backfill has still to create its run for ``tick``."""
        backfill = job.backfill
        return (
            backfill is not None
            and backfill.next is not None
            and backfill.next <= tick <= backfill.last
            and job.fires_at(tick)
        )


def _at_limit(engine: Engine, job: Job) -> bool:
    """Whether the job's overlap rule has no slot for one more active run: a backfill waits
    for one (Airflow's backfill under ``max_active_runs``), whatever the rule's action, because
    the action (skip, hold, replace) is meant for a run falling due, not one asked for."""
    rule = job.spec.overlap
    return rule is not None and engine.overlap.active(job) >= rule.limit
