"""The engine's one source of randomness: a seeded generator that knows when, and how much, it
was drawn from.

Keyframes store the generator's state (2.5 KB); knowing whether anything was drawn since the last
one lets consecutive keyframes share it instead of copying it every time. Knowing
how many 32-bit words were drawn lets a stretch of a service's journal be exported as a scenario
that continues the generator where the service had it (``seed_skip``).
"""

from __future__ import annotations

import random

_random = random.Random.random
_getrandbits = random.Random.getrandbits
"""Random's own draws, called on the generator: ``super().random()`` made a ``super`` object
and looked the method up through it at each draw, 1,200 instructions of the 1,900 a draw cost
(callgrind), and the demo's week draws once an attempt (78,000 times)."""


class TrackedRandom(random.Random):
    """``random.Random`` with a ``drawn`` flag and a count of the 32-bit words drawn; the draws
    themselves are exactly Random's (every method of ``random.Random`` draws through
    ``random()`` or ``getrandbits()``)."""

    drawn: bool = False
    words: int = 0
    """The 32-bit words of the Mersenne Twister drawn since the seed."""

    def random(self) -> float:
        self.drawn = True
        self.words += 2  # a double takes two words (CPython's genrand_res53)
        return _random(self)

    def getrandbits(self, k: int) -> int:
        self.drawn = True
        self.words += -(-k // 32)
        return _getrandbits(self, k)

    def skip(self, words: int) -> None:
        """Draw ``words`` 32-bit words and forget them: in chunks, so that a long skip never
        builds a huge integer (``getrandbits(32 * n)`` consumes exactly ``n`` words)."""
        while words:
            chunk = min(words, _SKIP_CHUNK)
            self.getrandbits(32 * chunk)
            words -= chunk

    def getstate(self) -> tuple:
        return super().getstate(), self.words

    def setstate(self, state: tuple) -> None:
        generator, self.words = state
        super().setstate(generator)
        self.drawn = False


_SKIP_CHUNK = 1 << 16
"""Words drawn at once by :meth:`TrackedRandom.skip`."""
