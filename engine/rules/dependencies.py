"""Dependency gating and cascading cancellation (seed 001).

A job may depend on one-time jobs (here) and on recurring ones (run by run:
:mod:`engine.rules.run_dependencies`). Its occurrences that fall due while a dependency has not
succeeded are BLOCKED; when the last one succeeds they become QUEUED and age from that tick. The
blocked runs are one range per job, never a record each (``Job.blocked_from``): one
``OccurrenceBlocked`` when the first falls due, one ``OccurrenceUnblocked`` for them all. When
a dependency can never succeed (it failed for good, or was cancelled or deleted first), every job
that depends on it, transitively, is cancelled: breadth first, each level in submission order,
each job once, at its shallowest level.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.policies import DoomedSubmission
from engine.model.records import CancelReason, Job, JobSpec, Occurrence, OccurrenceState
from engine.schedules.kinds import Once

if TYPE_CHECKING:
    from engine.core import Engine

S = OccurrenceState


class Dependencies:
    """Gates jobs on the one-time jobs they depend on; owns no state beyond the job records."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def problem(self, spec: JobSpec) -> str | None:
        """Why ``spec``'s dependencies cannot be accepted, or None."""
        return dependency_problem(self._engine.jobs, spec)

    def link(self, job: Job) -> str | None:
        """Register ``job`` with its dependencies; the job that dooms it, if one already has."""
        engine = self._engine
        doomed_by = None
        cancel_doomed = engine.policy.doomed_submission is DoomedSubmission.CANCEL
        for dependency_id in job.spec.depends_on:
            dependency = engine.jobs[dependency_id]
            engine.journal.touch(dependency)
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
            job.runnable_since = engine.now
        return doomed_by

    def only_occurrence(self, job: Job) -> Occurrence | None:
        """A one-time job's run, if it has a record."""
        assert isinstance(job.spec.schedule, Once)
        return self._engine.occurrences.get((job.job_id, job.spec.schedule.at))

    def succeeded(self, job: Job) -> None:
        """``job``'s run succeeded: a dependent whose last dependency it was becomes runnable."""
        engine = self._engine
        if not isinstance(job.spec.schedule, Once):
            engine.run_dependencies.changed(job)
            return
        for dependent_id in job.dependents:
            dependent = engine.jobs[dependent_id]
            engine.journal.touch(dependent)
            dependent.unmet_dependencies -= 1
            if dependent.unmet_dependencies:
                continue
            dependent.runnable_since = engine.now
            if dependent.blocked_from is None:
                continue  # none of its runs fell due: it waits on the due heap as usual
            dependent.blocked_from = None
            first = dependent.next_due
            if first is not None and engine.cursors.is_created(dependent, first):
                engine.log.add(ev.OccurrenceUnblocked, engine.now, dependent.job_id, first)
            engine.dispatcher.release(dependent)

    def failed(self, root: Job) -> None:
        """``root`` (one-time) can never succeed now: cancel its dependents, level by level.
        A recurring ``root``'s failed run is an outcome its dependents judge run by run."""
        if not root.dependents:
            return
        engine = self._engine
        if not isinstance(root.spec.schedule, Once):
            engine.run_dependencies.changed(root)
            return
        seen = {root.job_id}
        level = [root]
        while level:
            next_level = []
            for job in level:
                for dependent_id in job.dependents:
                    if dependent_id not in seen:
                        seen.add(dependent_id)
                        next_level.append(engine.jobs[dependent_id])
            next_level.sort(key=lambda job: job.submission)
            for job in next_level:
                engine.lifecycle.cancel_waiting(job, CancelReason.CASCADE, root.job_id)
            level = next_level


def dependency_problem(jobs: Mapping[str, Job], spec: JobSpec) -> str | None:
    """Why ``spec``'s dependencies cannot be accepted among ``jobs`` (one is not a job), or
    None: the engine's check, which the service asks again to name the field it refused."""
    for dependency_id in spec.depends_on:
        if dependency_id not in jobs:
            return f"unknown dependency {dependency_id!r}"
    return None
