"""Workers: registration, crashes, recovery and draining, as a mixin of the engine.

A worker that goes down loses its running attempt (LOST): the occurrence is retried at once and the
lost attempt does not count against its retries, so nothing is lost and nothing runs twice. A
draining worker finishes its attempt, then goes down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import events as ev
from engine.commands import Outcome, Result
from engine.model import AttemptOutcome, Worker
from engine.ordering import java_order_key

if TYPE_CHECKING:
    from engine.core import Engine


class WorkersMixin:
    def register_worker(self: Engine, worker_id: str) -> Result:
        if worker_id in self.workers:
            return Result(Outcome.CONFLICT, message=f"worker {worker_id!r} is already registered")
        key = java_order_key(worker_id)
        self.workers[worker_id] = Worker(
            worker_id,
            key,
            since=self.now,
            registered=self.now,
            gen=self._generation,
            born=self._generation,
        )
        self._idle.add(worker_id, key)
        self.log.append(ev.WorkerRegistered(self.now, worker_id))
        return Result(Outcome.CREATED, worker_id)

    def worker_down(self: Engine, worker_id: str) -> Result:
        worker = self.workers.get(worker_id)
        if worker is None:
            return Result(Outcome.NOT_FOUND, message=f"no worker {worker_id!r}")
        if worker.down:
            return Result(Outcome.CONFLICT, message=f"worker {worker_id!r} is already down")
        self._touch(worker)
        worker.down = True
        worker.draining = False
        self._idle.discard(worker_id, worker.order_key)
        self.log.append(ev.WorkerWentDown(self.now, worker_id))
        if worker.running is not None:
            occurrence = self.occurrences[worker.running]
            attempt = occurrence.running_attempt
            assert attempt is not None
            self._end_attempt(occurrence, attempt, AttemptOutcome.LOST)
        return Result(Outcome.OK)

    def worker_up(self: Engine, worker_id: str) -> Result:
        worker = self.workers.get(worker_id)
        if worker is None:
            return Result(Outcome.NOT_FOUND, message=f"no worker {worker_id!r}")
        if not worker.down and not worker.draining:
            return Result(Outcome.CONFLICT, message=f"worker {worker_id!r} is already up")
        self._touch(worker)
        worker.down = False
        worker.draining = False
        if worker.running is None:
            worker.since = self.now
            self._idle.add(worker_id, worker.order_key)
        self.log.append(ev.WorkerCameUp(self.now, worker_id))
        return Result(Outcome.OK)

    def drain_worker(self: Engine, worker_id: str) -> Result:
        worker = self.workers.get(worker_id)
        if worker is None:
            return Result(Outcome.NOT_FOUND, message=f"no worker {worker_id!r}")
        if worker.down or worker.draining:
            return Result(Outcome.CONFLICT, message=f"worker {worker_id!r} is not up")
        self.log.append(ev.WorkerDrainStarted(self.now, worker_id))
        self._idle.discard(worker_id, worker.order_key)
        self._touch(worker)
        if worker.running is None:
            worker.down = True
            self.log.append(ev.WorkerWentDown(self.now, worker_id))
        else:
            worker.draining = True
        return Result(Outcome.OK)

    def _release_worker(self: Engine, worker: Worker) -> None:
        """The worker's attempt ended: account its busy time, then idle it (or finish a drain)."""
        self._touch(worker)
        worker.busy_ticks += self.now - worker.since
        worker.since = self.now
        worker.running = None
        if worker.draining:
            worker.draining = False
            worker.down = True
            self.log.append(ev.WorkerWentDown(self.now, worker.worker_id))
        elif not worker.down:
            self._idle.add(worker.worker_id, worker.order_key)
