"""Dependency gating and cascading cancellation (seed 001), as a mixin of the engine.

A job may depend on one-time jobs. Its occurrences that fall due while a dependency has not
succeeded are BLOCKED; when the last one succeeds they become QUEUED and age from that tick. The
blocked runs are one range per job, never a record each (``Job.blocked_from``): one
``OccurrenceBlocked`` when the first falls due, one ``OccurrenceUnblocked`` for them all. When
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
            if dependent.blocked_from is None:
                continue  # none of its runs fell due: it waits on the due heap as usual
            dependent.blocked_from = None
            first = dependent.next_due
            if first is not None and self.is_created(dependent, first):
                self.log.append(ev.OccurrenceUnblocked(self.now, dependent.job_id, first))
            self._release(dependent)

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
        """A dependency can never succeed: every occurrence of ``job`` not yet final is cancelled
        (its blocked runs as one range), and none is created any more."""
        self._cancel_waiting(job, CancelReason.CASCADE, cause)
