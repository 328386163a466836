"""Overlap control: a job's limit on its active runs, and what a run falling due at the limit does.

One model under every source system's rule (docs/semantics.md): a job with an
:class:`~engine.model.records.OverlapRule` has at most ``limit`` *active* runs, a run being active
from the tick it is created until it is final (waiting for a worker, running, waiting for a retry:
Kubernetes counts a Job from its creation, Temporal a workflow from its start, systemd a unit
from its activation, Airflow a DAG run once it is running). A run that falls due while the job
is at its limit is, by the rule's action:

- skipped (Forbid, Skip): ``OccurrenceSkipped``; it never runs;
- held until a slot frees, at most one (BufferOne): ``OccurrenceHeld``; a run falling due while
  one is held is skipped;
- held until a slot frees, all of them in order (BufferAll, max_active_runs): one
  ``OccurrenceHeld`` for the first, then each leaves the buffer with an ``OccurrenceReleased``;
- held until a slot frees, the newest only (BufferLatest: Kubernetes' Forbid as its controller
  runs it): ``OccurrenceHeld``; a newer run falling due takes the held one's place, which is
  cancelled (reason ``replaced``); a held run past the job's ``start_deadline`` expires;
- given the slot of the oldest active run (Replace, CancelOther, TerminateOther), which is
  cancelled (``OccurrenceCancelled``, reason ``replaced``), its running attempt terminated.

Costs stay per assignment: a limited job's active runs are records (at most ``limit`` of them,
each about to be assigned), its BufferAll backlog stays implicit behind its cursor, and a skip is
one event and a step of the cursor. A limited job never has an implicit front in the ready queue;
its active runs wait there as records.

Given the tick clock, the journal, the event log, the policy, the job cursors and the occurrence
store. Connected after construction (:meth:`OverlapControl.connect`) to the dispatcher (an active
run waits in its queue), the attempts (a replaced run's attempt is terminated), the lifecycle (a
replaced run is cancelled) and the run dependencies (a cursor run may wait for its upstream runs):
the dispatcher releases a limited job through this rule and an attempt's end frees a slot here,
so neither side can be built after the other.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.job_rules import Overlap
from engine.model.policies import DispatchMode
from engine.model.records import Job, Occurrence, OccurrenceState
from engine.schedules.kinds import last_at_or_before

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.model.policies import Policy
    from engine.parts.attempts import Attempts
    from engine.parts.cursors import JobCursors
    from engine.parts.dispatcher import Dispatcher
    from engine.parts.lifecycle import Lifecycle
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.tick_clock import TickClock
    from engine.rewind.journal import ChangeJournal
    from engine.rules.run_dependencies import RunDependencies

S = OccurrenceState


class Action(Enum):
    """What a run that falls due at the limit does: the model under the named rules."""

    SKIP = "skip"
    BUFFER_ONE = "buffer_one"
    BUFFER_ALL = "buffer_all"
    BUFFER_LATEST = "buffer_latest"
    REPLACE = "replace"


ACTIONS: dict[Overlap, Action] = {
    Overlap.FORBID: Action.SKIP,
    Overlap.SKIP: Action.SKIP,
    Overlap.BUFFER_ONE: Action.BUFFER_ONE,
    Overlap.BUFFER_ALL: Action.BUFFER_ALL,
    Overlap.MAX_ACTIVE_RUNS: Action.BUFFER_ALL,
    Overlap.BUFFER_LATEST: Action.BUFFER_LATEST,
    Overlap.REPLACE: Action.REPLACE,
    Overlap.CANCEL_OTHER: Action.REPLACE,
    Overlap.TERMINATE_OTHER: Action.REPLACE,
}


class OverlapControl:
    """Creates a limited job's runs as its rule allows; owns no state beyond the job records."""

    def __init__(
        self,
        clock: TickClock,
        journal: ChangeJournal,
        log: EventLog,
        policy: Policy,
        cursors: JobCursors,
        store: OccurrenceStore,
    ) -> None:
        self._clock = clock
        self._journal = journal
        self._log = log
        self._automatic = policy.dispatch is DispatchMode.AUTO
        self._cursors = cursors
        self._store = store
        self._records = store.records
        self._dispatcher: Dispatcher
        self._attempts: Attempts
        self._lifecycle: Lifecycle
        self._run_dependencies: RunDependencies

    def connect(
        self,
        dispatcher: Dispatcher,
        attempts: Attempts,
        lifecycle: Lifecycle,
        run_dependencies: RunDependencies,
    ) -> None:
        """The parts a run at the limit acts through, built after this rule (see the module
        docstring)."""
        self._dispatcher = dispatcher
        self._attempts = attempts
        self._lifecycle = lifecycle
        self._run_dependencies = run_dependencies

    def active(self, job: Job) -> int:
        """The job's active runs: its records that are not final, less the one held."""
        held = job.held
        return len(job.open) - (held is not None and held in job.open)

    def release(self, job: Job) -> None:
        """Take the job as far as its rule allows now: a held run into a free slot first, then
        each run due from the cursor on started, skipped, held or put in another's place. The
        dispatcher calls this instead of giving a limited job a front (dependencies met)."""
        cursors = self._cursors
        rule = job.spec.overlap
        assert rule is not None
        action = ACTIONS[rule.policy]
        self._journal.touch(job)
        while True:
            if job.held is not None:
                if action is Action.BUFFER_LATEST and self._superseded(job):
                    if job.next_due > cursors.created_limit(job):  # type: ignore[operator]
                        cursors.wait_for_due(job)
                        return  # it falls due later in this very tick, and takes the place then
                    self._let_go_held(job, rule.policy)
                    continue
                if self._promote_held(job, rule.limit):
                    continue
            if job.upstream_runs and not self._run_dependencies.gate(job):
                return  # the cursor run waits for an upstream run
            scheduled = job.next_due
            if scheduled is None or scheduled > cursors.created_limit(job):
                cursors.wait_for_due(job)
                return
            if self.active(job) < rule.limit:
                self._start(job, scheduled)
            elif action is Action.BUFFER_ALL:
                if job.held_from is None:
                    job.held_from = scheduled
                    self._log.add(
                        ev.OccurrenceHeld, self._clock.now, job.job_id, scheduled, rule.policy.value
                    )
                return  # off the due heap: the end of an active run releases the next
            elif action is Action.BUFFER_ONE and job.held is None:
                self._hold(job, scheduled, rule.policy)
            elif self._skip_backlog(job, scheduled, action):
                continue
            elif action is Action.REPLACE:
                self._replace_oldest(job, rule.policy)
            elif action is Action.BUFFER_LATEST:
                self._hold(job, scheduled, rule.policy)  # the one held before was let go above
            else:
                self._skip(job, scheduled, rule.policy)

    def freed(self, job: Job) -> None:
        """A run of ``job`` became final outside :meth:`release`: a slot may be free."""
        if job.spec.overlap is not None and not job.unmet_dependencies:
            self.release(job)

    def _hold(self, job: Job, scheduled: int, policy: Overlap) -> None:
        """The cursor run waits for a slot as a QUEUED record outside the ready queue."""
        self._store.materialise(job, scheduled, S.QUEUED)
        job.held = scheduled
        self._cursors.advance(job)
        self._log.add(ev.OccurrenceHeld, self._clock.now, job.job_id, scheduled, policy.value)

    def _superseded(self, job: Job) -> bool:
        """Whether a run newer than the held one is due (BufferLatest), so that the held one must
        give way: the cursor run was created, or falls due at this very tick under automatic
        dispatch. Attempts end before runs fall due within a tick, and an active run that ends
        at a schedule's tick leaves Kubernetes' next sync that schedule, the most recent one:
        the run held before it never starts."""
        due = job.next_due
        if due is None:
            return False
        if due <= self._cursors.created_limit(job):
            return True
        return self._automatic and due <= self._clock.now and job.paused_through is None

    def _let_go_held(self, job: Job, policy: Overlap) -> None:
        """A newer run takes the held run's place (BufferLatest): the held run, which has a
        record, is cancelled with reason ``replaced`` (one that expired meanwhile is only let
        go). A skip would leave no record, and a held run answers QUEUED like BufferOne's."""
        assert job.held is not None
        occurrence = self._records[(job.job_id, job.held)]
        job.held = None
        if occurrence.state is S.QUEUED:
            self._lifecycle.replaced(occurrence, policy.value)

    def _promote_held(self, job: Job, limit: int) -> bool:
        """The held run takes a free slot (or is dropped, if it was cancelled meanwhile)."""
        assert job.held is not None
        occurrence = self._records[(job.job_id, job.held)]
        if occurrence.state is S.QUEUED and self.active(job) >= limit:
            return False
        job.held = None
        if occurrence.state is not S.QUEUED:
            return True
        self._ready(occurrence)
        self._log.add(ev.OccurrenceReleased, self._clock.now, *occurrence.key, True)
        return True

    def _start(self, job: Job, scheduled: int) -> None:
        """The cursor run becomes active: a record in the ready queue."""
        occurrence = self._store.materialise(job, scheduled, S.QUEUED)
        self._cursors.advance(job)
        if job.held_from is None:
            self._dispatcher.push_ready(occurrence)
            return
        self._ready(occurrence)
        due = job.next_due
        emptied = due is None or due > self._cursors.created_limit(job)
        if emptied:
            job.held_from = None
        self._log.add(ev.OccurrenceReleased, self._clock.now, job.job_id, scheduled, emptied)

    def _skip(self, job: Job, scheduled: int, policy: Overlap) -> None:
        """The cursor run never runs: one event, and the cursor moves past it (a run behind the
        cursor without a record is no run: its state answers None, as a resume's skips do)."""
        self._log.add(ev.OccurrenceSkipped, self._clock.now, job.job_id, scheduled, policy.value)
        self._cursors.advance(job)
        if job.dependents:
            self._run_dependencies.changed(job)

    def _skip_backlog(self, job: Job, scheduled: int, action: Action) -> bool:
        """Several runs due at once at the limit (a dispatch after a long wait under manual
        dispatch, a resume that catches up): those that can never run are skipped as one range
        (``OccurrencesSkipped``), not one by one: all of them, or all but the latest under
        Replace and BufferLatest (each would take the place of the one before). Whether it
        skipped any."""
        limit = self._cursors.created_limit(job)
        second = job.first_fire(scheduled + 1)
        if second is None or second > limit:
            return False  # one run due: its own event
        through = limit
        if action is Action.REPLACE or action is Action.BUFFER_LATEST:
            latest = last_at_or_before(job.spec.schedule, limit, second)
            if latest is None or not job.fires_at(latest):
                return False
            through = latest - 1
        job.skipped = (*job.skipped, (scheduled - 1, through))
        self._log.add(ev.OccurrencesSkipped, self._clock.now, job.job_id, scheduled - 1, through)
        job.next_due = self._cursors.walk(job, scheduled)
        if job.dependents:
            self._run_dependencies.changed(job)
        return True

    def _replace_oldest(self, job: Job, policy: Overlap) -> None:
        """Cancel the job's oldest active run (terminating its attempt) to free its slot."""
        oldest = next(t for t in job.open if t != job.held)
        occurrence = self._records[(job.job_id, oldest)]
        if occurrence.state is S.RUNNING:
            self._attempts.terminate(occurrence)
        self._lifecycle.replaced(occurrence, policy.value)

    def _ready(self, occurrence: Occurrence) -> None:
        """A run that waited for a slot waits for a worker from now: aging counts from here."""
        self._journal.touch(occurrence)
        occurrence.ready_since = max(occurrence.ready_since, self._clock.now)
        self._dispatcher.push_ready(occurrence)
