"""``cronlapse worker``: an executor process, on any machine that reaches the database.

It registers itself (a ``workers`` row: its name and slots), then, every ``ROUND_SECONDS`` or as
soon as the scheduler NOTIFYs that it wrote attempts:

- heartbeats (the database's clock), which keeps its slots up in the engine;
- claims the ``dispatch`` rows of its slots with ``SELECT ... FOR UPDATE SKIP LOCKED``, so
  two processes given one name never run one attempt both, and runs each with the executor of
  its config, exactly as the single process does (:mod:`service.executors`: argv or URL, the
  idempotency key in the environment or header);
- writes each outcome to its row and NOTIFYs the scheduler, which journals it;
- kills an attempt whose row is gone: the engine took it back (its timeout passed), or the
  scheduler declared this process lost.

A worker that dies stops heartbeating; the scheduler then marks its slots down, and the engine
retries their attempts at once elsewhere, under the same idempotency key.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from typing import TextIO

from sqlalchemy import and_, func, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert

from service.config import Config
from service.db import DISPATCH_CHANNEL, REPORT_CHANNEL, notify, open_database
from service.executors import AttemptKey, Executors, Launch
from service.migrations import migrate
from service.migrations.v002_dispatch import dispatch, workers
from service.roles.wakeups import rounds

log = logging.getLogger("cronlapse.worker")
ROUND_SECONDS = 0.5
"""At most this long between heartbeats (the scheduler takes a process for lost after 3 s)."""


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

    async def run(self, out: TextIO) -> None:
        self.executors = Executors(self._finished)
        await asyncio.to_thread(self._register)
        out.write(f"cronlapse worker: {self.name}, {len(self.slots)} slots\n")
        out.flush()
        try:
            await rounds(self.url, [DISPATCH_CHANNEL], self.round, ROUND_SECONDS, "worker", log)
        finally:
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

    def _finished(self, key: AttemptKey, ok: bool) -> None:
        """An executor ended: its outcome is written at once (a round of its own)."""
        self.finished[key] = ok
        task = asyncio.get_running_loop().create_task(self.round())
        task.add_done_callback(_log_failure)

    def _register(self) -> None:
        beat = func.extract("epoch", func.clock_timestamp())
        with self.db.begin() as conn:
            row = {"name": self.name, "slots": len(self.slots), "heartbeat": beat}
            conn.execute(
                insert(workers).values(row).on_conflict_do_update(index_elements=["name"], set_=row)
            )
            notify(conn, REPORT_CHANNEL)

    def _exchange(self, finished: dict[AttemptKey, bool]) -> dict[AttemptKey, Launch]:
        """One transaction: heartbeat, write outcomes, claim new rows; returns the attempts
        this process should be running (its claimed rows without an outcome)."""
        key_columns = tuple_(dispatch.c.job_id, dispatch.c.scheduled, dispatch.c.attempt)
        mine = dispatch.c.claimed_by == self.name
        with self.db.begin() as conn:
            conn.execute(
                update(workers)
                .where(workers.c.name == self.name)
                .values(heartbeat=func.extract("epoch", func.clock_timestamp()))
            )
            for key, ok in finished.items():
                conn.execute(
                    update(dispatch)
                    .where(key_columns == (key.job_id, key.scheduled, key.attempt), mine)
                    .values(outcome=ok)
                )
            if finished:
                notify(conn, REPORT_CHANNEL)
            free = select(*key_columns.clauses).where(
                dispatch.c.slot.in_(self.slots),
                dispatch.c.claimed_by.is_(None),
                dispatch.c.outcome.is_(None),
            )
            claimable = conn.execute(free.with_for_update(skip_locked=True)).all()
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


def _log_failure(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("writing an outcome failed (retried next round): %s", task.exception())


def work(url: str, name: str | None, slots: int, config: Config, out: TextIO) -> int:
    """Run a worker process until it is killed or interrupted."""
    logging.basicConfig(format="cronlapse worker: %(message)s", level=logging.WARNING)
    worker = Worker(url, name or default_name(), slots, config)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(worker.run(out))
    return 0
