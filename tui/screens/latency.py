"""The latency screen (``s``): the latency tables at the current tick (laid out for the screen's
width), and the distributions of schedule lag, queue wait and backoff wait as terminal plots, one
series per priority."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cronlapse.analyses.latency.attribution import MEASURES, latency_report
from tui.widgets.latency import LatencyPlot
from tui.widgets.latency_tables import LatencyTables


class LatencyScreen(ModalScreen[None]):
    """Tables first, then one plot per measure; esc, s or q closes it."""

    BINDINGS: ClassVar[list[Binding]] = [Binding("escape,s,q", "close", "Close")]

    def __init__(self, dashboard: Any) -> None:
        super().__init__(id="latency")
        dashboard.stop_jump()
        self.report = latency_report(dashboard.session.history.engine)

    def compose(self):
        with VerticalScroll(id="latency-box") as box:
            box.border_title = f"Latency at tick {self.report.now:,}"
            box.border_subtitle = "esc closes"
            yield Static(LatencyTables(self.report), id="latency-tables")
            for measure in MEASURES:
                yield LatencyPlot(self.report, measure, id=f"plot-{measure}")

    def action_close(self) -> None:
        self.dismiss(None)
