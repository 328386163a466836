"""Dispatch claims and worker rows: how the active scheduler and the worker processes meet.

The scheduler mirrors the engine's RUNNING attempts on worker processes' slots into the store
(:meth:`Dispatch.assign`): one row per attempt, deleted when the engine no longer runs it (its
worker sees the row go and stops it). Each worker process heartbeats, claims the rows of its own
slots (two processes of one name never claim one row both), and writes each attempt's outcome
back (:class:`Workers`), which the scheduler reads with its next assignment and journals.
Heartbeats are by the store's clock, so machines whose clocks differ agree on a worker's age.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from cronlapse.service.store.coordination import Election

AttemptId = tuple[str, int, int]
"""(job, scheduled tick, attempt number)."""


@dataclass(frozen=True, slots=True)
class Assignment:
    """An attempt the engine runs on a worker process's slot, as its executor needs it."""

    job_id: str
    scheduled: int
    attempt: int
    slot: str
    executor: str | None
    """The executor's name in the config (None: the job names none the config defines)."""
    payload: str | None
    scheduled_at: str

    @property
    def key(self) -> AttemptId:
        return (self.job_id, self.scheduled, self.attempt)


@dataclass(frozen=True, slots=True)
class WorkerProcess:
    """A ``cronlapse worker`` process as the store last heard from it."""

    name: str
    slots: int
    heartbeat_age: float
    """Seconds since its last heartbeat, by the store's clock (very large once it ended it)."""
    stopping: bool


@dataclass(frozen=True, slots=True)
class Assigned:
    """What an assignment found: outcomes reported for attempts still assigned, and the
    worker processes."""

    outcomes: dict[AttemptId, bool]
    processes: list[WorkerProcess]


class Dispatch(Protocol):
    """The active scheduler's side."""

    def assign(self, running: Mapping[AttemptId, Assignment]) -> Assigned:
        """In one transaction: make the assigned attempts exactly ``running`` (new rows are
        written, and wake the workers; rows of attempts no longer running are deleted), and
        read the outcomes workers wrote for the attempts that stay, and every worker process."""
        ...

    def fence_with(self, election: Election) -> None:
        """From now on every assignment first checks, in its own transaction, that ``election``
        holds the scheduler lock (:class:`Fenced` otherwise: no row changed), as the journal's
        appends do (:meth:`Journal.fence_with`): a scheduler that lost the lock and has not
        noticed yet would delete its successor's rows, and the outcomes written in them."""
        ...


class Workers(Protocol):
    """A worker process's side."""

    def register(self, name: str, slots: int) -> None:
        """Write (or rewrite) the process's row: its slots, a fresh heartbeat, not stopping;
        wakes the scheduler."""
        ...

    def exchange(
        self,
        name: str,
        slots: Sequence[str],
        finished: Mapping[AttemptId, bool],
        stopping: bool,
    ) -> list[Assignment]:
        """One transaction: heartbeat (and whether the process is stopping), write the outcomes
        of ``finished`` attempts it claimed, and, unless it is stopping, claim the unclaimed
        rows of its ``slots`` (skipping rows another transaction holds); returns the attempts
        it has claimed and not finished. Wakes the scheduler when there are outcomes or it is
        stopping."""
        ...

    def hand_back(self, name: str, finished: Mapping[AttemptId, bool]) -> None:
        """The process's last transaction: its last outcomes, and its heartbeat ended (it reads
        as lost at once, so its slots go down without waiting); wakes the scheduler."""
        ...
