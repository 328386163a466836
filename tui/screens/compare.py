"""``:compare``: the future the last command replaced beside the one it started, played to the
same tick: the runs moved, dropped and added, and the latency figures of each.

Both futures are played as histories of their own (:meth:`engine.play.history.History.futures`) in a
worker thread: they share nothing with the history on screen, so stepping and rewinding go on
meanwhile, and the screen fills in when both are played.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cronlapse.analyses.compare.futures import Comparison, compare
from cronlapse.analyses.compare.tables import comparison_tables
from cronlapse.analyses.latency.attribution import LatencyReport
from cronlapse.analyses.latency.tables import counts_line
from engine.play.history import History

NO_BRANCH = (
    "compare: there is only one future; rewind, then type a command: the future it replaces "
    "is compared with the new one"
)
BEFORE, AFTER = "replaced future", "this future"


def open_compare(dashboard: Any) -> tuple[bool, str]:
    """Push the compare screen, or say why there is nothing to compare."""
    history: History = dashboard.session.history
    futures = history.futures()
    if futures is None:
        return False, NO_BRANCH
    horizon = history.until if history.until is not None else history.last_tick()
    dashboard.app.push_screen(CompareScreen(*futures, horizon))
    return True, ""


class CompareScreen(ModalScreen[None]):
    """The two futures side by side; esc or q closes it."""

    BINDINGS: ClassVar[list[Binding]] = [Binding("escape,q", "close", "Close")]

    def __init__(self, before: History, after: History, horizon: int) -> None:
        super().__init__(id="compare")
        self.before, self.after, self.horizon = before, after, horizon
        self.comparison: Comparison | None = None

    def compose(self):
        with VerticalScroll(id="compare-box") as box:
            box.border_title = f"Two futures, to tick {self.horizon:,}"
            box.border_subtitle = "esc closes"
            yield Static(
                Text(f"Playing both futures to tick {self.horizon:,}...", style="dim"),
                id="compare-body",
            )

    def on_mount(self) -> None:
        self.run_worker(self._play, thread=True, exit_on_error=False)

    def _play(self) -> None:
        self.before.seek(self.horizon)
        self.after.seek(self.horizon)
        comparison = compare(self.before.engine, self.after.engine)
        self.app.call_from_thread(self._show, comparison)

    def _show(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.query_one("#compare-body", Static).update(body(comparison))

    def action_close(self) -> None:
        self.dismiss(None)


def body(comparison: Comparison) -> RenderableType:
    sides = Table.grid(padding=(0, 4))
    sides.add_column()
    sides.add_column()
    sides.add_row(_side(BEFORE, comparison.before), _side(AFTER, comparison.after))
    return Group(sides, Text(""), comparison_tables(comparison, BEFORE, AFTER))


def _side(title: str, report: LatencyReport) -> RenderableType:
    overall = report.overall
    lines = [
        Text(title, style="bold underline"),
        Text(counts_line(report).replace("; ", "\n")),
        Text(f"queue wait p50/p95/max: {_three(overall.wait)}"),
        Text(f"schedule lag p50/p95/max: {_three(overall.lag)}"),
        Text(f"backoff p50/p95/max: {_three(overall.backoff)}"),
    ]
    return Group(*lines)


def _three(summary) -> str:
    return "/".join("-" if v is None else f"{v:,}" for v in (summary.p50, summary.p95, summary.max))
