"""The dashboard attached to a running service: following its head, rewinding, what-ifs.

The same screen as for a scenario (every pane, key and command), over a
:class:`~tui.model.live.LiveSource`'s history, plus what a live service needs:

- opening reads the journal a slice at a time (the header says how far), then goes to the live
  head as a jump that plays in the background, like any long move;
- every :data:`POLL_SECONDS` the new rows are read and, at the head, the view moves with it;
- at attach the service is asked whether it answers and takes the token (a wrong ``--url`` or
  token is said at once, not at the first command), then ``GET /health`` every
  :data:`HEALTH_SECONDS`, on a worker: while it does not answer, or its journal stops (the
  heartbeat, :class:`~tui.model.live.LiveSource`), the header says NOT RESPONDING and the head
  stays at the journal's last row;
- the header says LIVE (following: nothing plays there, so no play state), REWOUND (how far
  behind) or WHAT-IF;
- at the live head a command goes to the service's API (:mod:`tui.model.live_api`): it is
  journaled, every viewer sees it, and the answer is the API's code and message, as a toast
  (the line closes as it is sent, so what is typed meanwhile is a new line). Rewound, a
  command starts a local what-if (the history's user branch) that is never sent; ``end`` gives
  it up and returns to the live head. Its attempts end only as the real service reported them
  (the executors report how attempts end; the what-if has no executor), which it says;
- ``home`` goes to the journal's first row, not to tick 0 (1970).
"""

from __future__ import annotations

import asyncio
import time

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from cronlapse.service.store import StoreFailure
from tui.model.commandline import CommandError
from tui.model.jump import Pacer
from tui.model.live import LiveSource, Mode
from tui.model.live_api import ApiRequest, ServiceApi, api_request
from tui.model.navigator import Change
from tui.model.session import Session
from tui.model.timefmt import short
from tui.screens.dashboard import DashboardScreen
from tui.screens.playback import SLICE_SECONDS, YIELD_SECONDS
from tui.widgets.command_bar import CommandBar
from tui.widgets.status_header import Progress, StatusHeader

