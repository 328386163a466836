"""The cronlapse dashboard application: opens a file, shows it, reloads it when it changes."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode

from tui.model.session import LoadFailed, Session, empty_session, file_stamp, load_session
from tui.screens.dashboard import DashboardScreen
from tui.screens.errors import ErrorScreen
from tui.screens.help import HelpScreen
from tui.screens.prompt import PromptScreen
from tui.settled import nothing_to_do
from tui.widgets.timeline import TimelineView
from tui.widgets.virtual_table import VirtualTable

LOOKING = (
    events.Key,
    events.MouseDown,
    events.MouseScrollDown,
    events.MouseScrollUp,
    events.Resize,
)
"""Input after which the user sees other rows (mouse moves do not count: they come in floods)."""
TYPED = (events.Key, events.Paste)
"""Input that goes to the focused widget, in the order typed (DashboardApp._send_keys)."""
WATCH_SECONDS = 1.0
"""How often the file is checked for changes (the display never depends on this clock)."""


class DashboardApp(App[int]):
    """``DashboardApp(path)`` for a file, or ``DashboardApp(session=...)`` for a ready session."""

    CSS_PATH = "app.tcss"
    TITLE = "cronlapse"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("q", "quit", "Quit", tooltip="quit"),
        Binding("?", "help", "Help", tooltip="this help: every key and command"),
        Binding("o", "open", "Open", tooltip="open a scenario or a script"),
        Binding("r", "reload", "Reload", tooltip="reload the file from disk"),
        Binding("w", "why", "Why", show=False, tooltip="why: explain the run of the selected row"),
        Binding("s", "latency", "Latency", show=False, tooltip="latency: tables and plots"),
        Binding("a", "advice", "Advice", show=False, tooltip="advice: what hurts the fleet"),
    ]

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        session: Session | None = None,
        watch: bool = True,
        blink: bool = True,
    ) -> None:
        super().__init__()
        self.path = Path(path) if path is not None else None
        self.watch_file = watch
        self.blink = blink
        self._stamp = file_stamp(self.path) if self.path is not None else None
        self._shown: tuple[Path, tuple[int, int] | None] | None = None
        """The file the dashboard shows and its stamp when loaded (None: no file loaded): what
        ``esc`` from another file's errors goes back to, for ``r`` and the watch as well."""
        self._initial = session
        self.dashboard: DashboardScreen
        self.failed: LoadFailed | None = None
        self._keys: deque[events.Key | events.Paste] = deque()
        """Keys (and pastes) received and not sent on yet: they go one at a time (_send_keys)."""
        self._key_trip: DOMNode | None = None
        """While a key sent on is being handled, the node it is being followed from."""
        self._key_moved = False
        """The key reached the app's bindings, or the focus moved, since the trip under way
        began: what they set off is followed by another trip (_arrived)."""

    def on_mount(self) -> None:
        session = self._initial
        if session is None and self.path is not None:
            try:
                session = load_session(self.path)
            except LoadFailed as failed:
                self.failed = failed
        self.dashboard = self.make_dashboard(session or empty_session())
        self.push_screen(self.dashboard)
        if self.failed is not None:
            self.push_screen(ErrorScreen(self.failed), self._back_from_errors)
        elif self.path is not None:
            self._shown = (self.path, self._stamp)
        self._tell(self.dashboard.session)
        if self.watch_file:
            self.set_interval(WATCH_SECONDS, self.check_file)

    def make_dashboard(self, session: Session) -> DashboardScreen:
        """The main screen for ``session`` (the live dashboard brings its own)."""
        return DashboardScreen(session, blink=self.blink)

    async def on_event(self, event: events.Event) -> None:
        """Input first brings the dashboard's views up to a jump that plays in the background:
        what the user looks at is never older than the engine. Keys then wait their turn
        (``_send_keys``)."""
        if isinstance(event, LOOKING) and not event.is_forwarded:
            self._catch_up()
        if isinstance(event, TYPED) and not event.is_forwarded:
            self._keys.append(event)
            await self._send_keys()
            return
        if isinstance(event, events.Key):
            self._key_moved = True  # its bindings run now: follow what they set off (_arrived)
        await super().on_event(event)

    @property
    def keys_waiting(self) -> int:
        """Keys received and not yet handled through (0 once the app has caught up with the
        keyboard)."""
        return len(self._keys) + (self._key_trip is not None)

    @property
    def settled(self) -> bool:
        """Every key handled and nothing left to do until the next input or timer: the first
        frames drawn, a pane asked to take the focus has it, what the last key set off is laid
        out and painted (:func:`~tui.settled.nothing_to_do`). What a screenshot waits for before
        it is taken (tui/screenshot.py), and a test before it looks at the screen."""
        return not self.keys_waiting and nothing_to_do(self)

    async def _send_keys(self) -> None:
        """Hand the keys on one at a time, each once the one before and what it set off are done.

        Textual sends a key to the widget focused when the key arrives, and runs its bindings
        only when it has bubbled back up to the app, several queues later. Keys that arrive in
        one burst (a paste, a fast typist, a busy machine) are all sent on before the first one
        has acted: the keys behind ``g`` go to the table rather than the prompt ``g`` opens,
        those behind a line's ``enter`` into the line it is closing, and in an open line a
        character is typed before the ``backspace`` ahead of it has deleted anything. Sent one
        at a time, each reaches the widget that has the focus once the keys before it are done,
        as if typed slowly. A paste (one event for all its text) waits its turn the same way."""
        if self._keys and self._key_trip is None:
            key = self._keys.popleft()
            start = self.focused or self.screen  # where App.on_event sends it (bindings aside)
            self._key_trip, self._key_moved = start, False
            await super().on_event(key)
            self._follow(start)

    def _follow(self, node: DOMNode) -> None:
        """Go up from ``node`` to the app behind what was posted there, waiting at each node
        until its queue is empty, then ``_arrived``. A node that takes no more messages (a
        screen closing) is passed over."""
        while node is not self:
            if node.call_later(self._followed, node):
                return
            node = node.parent or self
        self.call_later(self._arrived)

    def _followed(self, node: DOMNode) -> None:
        """On ``node``'s own loop: wait behind what it still has to handle (what the key set
        off there: a character's ``Changed``, a ``Submitted`` turned into the line's own), else
        go on up. Textual has no public way to ask: its loop may have taken the next message out
        of the queue already, held as pending (peeking here could steal the closing sentinel).
        A Textual without these (private) attributes counts as idle: keys then go on at once, as
        Textual itself sends them, rather than waiting for ever."""
        pending = getattr(node, "_pending_message", None)
        queue = getattr(node, "_message_queue", None)
        if pending is None and (queue is None or queue.empty()):
            node = node.parent or self
        self._follow(node)

    async def _arrived(self) -> None:
        """Where a trip up from the focused widget ends. The first carries the key up to the
        app's bindings; what those set off (a line's ``Submitted``, which its owner closes it
        on; a prompt pushed; a focus moved) is followed by the next trips, until one that began
        after the bindings ran ends with the focus where it began: then the next key goes."""
        now = self.focused or self.screen
        if self._key_moved or now is not self._key_trip:
            self._key_trip, self._key_moved = now, False
            self._follow(now)
            return
        self._key_trip = None
        await self._send_keys()

    async def run_action(self, action, default_namespace=None, namespaces=None) -> bool:
        """Every key's action, too, acts on views caught up with the jump (it may have played
        on while the key travelled from the app to the widget that binds it)."""
        self._catch_up()
        return await super().run_action(action, default_namespace, namespaces)

    def _catch_up(self) -> None:
        dashboard = getattr(self, "dashboard", None)
        if dashboard is not None:
            dashboard.catch_up()

    # ---------------------------------------------------------------- files

    def open_path(self, path: str | Path, keep_tick: bool = False) -> bool:
        """Load ``path`` into the dashboard, or show why it cannot run; True when it loaded."""
        path = Path(path).expanduser()
        self.path = path
        self._stamp = file_stamp(path)
        try:
            session = load_session(path)
        except LoadFailed as failed:
            self.failed = failed
            if isinstance(self.screen, ErrorScreen):
                self.screen.show(failed)
            else:
                self.push_screen(ErrorScreen(failed), self._back_from_errors)
            return False
        self.failed = None
        self._shown = (path, self._stamp)
        while isinstance(self.screen, ErrorScreen):
            self.pop_screen()
        self.dashboard.load(session, keep_tick=keep_tick)
        self._tell(session)
        return True

    def _tell(self, session: Session) -> None:
        """What the user should know about the file just opened (a crontab's ``@reboot``, not
        imported), as ``cronlapse run`` says it on standard error."""
        for notice in session.notices:
            self.notify(notice, severity="warning", timeout=10, markup=False)

    def _back_from_errors(self, _: None) -> None:
        """``esc`` from the errors of a file opened over another goes back to the other one, and
        so do ``r`` and the watch. The errors of the file shown (saved broken) keep it watched:
        saving it fixed brings it back."""
        if self._shown is not None and self._shown[0] != self.path:
            self.path, self._stamp = self._shown

    def check_file(self) -> bool:
        """Reload when the file changed on disk; True when it did."""
        if self.path is None:
            return False
        stamp = file_stamp(self.path)
        if stamp == self._stamp or stamp is None:
            return False
        if self.open_path(self.path, keep_tick=True):
            self.notify(f"{self.path.name} changed on disk: reloaded", timeout=3, markup=False)
        return True

    # -------------------------------------------------------------- actions

    def action_reload(self) -> None:
        if self.path is None:
            self.notify("Nothing to reload: no file is open.", severity="warning")
            return
        if self.open_path(self.path, keep_tick=True):
            self.notify(f"Reloaded {self.path.name}", timeout=2, markup=False)

    def action_open(self) -> None:
        from tui.screens.command_runner import complete_path

        def done(value: str | None) -> None:
            if value:
                self.open_path(value)

        self.push_screen(
            PromptScreen(
                "Open",
                "a scenario (.yaml) or a seed 001 script (.txt); tab completes paths",
                str(self.path or ""),
                check=lambda value: None if Path(value).expanduser().is_file() else "no such file",
                complete=complete_path,
                blink=self.blink,
                prompt_id="open",
            ),
            done,
        )

    def action_why(self) -> None:
        from tui.screens.why import WhyScreen, why_screen

        if not isinstance(self.screen, WhyScreen):
            self.push_screen(why_screen(self.dashboard))

    def action_latency(self) -> None:
        from tui.screens.latency import LatencyScreen

        if not isinstance(self.screen, LatencyScreen):
            self.push_screen(LatencyScreen(self.dashboard))

    def action_advice(self) -> None:
        from tui.screens.advice import AdviceScreen

        if not isinstance(self.screen, AdviceScreen):
            self.push_screen(AdviceScreen(self.dashboard))

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        screen_keys = [b for b in DashboardScreen.BINDINGS if not b.action.startswith("app.")]
        sections = [
            ("Time", [b for b in screen_keys if b.action not in _PANE_ACTIONS]),
            ("Panes", [b for b in screen_keys if b.action in _PANE_ACTIONS]),
            ("Tables", VirtualTable.BINDINGS),
            ("Timeline", TimelineView.BINDINGS),
            ("App", self.BINDINGS),
        ]
        self.push_screen(HelpScreen(sections))


_PANE_ACTIONS = {"focus_pane(1)", "focus_pane(-1)", "filter", "command", "export"}


def run_dashboard(path: str | Path | None) -> int:
    """Run the dashboard in the terminal until the user quits; the process exit status."""
    app = DashboardApp(path)
    app.run()
    return app.return_code or 0
