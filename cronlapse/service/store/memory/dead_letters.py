"""The memory store's dead letters (see :mod:`cronlapse.service.store.dead_letters`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from cronlapse.service.store.dead_letters import DeadLetter, not_kept
from cronlapse.service.store.memory.hub import Shared


class MemoryDeadLetters:
    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.letters: list[DeadLetter] = []

    def add(self, letters: Sequence[DeadLetter]) -> None:
        with self.shared.lock:
            kept = {letter.journal_seq for letter in self.letters if letter.journal_seq is not None}
            for letter in not_kept(letters, kept):
                self.letters.append(dataclasses.replace(letter, at=self.shared.wall()))

    def count(self) -> int:
        with self.shared.lock:
            return len(self.letters)

    def latest(self, limit: int) -> list[DeadLetter]:
        with self.shared.lock:
            return self.letters[::-1][:limit]
