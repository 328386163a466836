"""Dependency gating and cascading cancellation (seed 001).

A job may depend on one-time jobs (here) and on recurring ones (run by run:
:mod:`engine.rules.run_dependencies`). Its occurrences that fall due while a dependency has not
succeeded are BLOCKED; when the last one succeeds they become QUEUED and age from that tick. The
blocked runs are one range per job, never a record each (``Job.blocked_from``): one
``OccurrenceBlocked`` when the first falls due, one ``OccurrenceUnblocked`` for them all. When
a dependency can never succeed (it failed for good, or was cancelled or deleted first), every job
that depends on it, transitively, is cancelled: breadth first, each level in submission order,
each job once, at its shallowest level.

Given the tick clock, the journal, the event log, the policy, the job cursors and the occurrence
store. Connected after construction (:meth:`Dependencies.connect`) to the dispatcher (an
unblocked job is released), the run dependencies (a recurring job's outcome is judged there) and
the lifecycle (a cascade cancels): each of them leads back here when a run ends or is cancelled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.policies import DoomedSubmission
from engine.model.problems import Code, Problem, refusal
from engine.model.records import CancelReason, Job, JobSpec, Occurrence, OccurrenceState
from engine.schedules.kinds import Once

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.model.policies import Policy
    from engine.parts.cursors import JobCursors
    from engine.parts.dispatcher import Dispatcher
    from engine.parts.lifecycle import Lifecycle
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.tick_clock import TickClock
    from engine.rewind.journal import ChangeJournal
    from engine.rules.run_dependencies import RunDependencies

S = OccurrenceState


class Dependencies:
    """Gates jobs on the one-time jobs they depend on; owns no state beyond the job records."""

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
        self._policy = policy
        self._cursors = cursors
        self._jobs = cursors.jobs
        self._records = store.runs
        self._dispatcher: Dispatcher
        self._run_dependencies: RunDependencies
        self._lifecycle: Lifecycle

    def connect(
        self, dispatcher: Dispatcher, run_dependencies: RunDependencies, lifecycle: Lifecycle
    ) -> None:
        """The parts a dependency's outcome moves on, built after this rule (see the module
        docstring)."""
        self._dispatcher = dispatcher
        self._run_dependencies = run_dependencies
        self._lifecycle = lifecycle

    def problem(self, spec: JobSpec) -> Problem | None:
        """Why ``spec``'s dependencies cannot be accepted (the first it does not know), or None."""
        jobs = self._jobs
        for dependency_id in spec.depends_on:
            if dependency_id not in jobs:
                message = f"unknown dependency {dependency_id!r}"
                return refusal(Code.UNKNOWN_DEPENDENCY, message, "depends_on", dependency_id)
        return None

    def link(self, job: Job) -> str | None:
        """Register ``job`` with its dependencies; the job that dooms it, if one already has."""
        doomed_by = None
        cancel_doomed = self._policy.doomed_submission is DoomedSubmission.CANCEL
        for dependency_id in job.spec.depends_on:
            dependency = self._jobs[dependency_id]
            self._journal.touch(dependency)
            dependency.dependents = (*dependency.dependents, job.job_id)
            if not isinstance(dependency.spec.schedule, Once):
                job.upstream_runs = (*job.upstream_runs, dependency_id)
                continue  # judged run by run (engine/rules/run_dependencies.py)
            occurrence = self.only_occurrence(dependency)
            state = occurrence.state if occurrence is not None else None
            if (state is S.FAILED or state is S.CANCELLED) and cancel_doomed:
                assert occurrence is not None
                doomed_by = doomed_by or occurrence.cancel_cause or dependency_id
            elif state is not S.SUCCEEDED:
                job.unmet_dependencies += 1
        if job.unmet_dependencies == 0:
            job.runnable_since = self._clock.now
        return doomed_by

    def only_occurrence(self, job: Job) -> Occurrence | None:
        """A one-time job's run, if it has a record."""
        assert isinstance(job.spec.schedule, Once)
        return self._records.get((job.job_id, job.spec.schedule.at))

    def succeeded(self, job: Job) -> None:
        """``job``'s run succeeded: a dependent whose last dependency it was becomes runnable."""
        if not isinstance(job.spec.schedule, Once):
            self._run_dependencies.changed(job)
            return
        now = self._clock.now
        for dependent_id in job.dependents:
            dependent = self._jobs[dependent_id]
            self._journal.touch(dependent)
            dependent.unmet_dependencies -= 1
            if dependent.unmet_dependencies:
                continue
            dependent.runnable_since = now
            if dependent.blocked_from is None:
                continue  # none of its runs fell due: it waits on the due heap as usual
            dependent.blocked_from = None
            first = dependent.next_due
            if first is not None and self._cursors.is_created(dependent, first):
                self._log.add(ev.OccurrenceUnblocked, now, dependent.job_id, first)
            self._dispatcher.release(dependent)

    def failed(self, root: Job) -> None:
        """``root`` (one-time) can never succeed now: cancel its dependents, level by level.
        A recurring ``root``'s failed run is an outcome its dependents judge run by run."""
        if not root.dependents:
            return
        if not isinstance(root.spec.schedule, Once):
            self._run_dependencies.changed(root)
            return
        seen = {root.job_id}
        level = [root]
        while level:
            next_level = []
            for job in level:
                for dependent_id in job.dependents:
                    if dependent_id not in seen:
                        seen.add(dependent_id)
                        next_level.append(self._jobs[dependent_id])
            next_level.sort(key=lambda job: job.submission)
            for job in next_level:
                self._lifecycle.cancel_waiting(job, CancelReason.CASCADE, root.job_id)
            level = next_level
