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

:class:`Backfills` is given the tick clock, the journal, the event log, the job cursors and the
occurrence store; it is connected after construction (:meth:`Backfills.connect`) to the
dispatcher, the lifecycle, the run dependencies and the overlap rule, which its runs go through
like any other and which move a backfill on when a run ends. :func:`plan` is the dry run a reader
above the kernel asks of an engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.commands import BackfillJob, Outcome, Result, refused
from engine.model.limits import BACKFILL_RUNS
from engine.model.problems import Code
from engine.model.records import Backfill, BackfillOrder, Job, OccurrenceState
from engine.model.values import value
from engine.rules.run_dependencies import Verdict, upstream_reads
from engine.schedules.kinds import Once

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.parts.cursors import JobCursors
    from engine.parts.dispatcher import Dispatcher
    from engine.parts.lifecycle import Lifecycle
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.tick_clock import TickClock
    from engine.rewind.journal import ChangeJournal
    from engine.rules.overlap import OverlapControl
    from engine.rules.run_dependencies import RunDependencies

S = OccurrenceState


@value
class Plan:
    """What a backfill would do now: the runs it would create and those that exist, in order."""

    create: tuple[int, ...]
    exist: tuple[int, ...]


class BackfillError(ValueError):
    """A backfill that cannot start: the command's answer, with the problem that says why."""

    def __init__(self, outcome: Outcome, code: Code, message: str, path: str = "") -> None:
        super().__init__(message)
        self.result = refused(outcome, code, message, path)


def plan(cursors: JobCursors, now: int, command: BackfillJob) -> Plan:
    """The runs ``command`` would create at tick ``now``, and those it would find; raises
    :class:`BackfillError` for a backfill the engine refuses. Changes nothing (the dry run)."""
    job = _job(cursors, now, command)
    create, exist = [], []
    tick = job.first_fire(command.first)
    if tick is not None and tick <= command.last:
        _refuse_forgotten(cursors, job, tick)
    while tick is not None and tick <= command.last:
        if len(create) + len(exist) == command.max_runs:
            raise BackfillError(
                Outcome.INVALID,
                Code.TOO_MANY_RUNS,
                f"the backfill of {job.job_id} from {command.first} to {command.last} has more "
                f"than {command.max_runs:,} runs (max_runs): narrow the range or raise max_runs",
                "max_runs",
            )
        (exist if exists(cursors, job, tick) else create).append(tick)
        tick = job.first_fire(tick + 1)
    return Plan(tuple(create), tuple(exist))


def exists(cursors: JobCursors, job: Job, tick: int) -> bool:
    """Whether the job's run for ``tick`` exists, or is its schedule's to create: it has a state
    (a record, a waiting or cancelled range, or SCHEDULED from the cursor on), where a run that
    was skipped, or that the cursor passed without a record, has none."""
    return cursors.occurrence_state(job.job_id, tick) is not None


def _refuse_forgotten(cursors: JobCursors, job: Job, first: int) -> None:
    """Refuse a backfill whose first run lies behind its job's forgotten history, or reads an
    upstream run behind its upstream job's: whether those runs existed, and how they ended, is
    no longer known, and a backfill that guessed would create runs twice or judge them wrong."""
    reads = [(job, first), *upstream_reads(job, first, cursors.jobs.get)]
    for read, tick in reads:
        before = cursors.forgotten_before(read.job_id)
        if before is not None and tick < before:
            whose = "its" if read is job else f"its upstream job {read.job_id}'s"
            raise BackfillError(
                Outcome.CONFLICT,
                Code.RUN_FORGOTTEN,
                f"the backfill of {job.job_id} from {first} reaches behind the history horizon: "
                f"{whose} runs before tick {before} were forgotten; backfill from a later tick",
                "first",
            )


