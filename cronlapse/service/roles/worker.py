"""``cronlapse worker``: an executor process, on any machine that reaches the database.

It registers itself (a ``workers`` row: its name and slots), then, every ``ROUND_SECONDS`` or as
soon as the scheduler NOTIFYs that it wrote attempts:

- heartbeats (the database's clock), which keeps its slots up in the engine;
- claims the ``dispatch`` rows of its slots with ``SELECT ... FOR UPDATE SKIP LOCKED``, so
  two processes given one name never run one attempt both, and runs each with the executor of
  its config, exactly as the single process does (:mod:`cronlapse.service.executors`: argv or URL,
  the idempotency key in the environment or header);
- writes each outcome to its row and NOTIFYs the scheduler, which journals it;
- kills an attempt whose row is gone: the engine took it back (its timeout passed), or the
  scheduler declared this process lost.

A worker that dies stops heartbeating; the scheduler then marks its slots down, and the engine
retries their attempts at once elsewhere, under the same idempotency key.

A worker asked to stop (SIGTERM, Ctrl-C) stops cleanly instead, so that nothing it runs runs
twice: it claims nothing more and says it is stopping (``workers.stopping``), which has the
scheduler drain its slots (the engine assigns them nothing more); it lets the attempts it is
executing finish and writes their outcomes, heartbeating meanwhile (a silent worker would be
taken for dead and its attempts run again elsewhere while they still run here); then it ends
its heartbeat (:data:`STOPPED`), so the scheduler takes the slots down at once rather than
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

from sqlalchemy import Connection, and_, func, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert

from cronlapse.service.config import Config
from cronlapse.service.db import DISPATCH_CHANNEL, REPORT_CHANNEL, notify, open_database
from cronlapse.service.executors import AttemptKey, Executors, Launch
from cronlapse.service.migrations import migrate
from cronlapse.service.migrations.v002_dispatch import dispatch
from cronlapse.service.migrations.v004_worker_stopping import workers
from cronlapse.service.roles.wakeups import rounds

log = logging.getLogger("cronlapse.worker")
ROUND_SECONDS = 0.5
"""At most this long between heartbeats (the scheduler takes a process for lost after 3 s)."""
STOPPED = 0.0
"""The heartbeat a stopped process leaves: older than any, so its slots go down at once."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def default_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class Worker:
    """One worker process: its slots, its claimed attempts and their tasks."""

    def __init__(self, url: str, name: str, slots: int, config: Config) -> None:
        self.url = url
        self.name = name
        self.slots = [f"{name}/{number}" for number in range(1, slots + 1)]
        self.config = config
        self.db = open_database(url)
        migrate(self.db)
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
        await asyncio.to_thread(self._register)
        out.write(f"cronlapse worker: {self.name}, {len(self.slots)} slots\n")
        out.flush()
        working = loop.create_task(
            rounds(self.url, [DISPATCH_CHANNEL], self.round, ROUND_SECONDS, "worker", log)
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
                await asyncio.to_thread(self._hand_back, self.finished)
            out.write(
                "cronlapse worker: stopped: every run it ran is reported; slots handed back\n"
            )
            out.flush()
        finally:
            working.cancel()
            await self.executors.close()
            self.db.dispose()

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

    def _register(self) -> None:
        beat = func.extract("epoch", func.clock_timestamp())
        with self.db.begin() as conn:
            row = {
                "name": self.name,
                "slots": len(self.slots),
                "heartbeat": beat,
                "stopping": False,
            }
            conn.execute(
                insert(workers).values(row).on_conflict_do_update(index_elements=["name"], set_=row)
            )
            notify(conn, REPORT_CHANNEL)

    def _exchange(self, finished: dict[AttemptKey, bool]) -> dict[AttemptKey, Launch]:
        """One transaction: heartbeat, write outcomes, claim new rows (none once stopping);
        returns the attempts this process should be running (its claimed rows without an
        outcome)."""
        key_columns = tuple_(dispatch.c.job_id, dispatch.c.scheduled, dispatch.c.attempt)
        mine = dispatch.c.claimed_by == self.name
        stopping = self.stopping
        with self.db.begin() as conn:
            beat = func.extract("epoch", func.clock_timestamp())
            self._beat(conn, finished, beat)
            free = select(*key_columns.clauses).where(
                dispatch.c.slot.in_(self.slots),
                dispatch.c.claimed_by.is_(None),
                dispatch.c.outcome.is_(None),
            )
            claimable = (
                [] if stopping else conn.execute(free.with_for_update(skip_locked=True)).all()
            )
            if claimable:
                conn.execute(
                    update(dispatch)
                    .where(key_columns.in_([tuple(row) for row in claimable]))
                    .values(claimed_by=self.name)
                )
            rows = conn.execute(
                select(dispatch).where(and_(mine, dispatch.c.outcome.is_(None)))
            ).all()
        executors = self.config.executors
        return {
            AttemptKey(row.job_id, row.scheduled, row.attempt): Launch(
                AttemptKey(row.job_id, row.scheduled, row.attempt),
                executors.get(row.executor),
                row.payload,
                row.scheduled_at,
            )
            for row in rows
        }

    def _beat(self, conn: Connection, finished: dict[AttemptKey, bool], beat: object) -> None:
        """Heartbeat ``beat`` (and whether this process is stopping), write outcomes; NOTIFY
        the scheduler if either is news to it."""
        key_columns = tuple_(dispatch.c.job_id, dispatch.c.scheduled, dispatch.c.attempt)
        conn.execute(
            update(workers)
            .where(workers.c.name == self.name)
            .values(heartbeat=beat, stopping=self.stopping)
        )
        for key, ok in finished.items():
            conn.execute(
                update(dispatch)
                .where(
                    key_columns == (key.job_id, key.scheduled, key.attempt),
                    dispatch.c.claimed_by == self.name,
                )
                .values(outcome=ok)
            )
        if finished or self.stopping:
            notify(conn, REPORT_CHANNEL)

    def _hand_back(self, finished: dict[AttemptKey, bool]) -> None:
        """The last transaction: the last outcomes, and the heartbeat ended, so that the
        scheduler (which journals a round's outcomes before its downs) credits them and takes
        the slots down at its next round."""
        with self.db.begin() as conn:
            self._beat(conn, finished, STOPPED)
        self.finished = {}


def _log_failure(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("writing an outcome failed (retried next round): %s", task.exception())


def work(url: str, name: str | None, slots: int, config: Config, out: TextIO) -> int:
    """Run a worker process until SIGTERM or SIGINT has stopped it cleanly (status 0).

    Until its event loop handles them, the two signals only record the ask: by Python's
    handlers a SIGTERM while it registered killed it (-15)."""
    logging.basicConfig(format="cronlapse worker: %(message)s", level=logging.WARNING)
    stop = threading.Event()

    def record(_signal: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, record) for sig in STOP_SIGNALS}
    try:
        worker = Worker(url, name or default_name(), slots, config)
        asyncio.run(worker.run(out, stop))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
