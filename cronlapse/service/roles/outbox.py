"""The outbox claim: exactly one live process delivers the notifications, whichever holds it.

Every process that can deliver (the active scheduler and every API process) tries, on a
connection of its own, PostgreSQL's session-level advisory lock ``OUTBOX_LOCK``; the one that
holds it delivers. It reads the notifications due (``due_notices``, which the active scheduler
keeps with its journal: :mod:`cronlapse.service.roles.publish`), woken by every journal commit or
every ``ROUND_SECONDS``, tries each as the single process does
(:class:`~cronlapse.service.delivery.worker.Deliveries`: the same channels, the same idempotency
keys, email on a queue of its own) and reports each try's end through the inbox as the ``delivery``
input the single process journals.

When the holder dies its connection closes and PostgreSQL releases the lock: another process
takes the claim within ``ROUND_SECONDS`` and finds due what was due. A try the dead holder had
made but whose report was not journaled is due again and is tried again under the same
idempotency key (at least once, as after the single process's restart); a delivery whose report
was journaled is no longer due, and is never sent again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from typing import TextIO

import psycopg

from cronlapse.service.codec import DELIVERY
from cronlapse.service.db import JOURNAL_CHANNEL, OUTBOX_LOCK, libpq_url
from cronlapse.service.delivery.attach import delivery_input, journaled
from cronlapse.service.delivery.channels import ChannelConfig
from cronlapse.service.delivery.notice import Notice, channel_for
from cronlapse.service.delivery.worker import Deliveries
from cronlapse.service.inbox import Inbox

log = logging.getLogger("cronlapse.serve")
ROUND_SECONDS = 0.5
DUE = (
    "SELECT job_id, scheduled, attempt, event, channel, target, created, try_number "
    "FROM due_notices"
)


class OutboxClaim:
    def __init__(
        self, url: str, channels: Mapping[str, ChannelConfig], inbox: Inbox, out: TextIO
    ) -> None:
        self.url = url
        self.channels = channels
        self.inbox = inbox
        self.out = out
        self.reports: set[asyncio.Task] = set()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        task = asyncio.get_running_loop().create_task(self._loop())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            for report in list(self.reports):
                report.cancel()

    async def _loop(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    libpq_url(self.url), autocommit=True
                ) as conn:
                    await self._claim(conn)
                    self.out.write("cronlapse serve: holds the outbox claim: delivering\n")
                    self.out.flush()
                    await self._deliver(conn)
            except psycopg.Error as error:
                log.warning("outbox claim: %s; trying again", error)
                await asyncio.sleep(ROUND_SECONDS)

    async def _claim(self, conn: psycopg.AsyncConnection) -> None:
        while True:
            cursor = await conn.execute("SELECT pg_try_advisory_lock(%s)", (OUTBOX_LOCK,))
            row = await cursor.fetchone()
            if row is not None and row[0]:
                return
            await asyncio.sleep(ROUND_SECONDS)

    async def _deliver(self, conn: psycopg.AsyncConnection) -> None:
        await conn.execute(f"LISTEN {JOURNAL_CHANNEL}")
        deliveries = Deliveries(lambda notice, ok: self._report(deliveries, notice, ok))
        try:
            while True:
                cursor = await conn.execute(DUE)
                due = {}
                for row in await cursor.fetchall():
                    key = (row[0], row[1], row[2], row[3], row[4], row[5])
                    due[key] = Notice(key, channel_for(self.channels, key), row[6], row[7])
                deliveries.sync(due)
                async for _ in conn.notifies(timeout=ROUND_SECONDS, stop_after=1):
                    pass
        finally:
            await deliveries.close()

    def _report(self, deliveries: Deliveries, notice: Notice, delivered: bool) -> None:
        submitted = self.inbox.submit(DELIVERY, delivery_input(notice, delivered))
        task = asyncio.get_running_loop().create_task(submitted)
        self.reports.add(task)
        task.add_done_callback(self.reports.discard)
        task.add_done_callback(lambda done: journaled(deliveries, notice, done))
