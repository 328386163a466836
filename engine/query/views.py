"""The values the query API answers with, besides the engine's own records: rows for tables,
pages of them, and the small summaries the explanations read.

Frozen values, built per answer; the records they carry (a job, an occurrence) are the engine's
own objects, read-only by convention.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from engine.model.job_rules import TriggerRule
from engine.model.records import (
    Attempt,
    CancelReason,
    Job,
    Occurrence,
    OccurrenceState,
    WorkerState,
)
from engine.model.values import value

T = TypeVar("T")


@value
class Page(Generic[T]):
    items: list[T]
    offset: int
    more: bool
    """Whether rows follow this page."""


@value
class JobView:
    job: Job
    status: str
    """active, paused or deleted."""
    next_fire_times: tuple[int, ...]


@value
class OccurrenceRow:
    """One run as a table row; ``record`` is None for an implicit (untouched) one."""

    job_id: str
    scheduled: int
    state: OccurrenceState
    record: Occurrence | None
    cancel_reason: CancelReason | None = None
    cancel_cause: str | None = None
    """For a cascade cancellation: the job whose failure started it."""

    @property
    def attempts(self) -> list[Attempt]:
        return self.record.attempts if self.record is not None else []


@value
class WorkerRow:
    worker_id: str
    state: WorkerState
    running: tuple[str, int] | None
    attempt: int | None
    since: int
    utilisation: float
    """Share of the ticks since registration spent running attempts."""


@value
class CancelledRangeView:
    """A job's runs cancelled together without records (a deletion or a cascade), as one row."""

    job_id: str
    first: int
    """The range's first tick, as its ``BacklogCancelled`` event names it."""
    first_run: int
    """The first run in it."""
    runs: int
    reason: CancelReason
    cause: str | None


@value
class PoolUse:
    """A pool's slots and how many of them running attempts hold now."""

    name: str
    slots: int
    running: int

    @property
    def full(self) -> bool:
        return self.running >= self.slots


@value
class UpstreamRun:
    """One upstream job's run that a dependent run is judged against."""

    job_id: str
    scheduled: int | None
    """The upstream job's latest run at or before the judged tick; None when it has none."""
    outcome: str | None
    """``success``, ``failed``, ``upstream_failed``, ``skipped`` or ``pending`` (its outcome
    is not known yet); None when there is no run."""


@value
class Upstream:
    """What a run of a job with run dependencies waits for: the rule, the run actually judged
    (a job's runs are judged in order, so a later run waits behind its job's blocked one) and
    the upstream runs that decide it."""

    rule: TriggerRule
    judged: int
    runs: tuple[UpstreamRun, ...]