POLL_SECONDS = 0.25
"""How often new journal rows and the clock are read: the head is never a second behind."""
HEALTH_SECONDS = 1.0
"""How often the service's ``GET /health`` is asked."""
OPEN_ROWS = 64
"""Rows read in the first slice while opening; then as many as take about SLICE_SECONDS."""
MOST_OPEN_ROWS = 20_000
MODE_STYLES = {Mode.LIVE: "bold green", Mode.REWOUND: "yellow", Mode.WHAT_IF: "bold magenta"}
SILENT_STYLE = "bold red"
WHAT_IF_LIMIT = (
    "A local what-if, never sent. Its attempts end only as the real service reported them: "
    "the service's executors say how an attempt ends, and a what-if has none, so an attempt "
    "the service never ran runs on."
)
LIVE_HELP = (
    (
        "at the live head (● LIVE)",
        "schedule, modify, cancel, delete go to the service's API: "
        "journaled, seen by every viewer, answered with the API's code and message; other engine "
        "verbs are refused there",
    ),
    (
        "rewound (← home g)",
        "the service runs on; a command is a local what-if, never sent, and "
        "end drops it. In a what-if attempts end only as the real service reported them",
    ),
    (
        "space + -",
        "play and its speed, when rewound; at the head the screen follows the service's clock",
    ),
    ("home / end", "the journal's first row / the live head"),
    ("o r", "do not apply: the dashboard watches one service and reads its journal as it grows"),
    (
        "● NOT RESPONDING",
        "the service does not answer GET /health, or its journal stopped while "
        "its clock ran: the head stays at the last row until it answers again",
    ),
)
"""The help's live section: what differs from a scenario's dashboard."""


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
        self._asking = False
        """A ``GET /health`` is under way (a wedged service makes one last its timeout)."""

    def on_mount(self) -> None:
        # DashboardScreen.on_mount runs too (Textual calls each class's handler)
        note = self.source.start_note(self.session.clock) if self.session.clock else None
        if note is not None:
            self.notify(note, timeout=10, markup=False)
        self.run_worker(self._open(), group="live-open")
        self.run_worker(self._first_ask(), group="live-health")

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
            if self.taken_down:
                return
        self.opening = False
        self.set_interval(POLL_SECONDS, self.follow)
        self.follow()

    # ---------------------------------------------------------- the service

    async def _first_ask(self) -> None:
        """Ask at once whether the service answers and takes the token, so that a wrong
        ``--url`` or token is said now rather than at the first command; then ask again every
        HEALTH_SECONDS."""
        self._asking = True
        answered = await self._health()
        refusal = await self.api.refusal() if answered and not self.taken_down else None
        if self.taken_down:
            return  # its timers are stopped already: one set now would never be
        if refusal is not None:
            token = "the token" if self.api.token is not None else "to go without a token"
            self.notify(
                f"the service at {self.api.base_url} refuses {token}, so commands will "
                f"fail: {refusal}",
                severity="error",
                timeout=10,
                markup=False,
            )
        self.set_interval(HEALTH_SECONDS, self._ask_health)

    def _ask_health(self) -> None:
        if not self._asking:
            self._asking = True
            self.run_worker(self._health(), group="live-health")

    async def _health(self) -> bool:
        """One ``GET /health`` (on the app's loop, never blocking it); says when the service
        stops or starts answering. True when it answered."""
        try:
            reason = await self.api.health()
        finally:
            self._asking = False
        if self.taken_down:
            return reason is None
        was_silent = self.source.unanswered_since is not None
        self.source.answered(reason is None)
        if reason is not None and not was_silent:
            self.notify(
                f"the service at {self.api.base_url} does not answer ({reason}): the head stays "
                "at its journal's last row, and commands fail, until it does",
                severity="warning",
                timeout=10,
                markup=False,
            )
        elif reason is None and was_silent:
            self.notify("the service answers again: following its head", timeout=4)
        if not self.opening:
            self.follow()
        return reason is None

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
        except StoreFailure as error:
            if not self._poll_failed:  # said once, not four times a second
                self.notify(f"cannot read the journal: {error}", severity="error", markup=False)
            self._poll_failed = True
            return 0
        self._poll_failed = False
        self.navigator.start = self.source.first_tick or 0
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
        """Playing while rewound ends at the live head, which then follows."""
        super().play_frame()
        self._following(self.navigator.tick)
        if self.playing and self.source.following:
            self.stop_playing()
            self.notify("back at the live head: following the service", timeout=3)
            self._redraw_header()

    def action_toggle_play(self) -> None:
        if self.source.mode() is Mode.LIVE:
            self.notify(
                "At the live head the screen follows the service: nothing to play. Rewound "
                "(←, home, g), space plays toward the head.",
                timeout=4,
            )
            return
        super().action_toggle_play()

    def action_speed(self, direction: int) -> None:
        super().action_speed(direction)
        if self.source.mode() is Mode.LIVE:
            self.notify(
                f"Speed {self.speed}/s, for playing when rewound: at the live head the screen "
                "follows the service's clock.",
                timeout=3,
            )

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
            note, style = self._mode_note()
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
            follows=not self.opening and self.source.mode() is Mode.LIVE,
        )

    def _mode_note(self) -> tuple[str, str]:
        """The header's note and its style: where the screen is, and whether the service
        responds."""
        mode = self.source.mode()
        since = self.source.not_responding_since()
        if mode is Mode.LIVE:
            if since is not None:
                return f"● NOT RESPONDING since {short(self.session.clock, since)}", SILENT_STYLE
            return "● LIVE  following", MODE_STYLES[mode]
        if mode is Mode.REWOUND:
            note = f"REWOUND {self.source.behind():,} ticks behind"
        else:
            note = "WHAT-IF: local, not sent"
        if since is not None:
            return f"{note}; not responding", SILENT_STYLE
        return note, MODE_STYLES[mode]

    def help_notes(self) -> RenderableType:
        table = Table(box=None, padding=(0, 2), show_header=False, expand=False)
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        table.add_row(
            Text("Live service", style="bold underline"), Text("cronlapse tui --db", "dim")
        )
        for keys, what in LIVE_HELP:
            table.add_row(keys, what)
        table.add_row("", "")
        return table

    # -------------------------------------------------------------- commands

    def on_command_bar_submitted(self, message: CommandBar.Submitted) -> None:
        """At the live head, the API's verbs go to the service; the rest is the dashboard's
        (DashboardScreen's handler runs after this one unless it is prevented)."""
        if message.mode != "command":
            return
        mode = self.source.mode()
        if mode is not Mode.LIVE:
            if mode is Mode.REWOUND:  # said once the command made a what-if (after this)
                self.call_later(self._what_if_begun)
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
        self.command_bar.close()  # the answer comes later, as a toast: the next ``:`` is a new line
        self.pane(self.active_pane).focus()
        self.run_worker(self._send(request), group="live-api")

    def _what_if_begun(self) -> None:
        if self.source.mode() is Mode.WHAT_IF:
            self.notify(WHAT_IF_LIMIT, timeout=8)

    async def _send(self, request: ApiRequest) -> None:
        accepted, text = await self.api.send(request)
        self.answers.append(text)
        if self.taken_down:
            return
        if accepted:
            self.notify(text, timeout=4, markup=False)
            self.follow()  # the journaled row, at once
        else:
            self.notify(text, severity="error", timeout=8, markup=False)
