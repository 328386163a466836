"""A long move forward, made a slice at a time so that the dashboard stays responsive meanwhile.

Playing a week of the demo fleet for the first time costs seconds of engine time. In one go the
app would freeze that long; on a thread, the views would read an engine that changes under them
(the engine is not thread-safe). So a jump is a series of small moves on the app's own loop:
between two slices the app draws the progress and answers keys. The views are not updated per
slice (an update costs what the slice changed, and nobody reads a table that changes thirty times
a second): the slices' changes pile up and :meth:`Jump.take` hands them over as one, when the
jump ends, when it is stopped, or when the user looks at the tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.model.navigator import END_STEP_LIMIT, Change, Navigator, merge


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
    """A move to ``target`` (or, when the run has no end, to where it goes quiet), in slices."""

    navigator: Navigator
    target: int | None
    """The tick to reach; None: step event ticks until there are none (at most END_STEP_LIMIT)."""
    start: int = field(init=False)
    done: bool = field(init=False, default=False)
    steps: int = field(init=False, default=0)
    """Event ticks stepped so far (only when ``target`` is None)."""
    _pending: list[Change] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.start = self.navigator.tick
        self.done = self.target is not None and self.start >= self.target

    @property
    def reached(self) -> int:
        return self.navigator.tick

    @property
    def fraction(self) -> float | None:
        """How much of the way is done, from 0 to 1; None when the end is not known."""
        if self.target is None:
            return None
        if self.target <= self.start:
            return 1.0
        return min(1.0, (self.reached - self.start) / (self.target - self.start))

    def advance(self, size: int) -> None:
        """Play one slice: ``size`` ticks toward the target (event ticks when it has none)."""
        if self.done:
            return
        navigator = self.navigator
        if self.target is None:
            size = min(size, END_STEP_LIMIT - self.steps)
            change = navigator.step(size)
            self.steps += size
            self.done = not change.moved or self.steps >= END_STEP_LIMIT
        else:
            change = navigator.seek(min(self.target, navigator.tick + size))
            # a seek stops short only at the end of the run: nothing more to wait for
            self.done = navigator.tick >= self.target or change.after <= change.before
        if change.moved:
            self._pending.append(change)

    def take(self) -> Change | None:
        """The slices' changes since the last take, as one; None if nothing moved."""
        if not self._pending:
            return None
        change = merge(self._pending)
        self._pending = []
        return change
