"""Pools: named numbers of slots that the runs of the jobs in them draw from (Airflow pools).

A job may belong to one pool (``JobSpec.pool``); the pools and their slots are the policy's
(``Policy.pools``). An attempt of a pooled job holds one slot of its pool from its start to its
end, as an Airflow task instance holds a pool slot while it runs; a run waiting for a retry's
backoff holds none. So a run needs a free slot as well as an idle worker.

The dispatcher pops the best ready run as usual; when its pool is full, the run is set aside in
the pool's own queue (of the policy's order) instead of being started, and the next best is
tried. When an attempt of the pool ends, the pool's best run set aside goes back to the ready
queue, so it competes again, in the policy's order, for the slot that freed. Each run is set
aside at most once per slot that frees: the costs stay per assignment.

Given the policy (the pools and the queues' order), the dispatcher's ready queue (where a run set
aside goes back), the jobs and the tick clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model.records import OccurrenceState
from engine.parts.ready import ReadyQueue, make_ready_queue
from engine.parts.ready_entry import JOB_ID, OCCURRENCE, ReadyEntry
from engine.rewind.journal import JournaledPart

if TYPE_CHECKING:
    from engine.model.policies import Policy
    from engine.model.records import Job
    from engine.parts.tick_clock import TickClock

S = OccurrenceState


class Pools(JournaledPart):
    """The pools' slots in use and the runs set aside while each is full."""

    def __init__(
        self, policy: Policy, ready: ReadyQueue, jobs: dict[str, Job], clock: TickClock
    ) -> None:
        self._ready = ready
        self._jobs = jobs
        self._clock = clock
        self.slots: dict[str, int] = dict(policy.pools)
        self.running: dict[str, int] = dict.fromkeys(self.slots, 0)
        """Attempts running now in each pool."""
        self.waiting: dict[str, ReadyQueue] = {
            name: make_ready_queue(policy) for name in self.slots
        }
        """Per pool, the ready runs set aside because it was full."""

    def containers(self) -> tuple[ReadyQueue, ...]:
        return tuple(self.waiting.values())

    def scalars(self) -> tuple:
        return tuple(self.running.values())

    def restore_scalars(self, values: tuple) -> None:
        for name, value in zip(self.slots, values, strict=True):
            self.running[name] = value

    def set_aside(self, entry: ReadyEntry) -> bool:
        """Whether ``entry``'s pool is full; if it is, the entry waits in the pool's queue."""
        pool = self._jobs[entry[JOB_ID]].spec.pool
        if pool is None or self.running[pool] < self.slots[pool]:
            return False
        self.waiting[pool].push(entry)
        return True

    def occupy(self, pool: str) -> None:
        self.running[pool] += 1

    def free(self, pool: str) -> None:
        """An attempt of the pool ended: its best run set aside competes again."""
        self.running[pool] -= 1
        queue, now = self.waiting[pool], self._clock.now
        while queue:
            entry = queue.pop(now)
            if entry is None:
                return
            if self._still_ready(entry):
                self._ready.push(entry)
                return

    def _still_ready(self, entry: ReadyEntry) -> bool:
        """An entry set aside may have gone stale meanwhile (its front withdrawn, its run
        cancelled): only a valid one goes back."""
        occurrence = entry[OCCURRENCE]
        if occurrence is None:
            return self._jobs[entry[JOB_ID]].front is entry
        return occurrence.state is S.QUEUED or occurrence.state is S.RETRY_PENDING


def pool_problem(pools: dict[str, int], pool: str | None) -> str | None:
    """Why a job cannot be in ``pool``, or None."""
    if pool is None or pool in pools:
        return None
    if not pools:
        return f"pool {pool!r} does not exist: the policy defines no pools"
    names = ", ".join(sorted(pools))
    return f"pool {pool!r} does not exist: expected one of {names}"
