"""Group commit: the server's one way in for inputs (requests, executor reports, clock readings).

Every input still reaches the journal before it is applied and before it is answered; what this
adds is that inputs arriving while a commit waits for the disk are committed together in the
next transaction, so concurrent clients share one wait instead of queueing for one each. The
commit runs on a worker thread, so the event loop keeps serving reads (which see the state as of
the last applied input: nothing changes it during a commit) and accepting requests meanwhile.

Order is kept: one batch at a time, its inputs applied in the order they arrived, all at one
tick (the clock's when the batch is taken, never before the engine's), so a replay builds the
same state. An input the readers refuse is answered 422 and never journaled; one whose reading
fails otherwise (a bug) is answered with that failure alone, and the rest of its batch goes on.

The active scheduler (a :class:`~cronlapse.service.live.LiveService` with a publisher) applies a
batch first and then journals it in one transaction with the read model it changed and the answers
of the inbox rows it came from (:mod:`cronlapse.service.inbox`); a failed commit ends the process,
whose engine is then ahead of the journal. Its own reads may see a batch during that commit.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from cronlapse.service.codec import CLOCK, InputInvalid
from cronlapse.service.inbox import encode_answer
from cronlapse.service.live import LiveService
from engine.model.commands import Result

log = logging.getLogger("cronlapse.serve")
_PHASE = 2
"""Phase.AFTER_DISPATCH: every live input runs on the settled tick (see cronlapse.service.live)."""


@dataclass(slots=True)
class _Waiting:
    verb: str
    args: dict
    answer: asyncio.Future
    inbox: int | None
    """The inbox row the input came from, whose answer is journaled with it."""


class Inputs:
    """Batches inputs into shared commits, then applies them in order."""

    def __init__(self, live: LiveService) -> None:
        self.live = live
        self.waiting: list[_Waiting] = []
        self.draining: asyncio.Task | None = None

    async def submit(self, verb: str, args: dict, inbox: int | None = None) -> Result:
        """The engine's answer once the input is committed and applied; raises InputInvalid."""
        loop = asyncio.get_running_loop()
        waiting = _Waiting(verb, args, loop.create_future(), inbox)
        self.waiting.append(waiting)
        if self.draining is None:
            self.draining = loop.create_task(self._drain())
        return await waiting.answer

    async def clock(self) -> None:
        """Journal a clock reading if the engine has something to do by now."""
        if self.live.clock_due() is not None:
            await self.submit(CLOCK, {})

    async def close(self) -> None:
        if self.draining is not None:
            await self.draining

    async def _drain(self) -> None:
        try:
            while self.waiting:
                batch, self.waiting = self.waiting, []
                await self._commit(batch)
        finally:
            self.draining = None

    async def _commit(self, batch: list[_Waiting]) -> None:
        live = self.live
        tick = live.now()
        accepted = []
        refused: list[tuple[_Waiting, Exception]] = []
        for waiting in batch:
            if waiting.verb == CLOCK and live.clock_due() is None:
                _answer(waiting.answer, None)
                continue
            try:
                decoded = live.read(waiting.verb, waiting.args, tick)
            except InputInvalid as invalid:
                refused.append((waiting, invalid))
                continue
            except Exception as failure:  # a bug in a reader: this input fails, the batch goes on
                log.exception("reading %s failed", waiting.verb)
                refused.append((waiting, failure))
                continue
            accepted.append((waiting, decoded))
        if live.publisher is not None:
            await self._publish(tick, accepted, refused)
            return
        for waiting, invalid in refused:
            _answer(waiting.answer, invalid)
        if not accepted:
            return
        rows = [(tick, _PHASE, waiting.verb, waiting.args) for waiting, _ in accepted]
        try:
            seqs = await asyncio.to_thread(live.store.append_many, rows)
        except Exception as failure:  # nothing was journaled: nothing is applied
            for waiting, _ in accepted:
                _answer(waiting.answer, failure)
            return
        for seq, (waiting, decoded) in zip(seqs, accepted, strict=True):
            try:
                result = live.apply_committed(seq, tick, waiting.verb, waiting.args, decoded)
            except Exception as failure:
                log.exception("applying journal row %d failed", seq)
                _answer(waiting.answer, failure)
            else:
                _answer(waiting.answer, result)

    async def _publish(
        self,
        tick: int,
        accepted: list[tuple[_Waiting, object]],
        refused: list[tuple[_Waiting, Exception]],
    ) -> None:
        """Apply, then journal with the read model and the inbox's answers (scheduler)."""
        live = self.live
        answers: list[tuple[_Waiting, object]] = list(refused)
        for waiting, decoded in accepted:
            try:
                result: object = live.apply_uncommitted(
                    tick,
                    waiting.verb,
                    waiting.args,
                    decoded,  # type: ignore[arg-type]
                )
            except Exception as failure:
                log.exception("applying %s failed", waiting.verb)
                result = failure
            answers.append((waiting, result))
        written = {
            waiting.inbox: encode_answer(value)  # type: ignore[arg-type]
            for waiting, value in answers
            if waiting.inbox is not None
        }
        rows = [(tick, _PHASE, waiting.verb, waiting.args) for waiting, _ in accepted]
        if rows or written:
            try:
                seqs = await asyncio.to_thread(live.commit_published, rows, written)
            except Exception as failure:
                if rows:
                    live.diverged(failure)
                answers = [(waiting, failure) for waiting, _ in answers]
            else:
                if seqs:
                    live.settle(seqs[-1], len(seqs))
        for waiting, value in answers:
            _answer(waiting.answer, value)


def _answer(future: asyncio.Future, value: object) -> None:
    """Answer a waiting request, unless it went away (its client disconnected)."""
    if future.done():
        return
    if isinstance(value, BaseException):
        future.set_exception(value)
    else:
        future.set_result(value)
