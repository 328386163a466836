"""The engine's one source of randomness: a seeded generator that knows when it was drawn from.

Restore points store the generator's state (2.5 KB); knowing whether anything was drawn since the
last one lets consecutive restore points share it instead of copying it after every tick.
"""

from __future__ import annotations

import random


class TrackedRandom(random.Random):
    """``random.Random`` with a ``drawn`` flag; the draws themselves are exactly Random's."""

    drawn: bool = False

    def random(self) -> float:
        self.drawn = True
        return super().random()

    def getrandbits(self, k: int) -> int:
        self.drawn = True
        return super().getrandbits(k)

    def setstate(self, state: tuple) -> None:
        super().setstate(state)
        self.drawn = False
