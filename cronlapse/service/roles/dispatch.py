"""The active scheduler's side of the worker processes: hand out attempts, take in outcomes.

The engine decides everything, as in one process: which slot runs which attempt, when an
attempt is taken back (its timeout), what a lost attempt becomes. This module only mirrors it
into the database and journals what comes back, on the scheduler's event loop, one round at a
time, woken by a worker's NOTIFY, by every journal commit (an input may have started attempts:
they reach the workers within a round trip), or every ``ROUND_SECONDS``:

1. every RUNNING attempt on a worker process's slot is assigned in the store; one no longer
   running is taken away (the worker running it sees that and kills it). Both as the journal
   holds them (:meth:`~cronlapse.service.live.LiveService.as_journaled`): the engine runs
   ahead of it while a batch commits, and a successor knows only the journal;
2. an outcome a worker wrote is journaled as the ``complete`` input the single process journals
   (once: the row goes when the attempt stops running);
3. a worker process seen for the first time has its slots ``register``-ed (``NAME/1`` ...); one
   that heartbeats again after being lost has them ``up``-ed; one whose heartbeat is older than
   ``LOST_AFTER`` seconds of the database's clock has them ``down``-ed: the engine marks the
   attempt it ran LOST and retries it at once on another slot, under the same idempotency key
   (the run's), as the simulation models a crashed worker;
4. a worker process that says it is stopping (SIGTERM, Ctrl-C) has its slots ``drain``-ed
   instead: the engine assigns them nothing more and each goes down once its attempt's outcome
   is journaled, so what the process runs is credited to it, once. When it has finished it ends
   its heartbeat (:meth:`~cronlapse.service.store.Workers.hand_back`) and the slots still up go
   down at once: an attempt assigned before the drain that it never claimed is then retried
   elsewhere, never having run.

A round's assignment is fenced (:meth:`~cronlapse.service.store.Dispatch.fence_with`): once
another scheduler holds the lock it changes no row, and the process exits, as it does when its
election connection fails.

Outcomes are journaled before the round's downs, so a worker that finished and then died is
credited with its result rather than run again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from cronlapse.service.config import NOOP
from cronlapse.service.executors import AttemptKey, Launch
from cronlapse.service.inputs import Inputs
from cronlapse.service.live import LiveService, is_local_slot
from cronlapse.service.roles.scheduler import step_down
from cronlapse.service.roles.wakeups import rounds
from cronlapse.service.running import running_launches
from cronlapse.service.store import Assignment, AttemptId, Channel, Fenced, Store
from engine.model.records import Worker

log = logging.getLogger("cronlapse.serve")
ROUND_SECONDS = 0.5
LOST_AFTER = 3.0
"""Seconds without a heartbeat after which a worker process is taken for dead."""


class Dispatcher:
    def __init__(self, live: LiveService, inputs: Inputs, store: Store) -> None:
        self.live = live
        self.inputs = inputs
        self.store = store
        self.journaled: set[AttemptKey] = set()
        """Attempts whose outcome is journaled or being journaled."""

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run rounds until the context ends."""
        task = asyncio.get_running_loop().create_task(self._loop())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _loop(self) -> None:
        channels = [Channel.REPORTS, Channel.JOURNAL]
        await rounds(self.store.wakeups, channels, self.round, ROUND_SECONDS, "dispatch", log)

    async def round(self) -> None:
        # As the journal holds them: an attempt a batch starts while it commits would reach a
        # worker, which runs it, and never have started if the process died before the commit.
        assignments = await self.live.as_journaled(self._assignments)
        engine = self.live.engine
        try:
            seen = await asyncio.to_thread(self.store.dispatch.assign, assignments)
        except Fenced:
            step_down("another scheduler holds the lock: the dispatch table refused a round")
        reports = []
        for found, ok in seen.outcomes.items():
            key = AttemptKey(*found)
            if key not in self.journaled:
                self.journaled.add(key)
                args = {"job": key.job_id, "scheduled": key.scheduled, "attempt": key.attempt}
                reports.append(self.inputs.submit("complete", args | {"ok": ok}))
        await asyncio.gather(*reports)  # one group commit
        self.journaled.intersection_update(AttemptKey(*key) for key in assignments)
        # The slots as of the outcomes just journaled: a draining slot whose attempt ended is
        # down already, not one to take down again.
        slots = {
            worker_id: _slot_state(worker)
            for worker_id, worker in engine.query.workers().items()
            if not is_local_slot(worker_id)
        }
        changes = []
        for process in seen.processes:
            fresh = process.heartbeat_age < LOST_AFTER
            for number in range(1, process.slots + 1):
                slot = f"{process.name}/{number}"
                verb = _slot_change(slot, slots.get(slot), fresh, process.stopping)
                if verb is not None:
                    changes.append((verb, slot))
        # A lost process's idle slots go down before its busy ones: the attempts the busy ones
        # lose are retried at once, and must not land on a slot of the same dead process.
        workers = engine.query.workers().items()
        busy = {worker_id for worker_id, worker in workers if worker.running}
        changes.sort(key=lambda change: change[0] == "down" and change[1] in busy)
        await asyncio.gather(
            *(self.inputs.submit(verb, {"worker": slot}) for verb, slot in changes)
        )

    def _assignments(self) -> dict[AttemptId, Assignment]:
        """Every attempt the engine runs on a worker process's slot, as its executor needs it."""
        remote = running_launches(self.live, local=False)
        return {
            (key.job_id, key.scheduled, key.attempt): _assignment(launch, self.live)
            for key, launch in remote.items()
        }


UP, DRAINING, DOWN = "up", "draining", "down"


def _slot_state(worker: Worker) -> str:
    if worker.down:
        return DOWN
    return DRAINING if worker.draining else UP


def _slot_change(slot: str, state: str | None, fresh: bool, stopping: bool) -> str | None:
    """The verb that matches the engine's slot (``state``: None if unknown) to its process."""
    if stopping and fresh:  # finishing its attempts: no new ones, and not up again
        return "drain" if state == UP else None
    if fresh and state is None:
        return "register"
    if fresh and state == DOWN:
        return "up"
    if not fresh and state in (UP, DRAINING):
        if stopping:
            log.info("worker slot %s handed back by its stopped process: down", slot)
        else:
            log.warning("worker slot %s stopped heartbeating: down", slot)
        return "down"
    return None


def _assignment(launch: Launch, live: LiveService) -> Assignment:
    key = launch.key
    occurrence = live.engine.query.records()[(key.job_id, key.scheduled)]
    attempt = occurrence.running_attempt
    assert attempt is not None
    return Assignment(
        job_id=key.job_id,
        scheduled=key.scheduled,
        attempt=key.attempt,
        slot=attempt.worker_id,
        executor=live.state.runs.get(key.job_id, NOOP),
        payload=launch.payload,
        scheduled_at=launch.scheduled_at,
    )
