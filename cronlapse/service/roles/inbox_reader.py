"""The active scheduler's side of the inbox: take the API processes' writes, in order.

Woken when an API process writes a row, or every ``ROUND_SECONDS``, it takes every unanswered
row not already taken by this scheduler (marking it with its election session, so an API process
can no longer withdraw it: :meth:`cronlapse.service.store.Inbox.take`), and submits each, in the
rows' order, to
the scheduler's group commit (:class:`~cronlapse.service.inputs.Inputs`), which journals it with its
answer in one transaction. A row taken by a scheduler that died before answering is taken again
by its successor: its answer was never committed, so neither was its journal row, and it is
applied exactly once. Rows answered long ago whose API process died before reading them are
swept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from cronlapse.service.codec import InputInvalid
from cronlapse.service.inputs import Inputs
from cronlapse.service.roles.wakeups import rounds
from cronlapse.service.store import Channel, InboxRow, Store

log = logging.getLogger("cronlapse.serve")
ROUND_SECONDS = 0.5
SWEEP_AFTER = 60.0
"""Seconds after which an answered row nobody read is deleted."""


class InboxReader:
    def __init__(self, inputs: Inputs, store: Store, me: int) -> None:
        self.inputs = inputs
        self.store = store
        self.me = me
        """The election's session: this scheduler's mark on the rows it takes."""
        self.submitted: set[asyncio.Task] = set()
        self.rounds = 0
        """Rounds so far: every twentieth also sweeps old answered rows."""

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        task = asyncio.get_running_loop().create_task(self._loop())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _loop(self) -> None:
        wakeups = self.store.wakeups
        await rounds(wakeups, [Channel.INBOX], self._round, ROUND_SECONDS, "inbox", log)

    async def _round(self) -> None:
        self.rounds += 1
        sweep = SWEEP_AFTER if self.rounds % 20 == 1 else None
        self._submit(await asyncio.to_thread(self.store.inbox.take, self.me, sweep))

    def _submit(self, rows: list[InboxRow]) -> None:
        for row in rows:
            submitted = self.inputs.submit(row.verb, row.args, row.seq)
            task = asyncio.get_running_loop().create_task(submitted)
            self.submitted.add(task)
            task.add_done_callback(_answered)
            task.add_done_callback(self.submitted.discard)


def _answered(task: asyncio.Task) -> None:
    """The answer went to the inbox row; a refusal is an answer too, not a failure here."""
    if task.cancelled():
        return
    failure = task.exception()
    if failure is not None and not isinstance(failure, InputInvalid):
        log.warning("an inbox command failed: %s", failure)
