"""Dead letters: the inputs set aside because they could not be journaled or applied.

An input the engine cannot take must not stop what takes inputs: a string no database can hold
failed the active scheduler's journal commit, which ended it, and every scheduler elected after
it took the same inbox row and ended the same way. Such an input is set aside here instead, with
why, and the service goes on: ``cronlapse status`` lists them and ``/metrics`` counts them, for
the people who run it to look at.

- ``unstorable``: an input no store can hold (:func:`cronlapse.service.json_nodes.unstorable`):
  neither journaled nor applied;
- ``unapplied``: a journal row whose application failed (a defect): skipped on every replay,
  set aside once (by its journal position);
- ``unreadable``: an inbox row whose arguments are not JSON: answered with a failure, never
  applied.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol


class Why(enum.StrEnum):
    UNSTORABLE = "unstorable"
    UNAPPLIED = "unapplied"
    UNREADABLE = "unreadable"


VERB_LENGTH = 32
"""The longest verb a store keeps of a dead letter (as of a journal row)."""


@dataclass(frozen=True, slots=True)
class DeadLetter:
    why: Why
    verb: str
    args: str
    """The arguments as JSON in ASCII (a lone surrogate escaped): whatever they held is kept."""
    reason: str
    journal_seq: int | None = None
    """The journal row that was not applied (``unapplied``)."""
    at: float = 0.0
    """When it was set aside (Unix seconds, the store's clock)."""


def not_kept(letters: Sequence[DeadLetter], kept: Collection[int]) -> list[DeadLetter]:
    """``letters`` but those whose journal row is among ``kept``, the rows set aside already."""
    return [
        letter for letter in letters if letter.journal_seq is None or letter.journal_seq not in kept
    ]


class DeadLetters(Protocol):
    def add(self, letters: Sequence[DeadLetter]) -> None:
        """Keep ``letters`` (their ``at`` is the store's now), but any whose ``journal_seq`` is
        kept already: a row that fails on every replay is one dead letter."""
        ...

    def count(self) -> int: ...

    def latest(self, limit: int) -> list[DeadLetter]:
        """The last ``limit`` set aside, newest first."""
        ...
