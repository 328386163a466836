"""Moving through time on the dashboard: steps, jumps, seeks, fast-forwards and play.

A mixin of :class:`~tui.screens.dashboard.DashboardScreen`, which provides ``navigator``,
``apply``, ``absorb`` and ``show_views``. Every move goes through :meth:`PlaybackMixin.move`
(a jump's slices through ``_play_jump``), so an engine failure becomes a message on screen
instead of a traceback.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.model.jump import Jump, Pacer
from tui.model.navigator import Change

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.model.navigator import Navigator

SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
"""Play speeds, in event ticks per second."""
FRAMES_PER_SECOND = 20
SYNC_SEEK_TICKS = 2_000
"""A seek further ahead than this (into ticks not played yet) is a jump (start_jump)."""
SLICE_SECONDS = 0.025
"""How long one slice of a jump should take: a key waits at most about this long."""
YIELD_SECONDS = 0.004
"""The pause after each slice, in which the app runs everything that waits (a key goes through
several queues before its action runs; a bare ``sleep(0)`` lets it take one hop per slice)."""
FREEZE_EVENTS = 5_000
"""After this many new events, freeze the heap out of the collector's sight (_settle_memory)."""


class PlaybackMixin:
    """Time keys and play for the dashboard screen."""

    navigator: Navigator
    playing: bool
    speed_index: int
    _timer: Timer | None
    _unfrozen_events: int
    _jump: Jump | None
    _unshown: bool

    def apply(self, change: Change) -> bool:  # provided by the screen
        raise NotImplementedError

    @property
    def speed(self) -> int:
        return SPEEDS[self.speed_index]

    @property
    def taken_down(self) -> bool:
        """The screen has stopped (the app quits, or the screen is popped). Textual then takes
        its widgets away and cancels its workers only after that: a worker that wakes up in
        between (a jump's next slice, a service's answer) must leave the widgets alone, or it
        fails on a widget that is gone (``NoMatches``)."""
        return not self.is_running  # type: ignore[attr-defined]

    def move(self, make: Callable[[], Change]) -> bool:
        """Make a move and show it; an engine failure is reported, never raised."""
        try:
            change = make()
        except Exception as error:  # an engine bug must not take the dashboard down
            self.stop_playing()
            self.notify(  # type: ignore[attr-defined]
                f"the engine failed: {type(error).__name__}: {error}",
                severity="error",
                markup=False,
            )
            return False
        return self.apply(change)

    def action_step(self, count: int) -> None:
        self.stop_jump()
        self.move(lambda: self.navigator.step(count))

    def action_first(self) -> None:
        self.seek(0)

    def action_last(self) -> None:
        target = self.navigator.end_target()
        self.seek(target)
        if self.navigator.history.open_ended:
            self.notify(  # type: ignore[attr-defined]
                f"An open-ended run: end goes to its horizon, tick {target:,}, "
                "which grows as the run plays on.",
                timeout=4,
            )

    def seek(self, tick: int) -> None:
        """Go to ``tick``; far ahead, as a jump that plays in the background (start_jump)."""
        self.stop_jump()
        until = self.navigator.history.until
        tick = max(0, tick if until is None else min(tick, max(until, self.navigator.tick)))
        # Ticks already played are restored at once; only new ground is played in slices.
        played = max(self.navigator.tick, self.navigator.history.recorded_through)
        if tick - played > SYNC_SEEK_TICKS:
            if played > self.navigator.tick:
                self.move(lambda: self.navigator.seek(played))
            self.start_jump(tick)
        else:
            self.move(lambda: self.navigator.seek(tick))

    # --------------------------------------------------------------- jumps

    @property
    def jump(self) -> Jump | None:
        """The jump playing in the background, if any."""
        return self._jump

    def start_jump(self, target: int) -> None:
        """Play to ``target`` a slice at a time on the app's loop. The header shows the
        progress at once; the views' rows follow every slice, and the screen repaints them when
        the jump ends or the user looks (catch_up)."""
        jump = self._jump = Jump(self.navigator, target)
        self.stop_playing()
        self._redraw_header()
        self.run_worker(self._play_jump(jump), group="jump")  # type: ignore[attr-defined]

    async def _play_jump(self, jump: Jump) -> None:
        """The slices, each followed by a pause in which the app draws and reads keys. Only the
        pacing depends on the real clock; where the jump lands does not."""
        pacer = Pacer(SLICE_SECONDS)
        try:
            await self.wait_for_refresh()  # type: ignore[attr-defined]  # the progress first
            while self._jump is jump and not jump.done and not self.taken_down:
                started = time.perf_counter()
                try:
                    change = jump.advance(pacer.size)
                except Exception as error:  # as in move(): report, never raise
                    self.notify(  # type: ignore[attr-defined]
                        f"the engine failed: {type(error).__name__}: {error}",
                        severity="error",
                        markup=False,
                    )
                    break
                self.absorb(change)
                pacer.record(time.perf_counter() - started)
                self._redraw_header()
                await asyncio.sleep(YIELD_SECONDS)
        except BaseException:
            if self._jump is jump:
                self._jump = None  # cancelled with the app (or a bug): never left half-running
            raise
        if self._jump is jump:
            self.stop_jump(show=not self.taken_down)

    def stop_jump(self, *, show: bool = True) -> bool:
        """End the jump where it has got to, and show it (``show``); False if none played."""
        jump, self._jump = self._jump, None
        if jump is None:
            return False
        if show:
            self.show_views()
        return True

    def catch_up(self) -> None:
        """Repaint the views at the tick the jump has reached; the jump goes on. Called before
        the app handles input, so that what the user looks at or acts on is the current state."""
        if self._jump is not None and self._unshown:
            self.show_views()

    def action_stop_jump(self) -> None:
        self.stop_jump()

    def action_toggle_play(self) -> None:
        self.stop_jump()
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
