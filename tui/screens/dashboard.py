"""The dashboard screen: the panes, the keys that move through time, and the command line.

State flows one way: a key asks the :class:`~tui.model.navigator.Navigator` to move, the move
returns a :class:`~tui.model.navigator.Change`, and every view updates itself from that change.
Views never touch the engine except to read it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual.binding import Binding
from textual.containers import Container
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer

from tui.messages import PaneChosen, RowSelected
from tui.model.completion import Candidates, candidates
from tui.model.jump import Jump
from tui.model.navigator import Change, Navigator
from tui.model.session import Session
from tui.model.sweep_run import SweepRun
from tui.screens.command_runner import CommandRunner
from tui.screens.playback import FREEZE_EVENTS, PlaybackMixin
from tui.widgets.cancellations import CancellationsTable
from tui.widgets.command_bar import CommandBar
from tui.widgets.detail import DetailPane
from tui.widgets.events import EventsTable
from tui.widgets.notifications import NotificationsTable
from tui.widgets.occurrences import OccurrencesTable
from tui.widgets.pane_tabs import PaneTabs
from tui.widgets.retries import RetriesTable
from tui.widgets.status_header import Progress, StatusHeader
from tui.widgets.timeline import TimelineView
from tui.widgets.virtual_table import VirtualTable
from tui.widgets.workers import WorkersTable

PANES = (
    ("occurrences", "Occurrences"),
    ("workers", "Workers"),
    ("retries", "Retries"),
    ("cancellations", "Cancelled"),
    ("notifications", "Notices"),
    ("events", "Events"),
    ("timeline", "Timeline"),
    ("detail", "Detail"),
)
"""Pane ids in tab order, with their tab labels for the narrow layout."""


class DashboardScreen(PlaybackMixin, Screen[None]):
    """Everything on one screen; panes collapse into tabs in a small terminal."""

    AUTO_FOCUS = "#occurrences"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-short"), (30, "-tall")]
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("?", "app.help", "Help", tooltip="this help: every key and command"),
        Binding("space", "toggle_play", "Play/pause"),
        Binding("right,l", "step(1)", "Step", tooltip="step one event tick forward"),
        Binding("left,h", "step(-1)", "Back", tooltip="step one event tick back"),
        Binding("shift+right,L", "step(10)", "+10", tooltip="jump 10 event ticks forward"),
        Binding("shift+left,H", "step(-10)", "-10", tooltip="jump 10 event ticks back"),
        Binding("home", "first", "First", tooltip="go to the first tick"),
        Binding("end", "last", "Last", tooltip="go to the last tick"),
        Binding(
            "escape",
            "stop_jump",
            "Stop",
            show=False,  # the header says "esc stops" (a footer that changes costs a relayout)
            tooltip="stop a long jump where it has got to",
        ),
        Binding("g", "goto", "Go to", tooltip="go to a tick or a wall-clock time"),
        Binding("+", "speed(1)", "Faster", tooltip="play faster"),
        Binding("-", "speed(-1)", "Slower", tooltip="play slower"),
        Binding("/", "filter", "Filter", tooltip="filter the focused table"),
        Binding(":", "command", "Command", tooltip="type an engine command"),
        Binding("e", "export", "Export", tooltip="export attempts as a Chrome trace or CSV"),
        Binding("tab", "focus_pane(1)", "Next pane", show=False, tooltip="next pane"),
        Binding(
            "shift+tab", "focus_pane(-1)", "Previous pane", show=False, tooltip="previous pane"
        ),
    ]

    def __init__(self, session: Session, *, blink: bool = True) -> None:
        super().__init__(id="dashboard")
        self.session = session
        self.navigator = Navigator(session.history)
        self.playing = False
        self.speed_index = 3
        self.active_pane = "occurrences"
        self.blink = blink
        self.runner = CommandRunner(self)
        self._timer: Timer | None = None
        self._jump: Jump | None = None
        self._unshown = False
        """Views absorbed a move (a jump's slice) that is not on screen yet."""
        self._filter_target: VirtualTable | None = None
        self._unfrozen_events = 0
        self._focus_pending: str | None = None
        self.sweep_run: SweepRun | None = None
        """The last ``:sweep`` (it plays on in the background when its screen is closed)."""

    # ------------------------------------------------------------- layout

    def compose(self):
        yield StatusHeader(id="status")
        yield PaneTabs(list(PANES), id="tabs")
        with Container(id="panes"):
            yield WorkersTable(id="workers", classes="pane")
            yield OccurrencesTable(id="occurrences", classes="pane")
            yield DetailPane(id="detail", classes="pane")
            yield RetriesTable(id="retries", classes="pane")
            yield CancellationsTable(id="cancellations", classes="pane")
            yield EventsTable(id="events", classes="pane")
            yield NotificationsTable(id="notifications", classes="pane")
            yield TimelineView(id="timeline", classes="pane")
        yield CommandBar(self._complete, blink=self.blink)
        yield Footer()

    def on_mount(self) -> None:
        self.show_pane("occurrences")
        self._rebuild()

    @property
    def views(self) -> list[VirtualTable | TimelineView]:
        return [*self.query(VirtualTable), self.query_one(TimelineView)]

    @property
    def detail(self) -> DetailPane:
        return self.query_one(DetailPane)

    @property
    def command_bar(self) -> CommandBar:
        return self.query_one(CommandBar)

    @property
    def narrow(self) -> bool:
        return self.has_class("-narrow") or self.has_class("-short")

    def pane(self, pane_id: str) -> Widget:
        return self.query_one(f"#{pane_id}")

    def show_pane(self, pane_id: str) -> None:
        """Make ``pane_id`` the active pane (the one shown in the narrow layout) and focus it."""
        self._activate(pane_id)
        if self.focused is not self.pane(pane_id):
            # After the next refresh: in the narrow layout the pane is shown by a class, and a
            # hidden widget cannot take focus until the styles are applied.
            self._focus_pending = pane_id
            self.call_after_refresh(self._focus_pending_pane)

    def _focus_pending_pane(self) -> None:
        if self._focus_pending is not None:
            self.pane(self._focus_pending).focus()

    def _activate(self, pane_id: str) -> None:
        for other, _ in PANES:
            self.pane(other).set_class(other == pane_id, "-active")
        self.active_pane = pane_id
        self.query_one(PaneTabs).set_active(pane_id)

    # -------------------------------------------------------------- state

    def load(self, session: Session, keep_tick: bool = False) -> None:
        """Show another session (a file opened or reloaded), at the same tick if asked."""
        tick = self.navigator.tick
        self.stop_playing()
        self.stop_jump(show=False)  # the views are rebuilt for the new session below
        self.session = session
        self.navigator = Navigator(session.history)
        self._rebuild()
        if keep_tick:
            self.seek(tick)  # far ahead, a jump like any other: a reload never freezes the app

    def _rebuild(self) -> None:
        self._settle_memory(FREEZE_EVENTS)
        engine, clock = self.navigator.engine, self.session.clock
        with self.app.batch_update():
            for view in self.views:
                view.rebuild(engine, clock)
            self._redraw()

    def apply(self, change: Change) -> bool:
        """Update every view from a move and repaint; False when the move went nowhere."""
        if not self.absorb(change):
            return False
        self.show_views()
        return True

    def absorb(self, change: Change) -> bool:
        """Bring every view's rows up to a move without repainting (show_views repaints)."""
        if not change.moved:
            return False
        self._settle_memory(len(change.events))
        engine = self.navigator.engine
        for view in self.views:
            view.absorb(change, engine)
        self._unshown = True
        return True

    def show_views(self) -> None:
        self._unshown = False
        with self.app.batch_update():
            for view in self.views:
                view.show()
            self._redraw()

    def _redraw(self) -> None:
        self._redraw_header()
        self._redraw_detail()

    def _redraw_header(self) -> None:
        """The header alone: during a jump it is the one thing that follows each slice."""
        history = self.navigator.history
        jump = self._jump
        last = max(history.last_tick(), history.tick)
        note = "rewound" if history.tick < history.recorded_through and jump is None else ""
        self.query_one(StatusHeader).show(
            self.session.name,
            history.tick,
            last,
            self.session.clock,
            self.playing,
            self.speed,
            note,
            None if jump is None else Progress(jump.target, jump.fraction),
            open_ended=history.open_ended,
        )

    def _redraw_detail(self) -> None:
        """Show what the focused table's (or the timeline's) cursor is on, as of the current
        tick. Done in the same update as the tables (not on their messages), so a step lays out
        and paints once; and so a file opened over another shows one of its own rows."""
        focused = self.focused
        if isinstance(focused, VirtualTable):
            self.detail.show(focused.KIND, focused.cursor_key)
        elif isinstance(focused, TimelineView):
            self.detail.show("worker", focused.cursor_key)
        lanes = self.query_one(TimelineView).lanes
        self.detail.redraw(self.navigator.engine, self.session.clock, lanes)

    def help_notes(self) -> RenderableType | None:
        """What the help says about this screen besides its keys and commands (None: nothing;
        a live service's dashboard says where its commands go)."""
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``escape`` stops a jump, and is bound only while one plays."""
        if action == "stop_jump":
            return self._jump is not None
        return True

    # ------------------------------------------------------------ actions

    def action_focus_pane(self, direction: int) -> None:
        # From the active pane, not from the focused widget: focus moves after this handler
        # returns, and keys pressed in a burst must each move one pane on.
        ids = [pane_id for pane_id, _ in PANES]
        self.show_pane(ids[(ids.index(self.active_pane) + direction) % len(ids)])

    def on_pane_chosen(self, message: PaneChosen) -> None:
        self.show_pane(message.pane_id)

    def on_row_selected(self, message: RowSelected) -> None:
        """The focused table's selection is what the detail pane shows."""
        if message.widget.has_focus and (message.kind, message.key) != self.detail.shown:
            self.detail.show(message.kind, message.key)
            self._redraw_detail_only()

    def _redraw_detail_only(self) -> None:
        lanes = self.query_one(TimelineView).lanes
        self.detail.redraw(self.navigator.engine, self.session.clock, lanes)

    def on_descendant_focus(self, event) -> None:
        """A pane focused by a click (or by the app) becomes the active one. Focus changes that
        show_pane asked for arrive later, one per key: only the last one asked for counts, so
        keys pressed in a burst each move one pane on."""
        pane_id = event.widget.id
        if pane_id not in dict(PANES):
            return
        if self._focus_pending is not None:
            if pane_id == self._focus_pending:
                self._focus_pending = None
            return
        if pane_id != self.active_pane:
            self._activate(pane_id)

    # -------------------------------------------------------- command line

    def _complete(self, line: str) -> Candidates:
        return candidates(line, self.navigator.engine)

    def action_command(self) -> None:
        self.command_bar.open("command")

    def action_filter(self) -> None:
        focused = self.focused
        target = focused if isinstance(focused, VirtualTable) else None
        if target is None:
            pane = self.pane(self.active_pane)
            target = pane if isinstance(pane, VirtualTable) else self.query_one(OccurrencesTable)
        self._filter_target = target
        self.command_bar.open("filter", target.filter_text)

    def filter_table(self, text: str, target: VirtualTable | None = None) -> VirtualTable:
        table = target or self._filter_target or self.query_one(OccurrencesTable)
        table.set_filter(text)
        return table

    def on_command_bar_submitted(self, message: CommandBar.Submitted) -> None:
        bar = self.command_bar
        if message.mode == "filter":
            table = self.filter_table(message.text)
            bar.close()
            table.focus()
            return
        self.stop_jump()  # a command reads and changes the history: the jump ends first
        ok, text = self.runner.run(message.text)
        if ok:
            bar.close()
            self.pane(self.active_pane).focus()
            if text:
                self.notify(text, timeout=4, markup=False)
        else:
            bar.show_error(text)

    def on_command_bar_closed(self, message: CommandBar.Closed) -> None:
        self.command_bar.close()
        self.pane(self.active_pane).focus()

    def action_goto(self) -> None:
        self.runner.prompt_goto()

    def action_export(self) -> None:
        self.runner.prompt_export()
