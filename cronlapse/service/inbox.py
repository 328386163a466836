"""The inbox: how a stateless API process (``serve --role api``) hands a write to the scheduler.

A write is an inbox row (the verb and arguments the journal will hold), which wakes the
scheduler (:mod:`cronlapse.service.store.inbox`). The active scheduler takes the rows in order
(:mod:`cronlapse.service.roles.inbox_reader`), applies them through the same group commit as its own
inputs, and writes each one's answer (:func:`encode_answer`) in the same transaction as its
journal row, which wakes the API processes. The API process, listening, takes the answer (the
row goes with it) and answers its client exactly as the single process would
(:func:`decode_answer` gives back the engine's :class:`~engine.model.commands.Result`, or the
readers' :class:`~cronlapse.service.codec.InputInvalid`).

Bounded waits, each with an answer naming its cause:

- no scheduler took the row within ``TAKE_SECONDS``: the API process withdraws it (deletes it
  while it is still untaken, so it can never be applied) and answers 503;
- a scheduler took it but no answer came within ``ANSWER_SECONDS`` (it died mid-commit and no
  standby has taken over): 504, the command may still be applied, as with any timed-out write.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from cronlapse.service.codec import InputInvalid, request_problem
from cronlapse.service.store import Channel, Store, StoreFailure
from engine.model.commands import Outcome, Result
from engine.model.digits import is_digits
from engine.model.problems import Code

log = logging.getLogger("cronlapse.serve")
TAKE_SECONDS = 5.0
"""How long a write waits for a scheduler to take it before it is withdrawn (503)."""
ANSWER_SECONDS = 30.0
"""How long a write waits for its answer in all (then 504)."""
RECHECK_SECONDS = 0.5
"""A waiting write reads its row at least this often (a NOTIFY lost with a connection)."""
EARLY_KEPT = 10_000


class Unanswered(Exception):
    """No scheduler answered a write: ``status`` (503 or 504) and a message naming why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def encode_answer(value: Result | InputInvalid | BaseException) -> str:
    """The inbox row's answer: the engine's result, the readers' refusal, or a failure."""
    if isinstance(value, Result):
        answer: dict = {"outcome": value.outcome.name, "message": value.message}
        problem = value.problem
        if problem is not None and problem.path:
            answer["path"] = problem.path
        if problem is not None and problem.code is not None:
            answer["code"] = problem.code.value
    elif isinstance(value, InputInvalid):
        answer = {"invalid": [{"path": p.path, "message": p.message} for p in value.problems]}
    else:
        answer = {"failed": f"{value.__class__.__name__}: {value}"}
    return json.dumps(answer, separators=(",", ":"))


def decode_answer(text: str) -> Result:
    """The result an answer holds; raises :class:`InputInvalid` or :class:`Unanswered`."""
    answer = json.loads(text)
    if "invalid" in answer:
        raise InputInvalid([request_problem(p["path"], p["message"]) for p in answer["invalid"]])
    if "failed" in answer:
        raise Unanswered(503, f"the scheduler failed on the command: {answer['failed']}")
    outcome = Outcome[answer["outcome"]]
    if not answer["message"]:
        return Result(outcome)
    code = Code(answer["code"]) if "code" in answer else None
    return Result(outcome, None, request_problem(answer.get("path", ""), answer["message"], code))


class Inbox:
    """An API process's side of the inbox: write a command, wait for its answer."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.arrived: dict[int, asyncio.Event] = {}
        """The writes waiting here, by inbox position: set when their answer is notified."""
        self.early: dict[int, None] = {}
        """Answers notified before their write was waited for (the last EARLY_KEPT)."""
        self.listening: asyncio.Task | None = None

    async def start(self) -> None:
        ready = asyncio.get_running_loop().create_future()
        self.listening = asyncio.get_running_loop().create_task(self._listen(ready))
        await ready

    async def close(self) -> None:
        if self.listening is not None:
            self.listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.listening

    async def _listen(self, ready: asyncio.Future) -> None:
        while True:
            try:
                async with self.store.wakeups.listen([Channel.ANSWERS]) as listener:
                    if not ready.done():
                        ready.set_result(None)
                    while True:
                        for payload in await listener.wait(None):
                            for seq in payload.split(","):
                                if is_digits(seq):
                                    self._notified(int(seq))
            except StoreFailure as error:  # the waits re-read their rows meanwhile
                log.warning("inbox listener: %s; reconnecting", error)
                if not ready.done():
                    ready.set_result(None)
                await asyncio.sleep(RECHECK_SECONDS)

    def _notified(self, seq: int) -> None:
        arrived = self.arrived.get(seq)
        if arrived is not None:
            arrived.set()
            return
        self.early[seq] = None
        if len(self.early) > EARLY_KEPT:
            del self.early[next(iter(self.early))]

    async def submit(self, verb: str, args: dict) -> Result:
        """The scheduler's answer to ``verb``; raises InputInvalid or Unanswered."""
        inbox = self.store.inbox
        seq = await asyncio.to_thread(inbox.write, verb, args)
        arrived = self.arrived[seq] = asyncio.Event()
        if self.early.pop(seq, 0) is None:
            arrived.set()
        loop = asyncio.get_running_loop()
        started = loop.time()
        withdrawable = True
        try:
            while True:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(arrived.wait(), RECHECK_SECONDS)
                arrived.clear()
                text = await asyncio.to_thread(inbox.take_answer, seq)
                if text is not None:
                    return decode_answer(text)
                waited = loop.time() - started
                if withdrawable and waited >= TAKE_SECONDS:
                    withdrawable = False
                    if await asyncio.to_thread(inbox.withdraw, seq):
                        raise Unanswered(
                            503,
                            f"no scheduler took the command within {TAKE_SECONDS:g} s: "
                            "nothing was applied (is a serve --role scheduler running on this "
                            "database?)",
                        )
                if waited >= ANSWER_SECONDS:
                    raise Unanswered(
                        504,
                        f"the scheduler took the command but did not answer within "
                        f"{ANSWER_SECONDS:g} s: it may still be applied; read it back to see",
                    )
        finally:
            del self.arrived[seq]
