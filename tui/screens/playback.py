"""Moving through time on the dashboard: steps, jumps, seeks, fast-forwards and play.

A mixin of :class:`~tui.screens.dashboard.DashboardScreen`, which provides ``navigator`` and
``apply``. Every move goes through :meth:`PlaybackMixin.move`, so an engine failure becomes a
message on screen instead of a traceback.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.model.navigator import Change, merge

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.model.navigator import Navigator

SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
"""Play speeds, in event ticks per second."""
FRAMES_PER_SECOND = 20
SYNC_SEEK_TICKS = 2_000
"""A seek further ahead than this runs in slices (run_to) instead of in one go."""
SLICE_SECONDS = 0.05
REDRAW_SECONDS = 0.4
FREEZE_EVENTS = 5_000
"""After this many new events, freeze the heap out of the collector's sight (_settle_memory)."""


class PlaybackMixin:
    """Time keys and play for the dashboard screen."""

    navigator: Navigator
    playing: bool
    speed_index: int
    _timer: Timer | None
    _unfrozen_events: int

    def apply(self, change: Change) -> bool:  # provided by the screen
        raise NotImplementedError

    @property
    def speed(self) -> int:
        return SPEEDS[self.speed_index]

    def move(self, make: Callable[[], Change]) -> bool:
        """Make a move and show it; an engine failure is reported, never raised."""
        try:
            change = make()
        except Exception as error:  # an engine bug must not take the dashboard down
            self.stop_playing()
            self.notify(  # type: ignore[attr-defined]
                f"the engine failed: {type(error).__name__}: {error}", severity="error"
            )
            return False
        return self.apply(change)

    def action_step(self, count: int) -> None:
        self.workers.cancel_group(self, "seek")
        self.move(lambda: self.navigator.step(count))

    def action_first(self) -> None:
        self.seek(0)

    def action_last(self) -> None:
        until = self.navigator.history.until
        if until is None:
            self.move(lambda: self.navigator.last())
        else:
            self.seek(until)

    def seek(self, tick: int) -> None:
        """Go to ``tick``; far ahead, in slices that keep the app responsive (see run_to)."""
        self.workers.cancel_group(self, "seek")
        until = self.navigator.history.until
        tick = max(0, tick if until is None else min(tick, max(until, self.navigator.tick)))
        # Ticks already played are restored at once; only new ground is run in slices.
        played = max(self.navigator.tick, self.navigator.history.recorded_through)
        if tick - played > SYNC_SEEK_TICKS:
            if played > self.navigator.tick:
                self.move(lambda: self.navigator.seek(played))
            self.run_worker(self.run_to(tick), group="seek", exclusive=True)
        else:
            self.move(lambda: self.navigator.seek(tick))

    async def run_to(self, target: int) -> None:
        """Run forward to ``target`` a slice at a time, so a long fast-forward shows its progress
        and keys still get through (a move cancels it). The views catch up every few slices,
        from the slices' events together. Only the pacing depends on the real clock."""
        ticks, pending, shown = 64, [], time.perf_counter()
        while self.navigator.tick < target:
            started = time.perf_counter()
            try:
                change = self.navigator.seek(min(target, self.navigator.tick + ticks))
            except Exception as error:  # as in move(): report, never raise
                self.notify(f"the engine failed: {type(error).__name__}: {error}", severity="error")
                break
            pending.append(change)
            if change.after <= change.before:
                target = change.after  # the run ends here: nothing more to wait for
            now = time.perf_counter()
            if now - started < SLICE_SECONDS / 2:
                ticks *= 2
            elif now - started > SLICE_SECONDS * 2:
                ticks = max(1, ticks // 2)
            if now - shown > REDRAW_SECONDS or self.navigator.tick >= target:
                self.apply(merge(pending))
                pending, shown = [], time.perf_counter()
            await asyncio.sleep(0)
        if pending:
            self.apply(merge(pending))

    def action_toggle_play(self) -> None:
        if self.playing:
            self.stop_playing()
        else:
            self.playing = True
            self._restart_timer()
        self._redraw()

    def stop_playing(self) -> None:
        self.playing = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _restart_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        interval = 1 / min(self.speed, FRAMES_PER_SECOND)
        self._timer = self.set_interval(interval, self.play_frame)

    def play_frame(self) -> None:
        """One frame of play: as many event ticks as the speed asks for per frame."""
        steps = max(1, self.speed // FRAMES_PER_SECOND)
        if not self.move(lambda: self.navigator.step(steps)) and self.playing:
            self.stop_playing()
            self._redraw()
            self.notify("End of the run: paused.", timeout=3)

    def action_speed(self, direction: int) -> None:
        self.speed_index = max(0, min(len(SPEEDS) - 1, self.speed_index + direction))
        if self.playing:
            self._restart_timer()
        self._redraw()

    def _settle_memory(self, new_events: int) -> None:
        """Move what the run has built so far out of the garbage collector's sight.

        A full collection walks every object: with a week of events in memory that is a pause of
        hundreds of milliseconds (seconds at 100,000 occurrences), at random moments. Frozen
        objects are skipped by collections and still freed by reference counting when dropped.
        """
        self._unfrozen_events += new_events
        if self._unfrozen_events >= FREEZE_EVENTS:
            self._unfrozen_events = 0
            gc.freeze()
