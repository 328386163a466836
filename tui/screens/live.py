"""The dashboard attached to a running service: following its head, rewinding, what-ifs.

The same screen as for a scenario (every pane, key and command), over a
:class:`~tui.model.live.LiveSource`'s history, plus what a live service needs:

- opening reads the journal a slice at a time (the header says how far), then goes to the live
  head as a jump that plays in the background, like any long move;
- every :data:`POLL_SECONDS` the new rows are read and, at the head, the view moves with it;
- the header says LIVE, REWOUND (how far behind) or WHAT-IF;
- at the live head a command goes to the service's API (:mod:`tui.model.live_api`): it is
  journaled, every viewer sees it, and the answer is the API's code and message. Rewound, a
  command starts a local what-if (the history's user branch) that is never sent; ``end`` gives
  it up and returns to the live head.
"""

from __future__ import annotations

import asyncio
import time

from sqlalchemy.exc import SQLAlchemyError

from tui.model.commandline import CommandError
from tui.model.jump import Pacer
from tui.model.live import LiveSource, Mode
from tui.model.live_api import ApiRequest, ServiceApi, api_request
from tui.model.navigator import Change
from tui.model.session import Session
from tui.screens.dashboard import DashboardScreen
from tui.screens.playback import SLICE_SECONDS, YIELD_SECONDS
from tui.widgets.command_bar import CommandBar
from tui.widgets.status_header import Progress, StatusHeader

POLL_SECONDS = 0.25
"""How often new journal rows and the clock are read: the head is never a second behind."""
OPEN_ROWS = 64
"""Rows read in the first slice while opening; then as many as take about SLICE_SECONDS."""
MOST_OPEN_ROWS = 20_000
MODE_STYLES = {Mode.LIVE: "bold green", Mode.REWOUND: "yellow", Mode.WHAT_IF: "bold magenta"}


class LiveDashboardScreen(DashboardScreen):
    """The dashboard over a live service's journal."""

    def __init__(
        self, session: Session, source: LiveSource, api: ServiceApi, *, blink: bool = True
    ) -> None:
        super().__init__(session, blink=blink)
        self.source = source
        self.api = api
        self.opening = True
        """The journal is still being read for the first time."""
        self.answers: list[str] = []
        """The API's answers to the commands sent, oldest first."""
        self._poll_failed = False

    def on_mount(self) -> None:
        # DashboardScreen.on_mount runs too (Textual calls each class's handler)
        self.run_worker(self._open(), group="live-open")

    async def _open(self) -> None:
        """Read the journal in slices of about SLICE_SECONDS (reading a row is the scenario
        readers' work, a fraction of a millisecond), then go to the live head and follow it."""
        pacer = Pacer(SLICE_SECONDS, size=OPEN_ROWS, largest=MOST_OPEN_ROWS)
        while True:
            started = time.perf_counter()
            wanted = pacer.size
            read = self._poll(wanted)
            pacer.record(time.perf_counter() - started)
            self._redraw_header()
            if read < wanted:
                break
            await asyncio.sleep(YIELD_SECONDS)
        self.opening = False
        self.set_interval(POLL_SECONDS, self.follow)
        self.follow()

    # ------------------------------------------------------------ following

    def follow(self) -> None:
        """New rows and the clock; at the live head, move with it."""
        self._poll()
        behind = self.navigator.tick < self.source.history.until  # type: ignore[operator]
        if self.source.mode() is Mode.LIVE and self.jump is None and behind:
            super().seek(self.source.head)
        self._redraw_header()

    def _poll(self, limit: int | None = None) -> int:
        """Read rows into the history; the views take the moves it made. Rows read."""
        try:
            changes, read = self.source.poll() if limit is None else self.source.poll(limit)
        except SQLAlchemyError as error:
            if not self._poll_failed:  # said once, not four times a second
                self.notify(f"cannot read the journal: {error}", severity="error", markup=False)
            self._poll_failed = True
            return 0
        self._poll_failed = False
        self._take(changes)
        return read

    def _take(self, changes: list[Change]) -> None:
        moved = [self.absorb(change) for change in changes]
        if any(moved) and self.jump is None:
            self.show_views()

    # ---------------------------------------------------------------- moves

    def seek(self, tick: int) -> None:
        super().seek(tick)
        self._following(tick)

    def action_step(self, count: int) -> None:
        super().action_step(count)
        self._following(self.navigator.tick)

    def play_frame(self) -> None:
        super().play_frame()
        self._following(self.navigator.tick)

    def action_last(self) -> None:
        """Back to the live head, giving up a local what-if."""
        dropped = self.source.drop_what_if()
        if dropped:
            self.stop_jump()
            self._take(dropped)
            self.notify("the what-if is dropped: back to the live head", timeout=3)
        self.source.following = True
        super().seek(self.source.head)
        self._redraw_header()

    def _following(self, tick: int) -> None:
        self.source.following = tick >= self.source.history.until  # type: ignore[operator]
        self._redraw_header()

    # --------------------------------------------------------------- header

    def _redraw_header(self) -> None:
        history = self.navigator.history
        jump = self.jump
        if self.opening:
            note, style = f"reading the journal {int(self.source.loaded * 100)}%", "yellow"
        else:
            mode = self.source.mode()
            note, style = mode.value, MODE_STYLES[mode]
            if mode is Mode.LIVE:
                note = "● LIVE"
            elif mode is Mode.REWOUND:
                note = f"REWOUND {self.source.behind():,} ticks behind"
            else:
                note = "WHAT-IF: local, not sent"
        self.query_one(StatusHeader).show(
            self.session.name,
            history.tick,
            max(history.last_tick(), history.tick),
            self.session.clock,
            self.playing,
            self.speed,
            note,
            None if jump is None else Progress(jump.target, jump.fraction),
            note_style=style,
        )

    # -------------------------------------------------------------- commands

    def on_command_bar_submitted(self, message: CommandBar.Submitted) -> None:
        """At the live head, the API's verbs go to the service; the rest is the dashboard's
        (DashboardScreen's handler runs after this one unless it is prevented)."""
        if message.mode != "command":
            return
        if self.source.mode() is not Mode.LIVE:
            return  # rewound: a local what-if, which the header shows once it is applied
        try:
            request = api_request(message.text)
        except CommandError as error:
            message.prevent_default()
            self.command_bar.show_error(str(error))
            return
        if request is None:
            return
        message.prevent_default()
        self.run_worker(self._send(request), group="live-api")

    async def _send(self, request: ApiRequest) -> None:
        accepted, text = await self.api.send(request)
        self.answers.append(text)
        bar = self.command_bar
        if accepted:
            bar.close()
            self.pane(self.active_pane).focus()
            self.notify(text, timeout=4, markup=False)
            self.follow()  # the journaled row, at once
        else:
            bar.show_error(text)
