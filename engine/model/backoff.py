"""Retry backoff: none, fixed or exponential with a cap, and jitter from the engine's seeded RNG."""

from __future__ import annotations

import random
from enum import Enum

from engine.model.values import value


class BackoffKind(Enum):
    NONE = "none"
    FIXED = "fixed"
    EXPONENTIAL = "exponential"


class Jitter(Enum):
    NONE = "none"
    FULL = "full"
    """Uniform in [0, delay]."""
    EQUAL = "equal"
    """delay/2 plus uniform in [0, delay/2]."""


@value
class Backoff:
    """How long a failed occurrence waits before its next attempt may start."""

    kind: BackoffKind = BackoffKind.NONE
    base: int = 0
    cap: int | None = None
    jitter: Jitter = Jitter.NONE

    def delay(self, failed_attempts: int, rng: random.Random) -> int:
        """Ticks to wait after failure number ``failed_attempts``; draws ``rng`` only for jitter."""
        if self.kind is BackoffKind.NONE:
            return 0
        if self.kind is BackoffKind.FIXED:
            ticks = self.base
        else:
            ticks = self.base * (1 << (failed_attempts - 1))
        if self.cap is not None:
            ticks = min(ticks, self.cap)
        if self.jitter is Jitter.FULL:
            return rng.randint(0, ticks)
        if self.jitter is Jitter.EQUAL:
            half = ticks // 2
            return half + rng.randint(0, ticks - half)
        return ticks
