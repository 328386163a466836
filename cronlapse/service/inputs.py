"""Group commit: the server's one way in for inputs (requests, executor reports, clock readings).

Every input still reaches the journal before it is applied and before it is answered; what this
adds is that inputs arriving while a commit waits for the disk are committed together in the
next transaction, so concurrent clients share one wait instead of queueing for one each. Each
batch goes through the one write path (:mod:`cronlapse.service.write_path`), whose commit runs on
a worker thread, so the event loop keeps serving reads (which see the state as of the last
applied input: nothing changes it during a commit) and accepting requests meanwhile.

Order is kept: one batch at a time, its inputs applied in the order they arrived, all at one
tick (the clock's when the batch is taken, never before the engine's), so a replay builds the
same state.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from cronlapse.service.codec import CLOCK, Decoded
from cronlapse.service.live import LiveService
from cronlapse.service.write_path import Answer, Input, write_batch
from engine.model.commands import Result


@dataclass(slots=True)
class _Waiting:
    given: Input
    answer: asyncio.Future


class Inputs:
    """Batches inputs into shared commits, then applies them in order."""

    def __init__(self, live: LiveService) -> None:
        self.live = live
        self.waiting: list[_Waiting] = []
        self.draining: asyncio.Task | None = None

    async def submit(
        self, verb: str, args: dict, inbox: int | None = None, decoded: Decoded | None = None
    ) -> Result:
        """The engine's answer once the input is committed and applied; raises InputInvalid.
        ``inbox``: the inbox row it came from, whose answer is journaled with it; ``decoded``:
        what it does, when the server built it (see :class:`Input`)."""
        loop = asyncio.get_running_loop()
        waiting = _Waiting(Input(verb, args, inbox, decoded), loop.create_future())
        self.waiting.append(waiting)
        if self.draining is None:
            self.draining = loop.create_task(self._drain())
        return await waiting.answer

    async def clock(self) -> None:
        """Journal a clock reading if the engine has something to do by now; else, with no
        batch on its way, let the engine's time follow the clock (nothing to journal) and take
        a snapshot if one is worth it (:meth:`LiveService.snapshot_when_idle`). The
        active scheduler then publishes what time alone changed, in a write without rows, so
        the API processes answer as it does (``Publisher.stale``)."""
        if self.live.clock_due() is not None:
            await self.submit(CLOCK, {})
        elif self.draining is None:
            self.live.follow_clock()
            self.live.snapshot_when_idle()
            publisher = self.live.publisher
            if publisher is not None and publisher.stale():
                self.draining = asyncio.get_running_loop().create_task(self._drain(publish=True))

    async def close(self) -> None:
        if self.draining is not None:
            await self.draining

    async def _drain(self, publish: bool = False) -> None:
        """Write the waiting inputs, batch after batch; with ``publish``, the first write goes
        out even without an input (what time alone changed, for the read model)."""
        try:
            while self.waiting or publish:
                batch, self.waiting = self.waiting, []
                inputs = [waiting.given for waiting in batch]

                def answer(index: int, value: Answer, batch: list[_Waiting] = batch) -> None:
                    _answer(batch[index].answer, value)

                await write_batch(self.live, inputs, answer, publish_empty=publish)
                publish = False
        finally:
            self.draining = None


def _answer(future: asyncio.Future, value: object) -> None:
    """Answer a waiting request, unless it went away (its client disconnected)."""
    if future.done():
        return
    if isinstance(value, BaseException):
        future.set_exception(value)
    else:
        future.set_result(value)
