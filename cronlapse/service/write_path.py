"""The one way inputs reach the journal and the engine: a :class:`Batch`, for every role.

A batch is inputs given together (a group commit's, or one alone), all applied at one tick: the
clock's when the batch is taken, never before the engine's. It reads each input (one the readers
refuse is answered with :class:`~cronlapse.service.codec.InputInvalid` and never journaled; one
whose reading fails otherwise, a bug, is answered with that failure and the rest go on), then
journals and applies the others, in order, in one of two ways:

- journal, then apply (the single process): an input is applied only once it is durable, so
  nothing the engine did is missing from the journal;
- apply, then journal (the active scheduler, a :class:`~cronlapse.service.live.LiveService` with a
  publisher): the batch's rows are committed with what they changed, the read model, the inbox's
  answers and the due notices, in one transaction, so what other processes read is never ahead
  of the journal nor behind an answer.

An input no store can hold (a lone surrogate, a NUL:
:func:`~cronlapse.service.json_nodes.unstorable`; the API refuses them, but an inbox row or a
report may carry one) is neither journaled nor applied: it is set aside as a dead letter
(:mod:`cronlapse.service.store.dead_letters`) and answered with :class:`SetAside`, so it cannot
fail the batch's commit, which ended the active scheduler. One whose application fails is set
aside too, by its journal position.

What a failed journal write does is decided in one place, :meth:`Batch.commit`. Restarts and
standbys apply rows already journaled through the same
:meth:`~cronlapse.service.live.LiveService.apply`
(:meth:`~cronlapse.service.live.LiveService.replay`).

The commit is the batch's only blocking step: the group commit runs it on a worker thread
(:func:`write_batch`) while the event loop goes on serving reads, which see the state as of the
last applied input; everything else runs on the loop's thread, where the engine lives.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cronlapse.service.codec import CLOCK, Decoded, InputInvalid
from cronlapse.service.inbox import encode_answer
from cronlapse.service.json_nodes import unstorable
from cronlapse.service.store import PHASE, DeadLetter, Entry, Why
from engine.model.commands import Result

if TYPE_CHECKING:
    from cronlapse.service.live import LiveService

log = logging.getLogger("cronlapse.serve")

Answer = Result | BaseException | None
"""An input's answer: the engine's result, the failure that stopped it (a refusal, a bug, a
failed journal write), or None for a clock reading with nothing to do (not journaled)."""


class SetAside(Exception):
    """The input was set aside as a dead letter, not journaled: the message says why."""


def ascii_json(args: object) -> str:
    """``args`` as JSON a dead letter can keep, whatever they hold (a lone surrogate escaped)."""
    return json.dumps(args, separators=(",", ":"), default=repr)


@dataclass(frozen=True, slots=True)
class Input:
    verb: str
    args: dict
    inbox: int | None = None
    """The inbox row it came from: the active scheduler journals its answer with it."""
    decoded: Decoded | None = None
    """What it does, when the server built it itself (an executor's report): it is not read
    again through the scenario readers, which give the same command from its arguments on
    replay."""


class Batch:
    """Inputs journaled and applied together (see the module's docstring); use it through
    :func:`write_now` or :func:`write_batch`, which run its three steps in order."""

    def __init__(
        self, live: LiveService, inputs: Sequence[Input], *, publish_empty: bool = False
    ) -> None:
        self.live = live
        self.inputs = list(inputs)
        self.tick = live.now()
        self.publishing = live.publisher is not None
        self.publish_empty = publish_empty
        """Publish even without rows: an elected scheduler's first write checks (or rebuilds)
        the read model, and an idle one publishes what time alone changed."""
        self.answers: list[Answer] = [None] * len(self.inputs)
        self.accepted: list[tuple[int, Decoded | None]] = []
        """The inputs to journal, by index, each as its reading found it."""
        self.idle: set[int] = set()
        """Clock readings with nothing to do by now."""
        self.seqs: list[int] = []
        self.dead: list[DeadLetter] = []
        """Inputs set aside: written before the journal rows, in :meth:`commit`."""
        self.unapplied: dict[int, BaseException] = {}
        """The active scheduler's inputs whose application failed, by index (journaled: a
        replay fails the same way and skips them)."""
        for index, given in enumerate(self.inputs):
            if given.verb == CLOCK and live.clock_due() is None:
                self.idle.add(index)
                continue
            refused = unstorable(given.args)
            if refused is not None:
                reason = f"{refused.path or 'the input'}: {refused.message}"
                letter = DeadLetter(Why.UNSTORABLE, given.verb, ascii_json(given.args), reason)
                self.dead.append(letter)
                self.answers[index] = SetAside(f"set aside as a dead letter: {reason}")
                continue
            if given.decoded is not None:
                self.accepted.append((index, given.decoded))
                continue
            try:
                decoded = live.read(given.verb, given.args, self.tick)
            except InputInvalid as invalid:
                self.answers[index] = invalid
            except Exception as failure:  # a bug in a reader: this input fails, the batch goes on
                log.exception("reading %s failed", given.verb)
                self.answers[index] = failure
            else:
                self.accepted.append((index, decoded))

    def answered_now(self) -> list[tuple[int, Answer]]:
        """Answers known before the commit: idle clock readings, and (but for the active
        scheduler, which journals every inbox answer) the inputs the readers refused."""
        taken = {index for index, _ in self.accepted}
        return [
            (index, answer)
            for index, answer in enumerate(self.answers)
            if index in self.idle or (index not in taken and not self.publishing)
        ]

    def apply_first(self) -> None:
        """The active scheduler applies before it journals (the single process does not)."""
        if not self.publishing:
            return
        for index, decoded in self.accepted:
            given = self.inputs[index]
            try:
                self.answers[index] = self.live.apply_uncommitted(
                    self.tick, given.verb, given.args, decoded
                )
            except Exception as failure:
                log.exception("applying %s failed", given.verb)
                self.answers[index] = failure
                self.unapplied[index] = failure

    def commit(self) -> None:
        """The one journal write (blocking). If it fails, nothing of it was journaled:

        - the single process has applied nothing: every input it carried is answered with the
          failure (a client sees it fail; a report is tried again);
        - the active scheduler has applied the batch already, so its engine is ahead of its
          journal: it exits (a standby, or its restart, replays the journal), as it does when
          its first publication after an election fails; a commit of refusals alone answers
          them with the failure."""
        entries = [
            Entry(self.tick, int(PHASE), self.inputs[index].verb, self.inputs[index].args)
            for index, _ in self.accepted
        ]
        answers = self._inbox_answers()
        live = self.live
        if self.dead:
            live.set_aside(self.dead)
        if not entries and not answers and not self.publish_empty:
            return
        try:
            if live.publisher is None:
                self.seqs = live.store.journal.append(entries)
            else:
                publication = live.publisher.publication(answers)
                self.seqs = live.store.journal.append(entries, publication)
        except Exception as failure:
            if self.publishing and (entries or self.publish_empty):
                live.diverged(failure)
            failed = [index for index, _ in self.accepted]
            if self.publishing:
                failed = [index for index in range(len(self.inputs)) if index not in self.idle]
            for index in failed:
                self.answers[index] = failure
            self.accepted = []

    def apply_after(self) -> list[Answer]:
        """The single process applies what is now journaled; the active scheduler settles."""
        live = self.live
        if self.publishing:
            if self.seqs:
                unapplied = [
                    self._unapplied(seq, index, self.unapplied[index])
                    for seq, (index, _) in zip(self.seqs, self.accepted, strict=True)
                    if index in self.unapplied
                ]
                if unapplied:
                    live.set_aside(unapplied)
                live.settle(self.seqs[-1], len(self.seqs))
            return self.answers
        for seq, (index, decoded) in zip(self.seqs, self.accepted, strict=True):
            given = self.inputs[index]
            try:
                self.answers[index] = live.apply_committed(
                    seq, self.tick, given.verb, given.args, decoded
                )
            except Exception as failure:
                log.exception("applying journal row %d failed", seq)
                self.answers[index] = failure
                live.set_aside([self._unapplied(seq, index, failure)])
        return self.answers

    def _unapplied(self, seq: int, index: int, failure: BaseException) -> DeadLetter:
        given = self.inputs[index]
        reason = f"applying it failed: {failure.__class__.__name__}: {failure}"
        return DeadLetter(Why.UNAPPLIED, given.verb, ascii_json(given.args), reason, seq)

    def _inbox_answers(self) -> dict[int, str]:
        """The answers the active scheduler journals for the inbox rows of the batch."""
        if not self.publishing:
            return {}
        return {
            given.inbox: encode_answer(answer)  # type: ignore[arg-type]
            for given, answer in zip(self.inputs, self.answers, strict=True)
            if given.inbox is not None
        }


def write_now(
    live: LiveService, inputs: Sequence[Input], *, publish_empty: bool = False
) -> list[Answer]:
    """Journal and apply ``inputs`` now, on this thread; their answers, in order."""
    batch = Batch(live, inputs, publish_empty=publish_empty)
    batch.apply_first()
    batch.commit()
    return batch.apply_after()


async def write_batch(
    live: LiveService,
    inputs: Sequence[Input],
    answer: Callable[[int, Answer], None],
    *,
    publish_empty: bool = False,
) -> None:
    """Journal and apply ``inputs``, the commit on a worker thread; each answer is given to
    ``answer`` as soon as it is known. ``publish_empty``: as :func:`write_now`'s."""
    batch = Batch(live, inputs, publish_empty=publish_empty)
    early = batch.answered_now()
    for index, known in early:
        answer(index, known)
    answered = {index for index, _ in early}
    batch.apply_first()
    await asyncio.to_thread(batch.commit)
    for index, known in enumerate(batch.apply_after()):
        if index not in answered:
            answer(index, known)
