"""The rules a job may carry beyond its schedule, as the source systems name them: overlap
rules (a limit on active runs, :mod:`engine.rules.overlap`) and Airflow's trigger rules
(:mod:`engine.rules.run_dependencies`). See docs/semantics.md."""

from __future__ import annotations

from enum import Enum

from engine.model.values import value


class Overlap(Enum):
    """What happens to a run that falls due while its job has ``max_active`` runs active, by the
    source system's name for it (docs/semantics.md). Kubernetes' ``Allow`` and Temporal's
    ``AllowAll`` set no rule."""

    FORBID = "Forbid"
    """The new run is skipped: Kubernetes' documented one-line rule for ``Forbid``, and systemd's
    rule for a unit still active. (Kubernetes' controller keeps the newest missed schedule for
    when the active Job ends: that is :attr:`BUFFER_LATEST`, which ``cronlapse import k8s``
    writes.)"""
    REPLACE = "Replace"
    """Kubernetes: the oldest active run is cancelled and the new one takes its place."""
    SKIP = "Skip"
    """Temporal: as Forbid."""
    BUFFER_ONE = "BufferOne"
    """Temporal: the new run waits for a slot; while one waits, later ones are skipped."""
    BUFFER_ALL = "BufferAll"
    """Temporal: every new run waits for a slot, in order."""
    BUFFER_LATEST = "BufferLatest"
    """Kubernetes' ``Forbid`` as its CronJob controller (v2, since 1.21) runs it: while a Job is
    active the controller does not advance ``lastScheduleTime``, so when the Job ends the most
    recent missed schedule starts (within ``startingDeadlineSeconds``: the job's
    ``start_deadline``) and the older ones never do. The new run waits for a slot; a newer one
    takes its place. cronlapse's name: Kubernetes has none but ``Forbid``, which stays the skip."""
    CANCEL_OTHER = "CancelOther"
    """Temporal: as Replace (cancellation takes effect at once in cronlapse)."""
    TERMINATE_OTHER = "TerminateOther"
    """Temporal: as Replace."""
    MAX_ACTIVE_RUNS = "max_active_runs"
    """Airflow's ``max_active_runs``: as BufferAll (what ``max_active`` alone gives)."""

    __hash__ = object.__hash__


@value
class OverlapRule:
    """A job's limit on its active runs and what a run falling due at the limit does. A run is
    active from the tick it is created (falls due with a slot free) until it is final: waiting
    for a worker, running or waiting for a retry."""

    policy: Overlap
    limit: int = 1


class TriggerRule(Enum):
    """When a run whose job depends on recurring jobs may run, from the outcomes of its upstream
    runs: Airflow's trigger rules, by their names (docs/semantics.md)."""

    ALL_SUCCESS = "all_success"
    ALL_FAILED = "all_failed"
    ALL_DONE = "all_done"
    ONE_SUCCESS = "one_success"
    ONE_FAILED = "one_failed"
    NONE_FAILED = "none_failed"
    NONE_SKIPPED = "none_skipped"
    ALWAYS = "always"

    __hash__ = object.__hash__