def _job(cursors: JobCursors, now: int, command: BackfillJob) -> Job:
    job = cursors.live(command.job_id)
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
    if command.last > now:
        message = (
            f"to: {command.last} is after now ({now}): a backfill covers logical times "
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

    def __init__(
        self,
        clock: TickClock,
        journal: ChangeJournal,
        log: EventLog,
        cursors: JobCursors,
        store: OccurrenceStore,
    ) -> None:
        self._clock = clock
        self._journal = journal
        self._log = log
        self._cursors = cursors
        self._jobs = cursors.jobs
        self._store = store
        self._dispatcher: Dispatcher
        self._lifecycle: Lifecycle
        self._run_dependencies: RunDependencies
        self._overlap: OverlapControl

    def connect(
        self,
        dispatcher: Dispatcher,
        lifecycle: Lifecycle,
        run_dependencies: RunDependencies,
        overlap: OverlapControl,
    ) -> None:
        """The parts a backfill's runs go through, built after this rule (see the module
        docstring)."""
        self._dispatcher = dispatcher
        self._lifecycle = lifecycle
        self._run_dependencies = run_dependencies
        self._overlap = overlap

    def start(self, command: BackfillJob) -> Result:
        now = self._clock.now
        try:
            planned = plan(self._cursors, now, command)
        except BackfillError as error:
            return error.result
        job = self._jobs[command.job_id]
        order = command.order
        self._log.add(
            ev.BackfillStarted,
            now,
            job.job_id,
            command.first,
            command.last,
            order.value,
            len(planned.create),
        )
        self._journal.touch(job)
        job.backfill = Backfill(job.first_fire(command.first), command.last, order)
        self.pump(job)
        return Result(Outcome.OK, len(planned.create))

    def pump(self, job: Job) -> None:
        """Create the backfill's runs as far as its order and the upstream runs allow."""
        backfill = job.backfill
        assert backfill is not None
        self._journal.touch(job)
        tick = backfill.next
        while tick is not None and tick <= backfill.last:
            if exists(self._cursors, job, tick):
                self._log.add(ev.BackfillRunExists, self._clock.now, job.job_id, tick)
            else:
                verdict = (
                    self._run_dependencies.judge(job, tick) if job.upstream_runs else Verdict.RUN
                )
                if verdict is Verdict.WAIT:
                    break  # judged again when an upstream run ends
                if verdict is Verdict.RUN and self._at_limit(job):
                    break  # the end of one of its active runs frees a slot
                self._create(job, tick, verdict)
                if backfill.order is BackfillOrder.SEQUENTIAL and verdict is Verdict.RUN:
                    following = job.first_fire(tick + 1)
                    job.backfill = Backfill(following, backfill.last, backfill.order, tick)
                    return
            tick = job.first_fire(tick + 1)
        if tick is None or tick > backfill.last:
            job.backfill = None
            self._log.add(ev.BackfillFinished, self._clock.now, job.job_id)
        else:
            job.backfill = Backfill(tick, backfill.last, backfill.order)

    def _create(self, job: Job, tick: int, verdict: Verdict) -> None:
        """The run for ``tick``: ready to run, or skipped or cancelled by its trigger rule."""
        now = self._clock.now
        if verdict is Verdict.SKIP:
            because = job.spec.trigger_rule.value
            self._log.add(ev.OccurrenceSkipped, now, job.job_id, tick, because)
            self._run_dependencies.changed(job)
            return
        occurrence = self._store.materialise(job, tick, S.QUEUED)
        self._log.add(ev.RunBackfilled, now, job.job_id, tick)
        if verdict is Verdict.UPSTREAM_FAILED:
            self._lifecycle.cascade(occurrence, self._run_dependencies.root_cause(job, tick))
            return
        occurrence.ready_since = now
        self._dispatcher.push_ready(occurrence)

    def ended(self, job: Job, scheduled: int) -> None:
        """A run of ``job`` became final: the next run of a sequential backfill waiting for it,
        or, under an overlap rule, the runs a full limit held back."""
        backfill = job.backfill
        if backfill is None:
            return
        if backfill.waiting_for == scheduled:
            self._journal.touch(job)
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

    def _at_limit(self, job: Job) -> bool:
        """Whether the job's overlap rule has no slot for one more active run: a backfill waits
        for one (Airflow's backfill under ``max_active_runs``), whatever the rule's action,
        because the action (skip, hold, replace) is meant for a run falling due, not one asked
        for."""
        rule = job.spec.overlap
        return rule is not None and self._overlap.active(job) >= rule.limit
