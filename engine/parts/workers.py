"""The workforce: workers, their registration, crashes, recovery and draining, and the idle pool.

A worker that goes down loses its running attempt (LOST): the occurrence is retried at once and the
lost attempt does not count against its retries, so nothing is lost and nothing runs twice. A
draining worker finishes its attempt, then goes down.

Given the tick clock, the journal and the event log; connected to the attempts after both are
built (:meth:`Workforce.connect`), because each calls the other: an attempt occupies and releases
a worker, and a worker that goes down loses its attempt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.commands import Outcome, Result, refused
from engine.model.ordering import java_order_key
from engine.model.policies import WorkerPool
from engine.model.problems import Code
from engine.model.records import Worker
from engine.rewind.journal import ChangeJournal, JournaledPart

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.parts.attempts import Attempts
    from engine.parts.tick_clock import TickClock


def _no_worker(worker_id: str) -> Result:
    message = f"no worker {worker_id!r}"
    return refused(Outcome.NOT_FOUND, Code.UNKNOWN_WORKER, message, "worker_id")


class Workforce(JournaledPart):
    """The workers by id and the pool of idle ones (lowest id first)."""

    def __init__(self, clock: TickClock, journal: ChangeJournal, log: EventLog) -> None:
        self._clock = clock
        self._journal = journal
        self._log = log
        self._attempts: Attempts
        self.workers: dict[str, Worker] = {}
        self.idle = WorkerPool()

    def connect(self, attempts: Attempts) -> None:
        """The attempts, built after the workforce: a worker going down loses its attempt."""
        self._attempts = attempts

    def tables(self) -> tuple[tuple[str, dict], ...]:
        return (("worker", self.workers),)

    def containers(self) -> tuple[WorkerPool, ...]:
        return (self.idle,)

    def register(self, worker_id: str) -> Result:
        if worker_id in self.workers:
            message = f"worker {worker_id!r} is already registered"
            return refused(Outcome.CONFLICT, Code.WORKER_EXISTS, message, "worker_id")
        key = java_order_key(worker_id)
        now = self._clock.now
        self.workers[worker_id] = Worker(
            worker_id,
            key,
            since=now,
            registered=now,
        )
        self.idle.add(worker_id, key)
        self._log.add(ev.WorkerRegistered, now, worker_id)
        return Result(Outcome.CREATED, worker_id)

    def down(self, worker_id: str) -> Result:
        worker = self.workers.get(worker_id)
        if worker is None:
            return _no_worker(worker_id)
        if worker.down:
            message = f"worker {worker_id!r} is already down"
            return refused(Outcome.CONFLICT, Code.WORKER_ALREADY_DOWN, message, "worker_id")
        self._journal.touch(worker)
        worker.down = True
        worker.draining = False
        self.idle.discard(worker_id)
        self._log.add(ev.WorkerWentDown, self._clock.now, worker_id)
        if worker.running is not None:
            self._attempts.lose(worker.running)
        return Result(Outcome.OK)

    def up(self, worker_id: str) -> Result:
        worker = self.workers.get(worker_id)
        if worker is None:
            return _no_worker(worker_id)
        if not worker.down and not worker.draining:
            message = f"worker {worker_id!r} is already up"
            return refused(Outcome.CONFLICT, Code.WORKER_ALREADY_UP, message, "worker_id")
        self._journal.touch(worker)
        worker.down = False
        worker.draining = False
        if worker.running is None:
            worker.since = self._clock.now
            self.idle.add(worker_id, worker.order_key)
        self._log.add(ev.WorkerCameUp, self._clock.now, worker_id)
        return Result(Outcome.OK)

    def drain(self, worker_id: str) -> Result:
        worker = self.workers.get(worker_id)
        if worker is None:
            return _no_worker(worker_id)
        if worker.down or worker.draining:
            message = f"worker {worker_id!r} is not up"
            return refused(Outcome.CONFLICT, Code.WORKER_NOT_UP, message, "worker_id")
        now = self._clock.now
        self._log.add(ev.WorkerDrainStarted, now, worker_id)
        self.idle.discard(worker_id)
        self._journal.touch(worker)
        if worker.running is None:
            worker.down = True
            self._log.add(ev.WorkerWentDown, now, worker_id)
        else:
            worker.draining = True
        return Result(Outcome.OK)

    def release(self, worker: Worker) -> None:
        """The worker's attempt ended: account its busy time, then idle it (or finish a drain)."""
        now = self._clock.now
        self._journal.touch(worker)
        worker.busy_ticks += now - worker.since
        worker.since = now
        worker.running = None
        if worker.draining:
            worker.draining = False
            worker.down = True
            self._log.add(ev.WorkerWentDown, now, worker.worker_id)
        elif not worker.down:
            self.idle.add(worker.worker_id, worker.order_key)
