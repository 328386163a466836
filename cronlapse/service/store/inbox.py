"""The inbox: how a stateless API process hands a write to the active scheduler.

A row holds a write's verb and arguments (as the journal will). Its life: an API process writes
it (:meth:`Inbox.write`, waking the scheduler); the scheduler takes it (:meth:`Inbox.take`,
marking it with its election's session, after which it can no longer be withdrawn), applies it,
and writes its answer in the transaction of its journal row (the ``answers`` of a
:class:`~cronlapse.service.store.journal.Publication`, waking the API processes); the API
process takes the answer, which deletes the row (:meth:`Inbox.take_answer`). A row no scheduler
took can be withdrawn, and then never applies (:meth:`Inbox.withdraw`). A scheduler that dies
with rows taken leaves them unanswered: its journal rows were not committed either, and its
successor takes them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class InboxRow:
    seq: int
    verb: str
    args: dict


class Inbox(Protocol):
    def write(self, verb: str, args: dict) -> int:
        """Commit a row and wake the scheduler's inbox reader; returns the row's position."""
        ...

    def take(self, session: int, sweep_after: float | None = None) -> list[InboxRow]:
        """Mark every unanswered row that ``session`` has not taken yet as its own, and return
        them in order (a predecessor's rows are taken again). ``sweep_after``: first delete the
        answered rows older than that many seconds, whose API process never read them."""
        ...

    def take_answer(self, seq: int) -> str | None:
        """The row's answer, if it has one; the row is then deleted (an answer is read once)."""
        ...

    def withdraw(self, seq: int) -> bool:
        """Delete the row if no scheduler has taken it (then it can never apply); whether it
        was."""
        ...
