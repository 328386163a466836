"""The outbox claim: exactly one live process delivers the notifications, whichever holds it.

Every process that can deliver (the active scheduler and every API process) tries, in a session
of its own, the store's outbox claim (PostgreSQL's session-level advisory lock ``OUTBOX_LOCK``);
the one that holds it delivers. It reads the notifications due (which the active scheduler keeps
with its journal: :mod:`cronlapse.service.roles.publish`), woken by every journal commit or every
``ROUND_SECONDS``, tries each as the single process does
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

from cronlapse.service.codec import DELIVERY
from cronlapse.service.delivery.attach import delivery_input, journaled
from cronlapse.service.delivery.channels import ChannelConfig
from cronlapse.service.delivery.notice import Notice, channel_for
from cronlapse.service.delivery.worker import Deliveries
from cronlapse.service.inbox import Inbox
from cronlapse.service.store import OutboxClaim, Store, StoreFailure

log = logging.getLogger("cronlapse.serve")
ROUND_SECONDS = 0.5


class OutboxDelivery:
    def __init__(
        self, store: Store, channels: Mapping[str, ChannelConfig], inbox: Inbox, out: TextIO
    ) -> None:
        self.store = store
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
                async with self.store.outbox.claim() as claim:
                    await claim.take(ROUND_SECONDS)
                    self.out.write("cronlapse serve: holds the outbox claim: delivering\n")
                    self.out.flush()
                    await self._deliver(claim)
            except StoreFailure as error:
                log.warning("outbox claim: %s; trying again", error)
                await asyncio.sleep(ROUND_SECONDS)

    async def _deliver(self, claim: OutboxClaim) -> None:
        deliveries = Deliveries(lambda notice, ok: self._report(deliveries, notice, ok))
        try:
            while True:
                due = {
                    notice.key: Notice(
                        notice.key,
                        channel_for(self.channels, notice.key),
                        notice.created,
                        notice.try_number,
                    )
                    for notice in await claim.due()
                }
                deliveries.sync(due)
                await claim.woken(ROUND_SECONDS)
        finally:
            await deliveries.close()

    def _report(self, deliveries: Deliveries, notice: Notice, delivered: bool) -> None:
        submitted = self.inbox.submit(DELIVERY, delivery_input(notice, delivered))
        task = asyncio.get_running_loop().create_task(submitted)
        self.reports.add(task)
        task.add_done_callback(self.reports.discard)
        task.add_done_callback(lambda done: journaled(deliveries, notice, done))
