"""``cronlapse worker``: an executor process, on any machine that reaches the database.

It registers itself (its name and slots, :class:`cronlapse.service.store.Workers`), then, every
``ROUND_SECONDS`` or as soon as the scheduler says that it assigned attempts:

- heartbeats (the database's clock), which keeps its slots up in the engine;
- claims the attempts assigned to its slots (``SELECT ... FOR UPDATE SKIP LOCKED``, so
  two processes given one name never run one attempt both), and runs each with the executor of
  its config, exactly as the single process does (:mod:`cronlapse.service.executors`: argv or URL,
  the idempotency key in the environment or header);
- writes each outcome back, waking the scheduler, which journals it;
- kills an attempt no longer assigned: the engine took it back (its timeout passed), or the
  scheduler declared this process lost.

A worker that dies stops heartbeating; the scheduler then marks its slots down, and the engine
retries their attempts at once elsewhere, under the same idempotency key.

A worker asked to stop (SIGTERM, Ctrl-C) stops cleanly instead, so that nothing it runs runs
twice: it claims nothing more and says it is stopping, which has the scheduler drain its slots
(the engine assigns them nothing more); it lets the attempts it is executing finish and writes
their outcomes, heartbeating meanwhile (a silent worker would be taken for dead and its attempts
run again elsewhere while they still run here); then it ends its heartbeat
(:meth:`~cronlapse.service.store.Workers.hand_back`), so the scheduler takes the slots down at
once rather than
``LOST_AFTER`` seconds later, and exits 0. An attempt assigned to one of its slots before the
drain and never claimed is thereby handed back: the engine retries it elsewhere, where it runs
for the first time. Killing the attempts instead would have them run again, under their key:
at least once, where a drain keeps them exactly once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import threading
from types import FrameType
from typing import TextIO

from cronlapse.service.config import Config
from cronlapse.service.executors import AttemptKey, Executors, Launch
from cronlapse.service.roles.wakeups import rounds
from cronlapse.service.store import Channel, Store

log = logging.getLogger("cronlapse.worker")
ROUND_SECONDS = 0.5
"""At most this long between heartbeats (the scheduler takes a process for lost after 3 s)."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def default_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class Worker:
    """One worker process: its slots, its claimed attempts and their tasks."""

    def __init__(self, store: Store, name: str, slots: int, config: Config) -> None:
        self.store = store
        self.name = name
        self.slots = [f"{name}/{number}" for number in range(1, slots + 1)]
        self.config = config
        self.executors: Executors | None = None
        self.finished: dict[AttemptKey, bool] = {}
        """Outcomes not yet written to their rows."""
        self.one_round = asyncio.Lock()
        """Rounds run one at a time: each sees the outcomes the previous one wrote, so an
        attempt that has finished is never started again from an older view."""
        self.stopping = False
        """Asked to stop: claim nothing more, finish what runs (see the module's docstring)."""
        self.settled = asyncio.Event()
        """Set by a round that leaves nothing running and no outcome unwritten."""

    async def run(self, out: TextIO, stop: threading.Event) -> None:
        """Run rounds until a stop is asked (``stop`` set before the loop, or SIGTERM or
        SIGINT during it), then stop cleanly."""
        loop = asyncio.get_running_loop()
        asked = asyncio.Event()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, asked.set)
        if stop.is_set():
            asked.set()
        self.executors = Executors(self._finished)
        await asyncio.to_thread(self.store.workers.register, self.name, len(self.slots))
        out.write(f"cronlapse worker: {self.name}, {len(self.slots)} slots\n")
        out.flush()
        wakeups = self.store.wakeups
        working = loop.create_task(
            rounds(wakeups, [Channel.DISPATCH], self.round, ROUND_SECONDS, "worker", log)
        )
        try:
            await asked.wait()
            self.stopping = True
            running = len(self.executors.tasks)
            out.write(
                f"cronlapse worker: stopping: claims no more runs; attempts still running: "
                f"{running}, left to finish (SIGKILL would have them run again elsewhere)\n"
            )
            out.flush()
            self.settled.clear()
            self._wake()  # says so at once: the scheduler drains the slots
            await self.settled.wait()
            working.cancel()
            await asyncio.gather(working, return_exceptions=True)
            async with self.one_round:
                finished, self.finished = self.finished, {}
                await asyncio.to_thread(self.store.workers.hand_back, self.name, _ids(finished))
            out.write(
                "cronlapse worker: stopped: every run it ran is reported; slots handed back\n"
            )
            out.flush()
        finally:
            working.cancel()
            await self.executors.close()

    async def round(self) -> None:
        async with self.one_round:
            finished, self.finished = self.finished, {}
            try:
                running = await asyncio.to_thread(self._exchange, finished)
            except Exception:
                self.finished = finished | self.finished  # written next round
                raise
            assert self.executors is not None
            self.executors.sync(running)
            if not self.executors.tasks and not self.finished:
                self.settled.set()

    def _wake(self) -> None:
        """A round of its own, now (its failure is retried by the next)."""
        task = asyncio.get_running_loop().create_task(self.round())
        task.add_done_callback(_log_failure)

    def _finished(self, key: AttemptKey, ok: bool) -> None:
        """An executor ended: its outcome is written at once (a round of its own)."""
        self.finished[key] = ok
        self._wake()

    def _exchange(self, finished: dict[AttemptKey, bool]) -> dict[AttemptKey, Launch]:
        """One transaction: heartbeat, write outcomes, claim new attempts (none once stopping);
        returns the attempts this process should be running (claimed, without an outcome)."""
        assigned = self.store.workers.exchange(self.name, self.slots, _ids(finished), self.stopping)
        executors = self.config.executors
        launches = {}
        for assignment in assigned:
            key = AttemptKey(*assignment.key)
            executor = executors.get(assignment.executor)  # type: ignore[arg-type]
            launches[key] = Launch(key, executor, assignment.payload, assignment.scheduled_at)
        return launches


def _ids(finished: dict[AttemptKey, bool]) -> dict[tuple[str, int, int], bool]:
    return {(key.job_id, key.scheduled, key.attempt): ok for key, ok in finished.items()}


def _log_failure(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("writing an outcome failed (retried next round): %s", task.exception())


def work(store: Store, name: str | None, slots: int, config: Config, out: TextIO) -> int:
    """Run a worker process until SIGTERM or SIGINT has stopped it cleanly (status 0).

    Until its event loop handles them, the two signals only record the ask: by Python's
    handlers a SIGTERM while it registered killed it (-15)."""
    logging.basicConfig(format="cronlapse worker: %(message)s", level=logging.WARNING)
    stop = threading.Event()

    def record(_signal: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, record) for sig in STOP_SIGNALS}
    try:
        worker = Worker(store, name or default_name(), slots, config)
        asyncio.run(worker.run(out, stop))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
