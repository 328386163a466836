"""A long move forward, made a slice at a time so that the dashboard stays responsive meanwhile.

Playing a week of the demo fleet for the first time costs seconds of engine time. In one go the
app would freeze that long; on a thread, the views would read an engine that changes under them
(the engine is not thread-safe). So a jump is a series of small moves on the app's own loop:
between two slices the app draws the progress and answers keys. Each slice returns its
:class:`~tui.model.navigator.Change`, from which the views' row models catch up at once (at the
cost of what the slice changed, so the jump never ends in one long rebuild); the screen is only
repainted when the jump ends or the user looks (nobody reads a table that changes thirty times a
second, and a repaint costs more than a slice).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.model.navigator import Change, Navigator


@dataclass(slots=True)
class Pacer:
    """How many ticks the next slice plays, so that a slice takes about ``seconds``.

    The engine's cost per tick swings by orders of magnitude (a quiet night, the midnight herd),
    so the size doubles after a quick slice and halves after a slow one."""

    seconds: float
    size: int = 4
    largest: int = 1 << 20

    def record(self, elapsed: float) -> None:
        """The last slice took ``elapsed`` seconds: size the next one."""
        if elapsed < self.seconds / 2:
            self.size = min(self.largest, self.size * 2)
        elif elapsed > self.seconds * 2:
            self.size = max(1, self.size // 2)


@dataclass(slots=True)
class Jump:
    """A move to ``target`` in slices (an open-ended run's end is its horizon: a tick too)."""

    navigator: Navigator
    target: int
    start: int = field(init=False)
    done: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.start = self.navigator.tick
        self.done = self.start >= self.target

    @property
    def reached(self) -> int:
        return self.navigator.tick

    @property
    def fraction(self) -> float:
        """How much of the way is done, from 0 to 1."""
        if self.target <= self.start:
            return 1.0
        return min(1.0, (self.reached - self.start) / (self.target - self.start))

    def advance(self, size: int) -> Change:
        """Play one slice: ``size`` ticks toward the target."""
        navigator = self.navigator
        if self.done:
            return Change(navigator.tick, navigator.tick, (), forward=True)
        change = navigator.seek(min(self.target, navigator.tick + size))
        # a seek stops short only at the end of the run: nothing more to wait for
        self.done = navigator.tick >= self.target or change.after <= change.before
        return change
