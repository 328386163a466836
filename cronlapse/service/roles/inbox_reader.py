"""The active scheduler's side of the inbox: take the API processes' writes, in order.

Woken by ``cronlapse_inbox`` (an API process wrote a row) or every ``ROUND_SECONDS``, it takes
every unanswered row not already taken by this scheduler (marking it ``taken_by`` its election
session, so an API process can no longer withdraw it), and submits each, in the rows' order, to
the scheduler's group commit (:class:`~cronlapse.service.inputs.Inputs`), which journals it with its
answer in one transaction. A row taken by a scheduler that died before answering is taken again
by its successor: its answer was never committed, so neither was its journal row, and it is
applied exactly once. Rows answered long ago whose API process died before reading them are
swept.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator

from sqlalchemy import delete, func, or_, update

from cronlapse.service.codec import InputInvalid
from cronlapse.service.db import INBOX_CHANNEL, open_database
from cronlapse.service.inputs import Inputs
from cronlapse.service.migrations.v003_inbox import inbox
from cronlapse.service.roles.wakeups import rounds

log = logging.getLogger("cronlapse.serve")
ROUND_SECONDS = 0.5
SWEEP_AFTER = 60.0
"""Seconds after which an answered row nobody read is deleted."""


class InboxReader:
    def __init__(self, inputs: Inputs, url: str, me: int) -> None:
        self.inputs = inputs
        self.url = url
        self.me = me
        """The election session's backend pid: this scheduler's mark on the rows it takes."""
        self.db = open_database(url)
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
            self.db.dispose()

    async def _loop(self) -> None:
        await rounds(self.url, [INBOX_CHANNEL], self._round, ROUND_SECONDS, "inbox", log)

    async def _round(self) -> None:
        self.rounds += 1
        self._submit(await asyncio.to_thread(self._take, self.rounds % 20 == 1))

    def _submit(self, rows: list[tuple[int, str, dict]]) -> None:
        for seq, verb, args in rows:
            task = asyncio.get_running_loop().create_task(self.inputs.submit(verb, args, seq))
            self.submitted.add(task)
            task.add_done_callback(_answered)
            task.add_done_callback(self.submitted.discard)

    def _take(self, sweep: bool) -> list[tuple[int, str, dict]]:
        """Mark the unanswered rows not taken by this scheduler as its own; in order."""
        with self.db.begin() as conn:
            if sweep:
                old = func.extract("epoch", func.clock_timestamp()) - SWEEP_AFTER
                conn.execute(
                    delete(inbox).where(inbox.c.answer.is_not(None), inbox.c.created < old)
                )
            taken = conn.execute(
                update(inbox)
                .where(
                    inbox.c.answer.is_(None),
                    or_(inbox.c.taken_by.is_(None), inbox.c.taken_by != self.me),
                )
                .values(taken_by=self.me)
                .returning(inbox.c.seq, inbox.c.verb, inbox.c.args)
            ).all()
        return sorted((row.seq, row.verb, json.loads(row.args)) for row in taken)


def _answered(task: asyncio.Task) -> None:
    """The answer went to the inbox row; a refusal is an answer too, not a failure here."""
    if task.cancelled():
        return
    failure = task.exception()
    if failure is not None and not isinstance(failure, InputInvalid):
        log.warning("an inbox command failed: %s", failure)
