"""Dependency gating and cascading cancellation (seed 001), as a mixin of the engine.

A job may depend on one-time jobs. Its occurrences that fall due while a dependency has not
succeeded are BLOCKED; when the last one succeeds they become QUEUED and age from that tick. When
a dependency can never succeed (it failed for good, or was cancelled or deleted first), every job
that depends on it, transitively, is cancelled: breadth first, each level in submission order,
each job once, at its shallowest level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import events as ev
from engine.model import CancelReason, Job, JobSpec, OccurrenceState
from engine.policies import DoomedSubmission
from engine.schedules import Once

if TYPE_CHECKING:
    from engine.core import Engine

S = OccurrenceState


class DependenciesMixin:
    def _check_dependencies(self: Engine, spec: JobSpec) -> str | None:
        for dependency_id in spec.depends_on:
            dependency = self.jobs.get(dependency_id)
            if dependency is None:
                return f"unknown dependency {dependency_id!r}"
            if not isinstance(dependency.spec.schedule, Once):
                return f"dependency {dependency_id!r} must be a one-time job"
        return None

    def _link_dependencies(self: Engine, job: Job) -> str | None:
        """Register ``job`` with its dependencies; the job that dooms it, if one already has."""
        doomed_by = None
        for dependency_id in job.spec.depends_on:
            dependency = self.jobs[dependency_id]
            self._touch(dependency)
            dependency.dependents = (*dependency.dependents, job.job_id)
            occurrence = self._only_occurrence(dependency)
            state = occurrence.state if occurrence is not None else None
            if (state is S.FAILED or state is S.CANCELLED) and self.policy.doomed_submission is (
                DoomedSubmission.CANCEL
            ):
                doomed_by = doomed_by or occurrence.cancel_cause or dependency_id
            elif state is not S.SUCCEEDED:
                job.unmet_dependencies += 1
        if job.unmet_dependencies == 0:
            job.runnable_since = self.now
        return doomed_by

    def _only_occurrence(self: Engine, job: Job):
        assert isinstance(job.spec.schedule, Once)
        return self.occurrences.get((job.job_id, job.spec.schedule.at))

    def _dependency_succeeded(self: Engine, job: Job) -> None:
        for dependent_id in job.dependents:
            dependent = self.jobs[dependent_id]
            self._touch(dependent)
            dependent.unmet_dependencies -= 1
            if dependent.unmet_dependencies:
                continue
            dependent.runnable_since = self.now
            blocked, dependent.blocked = dependent.blocked, ()
            for key in blocked:
                occurrence = self.occurrences[key]
                if occurrence.state is not S.BLOCKED:
                    continue
                self._touch(occurrence)
                occurrence.ready_since = self.now
                self._set_state(occurrence, S.QUEUED)
                self.log.append(ev.OccurrenceUnblocked(self.now, *key))
                self._push_ready(occurrence)

    def _dependency_failed(self: Engine, root: Job) -> None:
        """``root`` (one-time) can never succeed now: cancel its dependents, level by level."""
        if not root.dependents:
            return
        seen = {root.job_id}
        level = [root]
        while level:
            next_level = []
            for job in level:
                for dependent_id in job.dependents:
                    if dependent_id not in seen:
                        seen.add(dependent_id)
                        next_level.append(self.jobs[dependent_id])
            next_level.sort(key=lambda job: job.submission)
            for job in next_level:
                self._cancel_job(job, root.job_id)
            level = next_level

    def _cancel_job(self: Engine, job: Job, cause: str) -> None:
        """A dependency can never succeed: every occurrence of ``job`` not yet final is cancelled,
        and none is created any more."""
        self._take_front(job)
        self._touch(job)
        if isinstance(job.spec.schedule, Once) and job.next_due is not None:
            self._materialise(job, job.next_due, S.SCHEDULED)
        job.next_due = None
        job.blocked = ()
        for scheduled in list(job.open):
            occurrence = self.occurrences[(job.job_id, scheduled)]
            if occurrence.state is not S.RUNNING:
                self._cancel(occurrence, CancelReason.CASCADE, cause)
