"""A one-line tab strip for the narrow layout, where one pane shows at a time."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import Static

from tui.messages import PaneChosen


class PaneTabs(Static):
    """Labels of the panes; the active one highlighted. Click one to show it."""

    def __init__(self, panes: list[tuple[str, str]], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.panes = panes
        self.active = panes[0][0]
        self._spans: list[tuple[int, int, str]] = []

    def on_mount(self) -> None:
        self._draw()

    def set_active(self, pane_id: str) -> None:
        self.active = pane_id
        self._draw()

    def _draw(self) -> None:
        text = Text()
        self._spans = []
        for pane_id, label in self.panes:
            start = text.cell_len
            style = "bold reverse" if pane_id == self.active else "dim"
            text.append(f" {label} ", style=style)
            self._spans.append((start, text.cell_len, pane_id))
        self.update(text)

    def on_click(self, event: events.Click) -> None:
        for start, end, pane_id in self._spans:
            if start <= event.x < end:
                self.post_message(PaneChosen(pane_id))
