"""The detail pane: everything about the row selected in the focused table.

The description is a Rich renderable (tables of attempts, a job's definition); it is rendered to
lines once per change and the pane draws those lines (Line API), so scrolling and repainting it
cost nothing, an unchanged description is not laid out again, and after a move only the lines
that changed are repainted (:mod:`tui.widgets.screen_lines`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import RenderableType
from rich.segment import Segment
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine.core import Engine
from engine.schedules.clock import Clock
from tui.detail_text import describe
from tui.model.lanes import Lanes
from tui.widgets.screen_lines import ScreenLines, set_virtual_size


class DetailPane(ScrollView, can_focus=True, inherit_bindings=False):
    """Scrollable; redrawn when the selection changes and after every move."""

    DEFAULT_CSS = "DetailPane { overflow-x: hidden; }"
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("up,k", "scroll_up", "Up", show=False),
        Binding("down,j", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        self._drawn = ScreenLines()  # before super(): Textual refreshes in __init__
        super().__init__(id=id, classes=classes)
        self.kind = ""
        self.key: Any = None
        self.border_title = "Detail"
        self.content: RenderableType = ""
        self._lines: list[list[Segment]] = []
        self._rendered_for: tuple | None = None

    def show(self, kind: str, key: Any) -> None:
        self.kind, self.key = kind, key

    @property
    def shown(self) -> tuple[str, Any]:
        return self.kind, self.key

    def redraw(self, engine: Engine, clock: Clock | None, lanes: Lanes | None) -> None:
        try:
            self.content = describe(self.kind, self.key, engine, clock, lanes)
        except Exception as error:  # a view must never take the app down
            self.content = f"cannot describe {self.kind} {self.key!r}: {error}"
        self._rendered_for = None
        subtitle = f"{self.kind} · w why" if self.kind else ""  # the key that explains it
        if self.border_subtitle != subtitle:  # setting it repaints the whole pane
            self.border_subtitle = subtitle
        self._render_lines()

    @property
    def text(self) -> str:
        """What the pane shows, as plain text (for tests)."""
        self._render_lines(hidden=True)
        return "\n".join("".join(s.text for s in line).rstrip() for line in self._lines)

    def on_resize(self) -> None:
        self._render_lines()

    def _render_lines(self, hidden: bool = False) -> None:
        """Lay the description out, unless the pane is hidden (one pane at a time in a small
        terminal): then when it is shown (a resize), or when asked (``hidden``)."""
        width = max(10, self.scrollable_content_region.width)
        if self._rendered_for == (width,) or not (self.display or hidden):
            return
        console = self.app.console
        options = console.options.update_width(width)
        lines = console.render_lines(self.content, options, pad=False)
        self._lines = lines
        self._rendered_for = (width,)
        set_virtual_size(self, Size(width, len(lines)))
        height = self.scrollable_content_region.height
        self._drawn.repaint(self, height, self._mark(), self._render_line_at)

    def refresh(self, *regions, **kwargs):
        """Any repaint may show other lines (scrolled, resized, another theme): drop the drawn
        ones (a move repaints its changed lines without this)."""
        self._drawn.clear()
        return super().refresh(*regions, **kwargs)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()

    def _mark(self) -> tuple:
        """What every drawn line depends on besides the description."""
        return (round(self.scroll_y), self.scrollable_content_region.width)

    def render_line(self, y: int) -> Strip:
        return self._drawn.line(y, self._mark(), self._render_line_at)

    def _render_line_at(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = round(self.scroll_y) + y
        base = self.rich_style
        if row >= len(self._lines):
            return Strip.blank(width, base)
        return Strip(self._lines[row]).adjust_cell_length(width, base).apply_style(base)
