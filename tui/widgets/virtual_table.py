"""A table that draws only the rows on screen: the base of every table in the dashboard.

Textual's DataTable measures every cell when rows are added, which takes seconds for tens of
thousands of rows. This widget is a Line API :class:`ScrollView`: its model is an index of keys
(see :mod:`tui.model.indexes`) and ``render_line`` formats the few keys that are visible, from
the engine's current state. A step updates the index from the step's events and repaints the lines
that changed (:mod:`tui.widgets.screen_lines`); nothing is rebuilt. The header row stays put while
the rows scroll.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine.core import Engine
from engine.schedules.clock import Clock
from tui.cells import fit, fit_run
from tui.messages import RowSelected
from tui.model.indexes import text_matcher
from tui.model.navigator import Change
from tui.model.timefmt import ticks_are_times
from tui.widgets.screen_lines import ScreenLines, set_virtual_size


class Column(NamedTuple):
    label: str
    width: int
    """The least width it is shown at; it grows to its content where there is room."""
    right: bool = False
    """Right-aligned (numbers)."""
    flex: bool = False
    """Takes the width left over once every column has its content's width."""
    clock: bool = False
    """Shows wall-clock time: hidden when the run has no clock."""
    prose: bool = False
    """Free text, cut at its end; other cells are ids, cut in the middle (:func:`tui.cells.fit`)."""
    run: bool = False
    """Run names (``job@scheduled #attempt``), cut in the job id (:func:`tui.cells.fit_run`)."""
    tick: bool = False
    """A tick's number, beside a column of its time: left out where ticks are times (a live
    service's, :func:`~tui.model.timefmt.ticks_are_times`), which would show it twice."""
    optional: bool = False
    """Left out, first, where the columns cannot all have their content's width: a cell cut to a
    few characters helps less than the room it gives the others."""


class VirtualTable(ScrollView, can_focus=True, inherit_bindings=False):
    """A keyboard-driven table over a row model with ``index``, ``rebuild`` and ``apply``."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--cursor",
        "virtual-table--cursor-blurred",
        "virtual-table--empty",
    }
    DEFAULT_CSS = """
    VirtualTable { overflow-x: hidden; }
    VirtualTable > .virtual-table--header { text-style: bold; }
    VirtualTable > .virtual-table--cursor { background: $accent 60%; }
    VirtualTable > .virtual-table--cursor-blurred { background: $surface-lighten-2; }
    VirtualTable > .virtual-table--empty { color: $text-muted; text-style: italic; }
    """
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("up,k", "move_cursor(-1)", "Up", show=False),
        Binding("down,j", "move_cursor(1)", "Down", show=False),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False),
        Binding("pagedown,ctrl+f", "page(1)", "Page down", show=False),
        Binding("f", "toggle_follow", "Follow"),
    ]

    COLUMNS: ClassVar[tuple[Column, ...]] = ()
    KIND: ClassVar[str] = ""
    """What the keys are, for the detail pane: occurrence, worker, notification, event."""
    TITLE: ClassVar[str] = ""
    EMPTY: ClassVar[str] = "nothing here yet"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        self._drawn = ScreenLines()
        self._styles: dict[str | None, Style] = {}
        super().__init__(id=id, classes=classes)
        self.rows = self.make_rows()
        self.engine: Engine | None = None
        self.clock: Clock | None = None
        self.cursor_key: Any = None
        self._cursor_row = 0
        self.follow = True
        """Keep the cursor on the last row as rows arrive, like ``tail -f``."""
        self.filter_text = ""
        self._widths: list[int] = []
        self._shown: list[int] = []
        """Indices of the columns that fit, in order."""
        self._laid_out_for = -1
        self._titles: tuple[str, str] | None = None
        self._content = [len(column.label) for column in self.COLUMNS]
        """The widest cell drawn in each column since the last rebuild (grows only, so that
        columns do not jump as rows scroll by)."""

    # ------------------------------------------------------------ the model

    def make_rows(self) -> Any:
        """The row model: ``index``, ``rebuild(engine)`` and ``apply(change, engine)``."""
        raise NotImplementedError

    def row_cells(self, key: Any) -> list[Text]:
        """The cells of the row for ``key``, from ``self.engine`` at the current tick."""
        raise NotImplementedError

    def row_text(self, key: Any) -> str:
        """The row as plain text, for the filter."""
        return " ".join(cell.plain for cell in self.row_cells(key))

    @property
    def index(self):
        return self.rows.index

    def rebuild(self, engine: Engine, clock: Clock | None) -> None:
        """A new engine (a file opened or reloaded): recompute the rows."""
        self.engine, self.clock = engine, clock
        self._laid_out_for = -1
        self._content = [len(column.label) for column in self.COLUMNS]
        self.rows.rebuild(engine)
        self._refilter()
        self._after_update()

    def apply(self, change: Change, engine: Engine) -> None:
        """Update from a move's events; repaint the visible rows."""
        self.absorb(change, engine)
        self.show()

    def absorb(self, change: Change, engine: Engine) -> None:
        """Update the rows from a move's events, without repainting (a jump's slices): the
        rows always describe ``engine``, whatever is drawn."""
        self.engine = engine
        self.rows.apply(change, engine)

    def show(self) -> None:
        """Repaint from the rows: the cursor, the scroll range, the titles."""
        self._after_update()

    def set_filter(self, text: str) -> None:
        self.filter_text = text.strip()
        self._refilter()
        self._after_update()

    def _refilter(self) -> None:
        self.index.set_filter(text_matcher(self.filter_text, self.row_text))

    # --------------------------------------------------------------- cursor

    def _after_update(self) -> None:
        index = self.index
        count = len(index)
        previous = self.cursor_key
        if count == 0:
            self.cursor_key, self._cursor_row = None, 0
        elif self.follow:
            self._cursor_row = count - 1
            self.cursor_key = index.key_at(count - 1)
        else:
            position = index.position(self.cursor_key) if self.cursor_key is not None else None
            if position is None:
                position = min(self._cursor_row, count - 1)
            self._cursor_row = position
            self.cursor_key = index.key_at(position)
        set_virtual_size(self, Size(self.scrollable_content_region.width, count + 1))
        self._scroll_to_cursor()
        self._update_titles()
        region = self.scrollable_content_region
        self._drawn.repaint(self, region.height, self._mark(), self._render_line_at)
        if self.cursor_key != previous:
            self.post_message(RowSelected(self, self.KIND, self.cursor_key))

    def _update_titles(self) -> None:
        index = self.index
        shown, total = len(index), index.total
        title = f"{self.TITLE} [dim]{total:,}[/]"
        if self.follow:
            title += " [dim]⇣[/]"
        subtitle = f"/{self.filter_text}  {shown:,} of {total:,}" if self.filter_text else ""
        # set only when they change: setting either repaints the whole widget
        if (title, subtitle) != self._titles:
            self._titles = (title, subtitle)
            self.border_title = title
            self.border_subtitle = Content(subtitle)  # the typed filter is text, not markup

    def _scroll_to_cursor(self) -> None:
        visible = max(1, self.scrollable_content_region.height - 1)
        top = round(self.scroll_y)
        row = self._cursor_row
        if row < top:
            top = row
        elif row >= top + visible:
            top = row - visible + 1
        if top != round(self.scroll_y):
            self.scroll_to(y=top, animate=False, force=True, immediate=True)

    def set_cursor(self, row: int) -> None:
        count = len(self.index)
        if count == 0:
            return
        row = max(0, min(row, count - 1))
        self.follow = row == count - 1 and self.follow
        self._cursor_row = row
        previous, self.cursor_key = self.cursor_key, self.index.key_at(row)
        self._scroll_to_cursor()
        self._update_titles()
        self.refresh()
        if self.cursor_key != previous:
            self.post_message(RowSelected(self, self.KIND, self.cursor_key))

    def action_move_cursor(self, delta: int) -> None:
        self.follow = False
        self.set_cursor(self._cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self.follow = False
        page = max(1, self.scrollable_content_region.height - 2)
        self.set_cursor(self._cursor_row + direction * page)

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        self._after_update()

    def on_focus(self) -> None:
        self.refresh()
        self.post_message(RowSelected(self, self.KIND, self.cursor_key))

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self.follow = False
            self.set_cursor(round(self.scroll_y) + event.y - 1)

    def on_resize(self) -> None:
        self._after_update()

    # -------------------------------------------------------------- drawing

    def _layout(self, width: int) -> list[int]:
        """Column widths that fit ``width``, sized to their content.

        Optional columns are left out (from the right) while the columns cannot all have their
        content's width; then every column that fits at its least width is shown (the rest are
        dropped from the right); the room left is shared out evenly toward each column's content
        width, ids and words first, then prose (a long detail never starves an id), and what
        remains goes to the flexible columns."""
        if width == self._laid_out_for:
            return self._widths
        columns = self.COLUMNS
        candidates = [
            number
            for number, column in enumerate(columns)
            if not (column.clock and self.clock is None)
            and not (column.tick and ticks_are_times(self.clock))
        ]
        optional = [number for number in candidates if columns[number].optional]
        while optional and self._wanted(candidates) > width:
            candidates.remove(optional.pop())
        shown: list[int] = []
        widths: list[int] = []
        used = 0
        for number in candidates:
            need = columns[number].width + (1 if widths else 0)
            if used + need > width:
                break
            shown.append(number)
            widths.append(columns[number].width)
            used += need
        spare = width - used
        for prose in (False, True):
            wants = [
                max(0, self._content[number] - widths[i]) * (self.COLUMNS[number].prose == prose)
                for i, number in enumerate(shown)
            ]
            while spare > 0 and any(wants):
                wanting = [i for i, want in enumerate(wants) if want]
                share = max(1, spare // len(wanting))
                for i in wanting:
                    grant = min(share, wants[i], spare)
                    widths[i] += grant
                    wants[i] -= grant
                    spare -= grant
        flexible = [i for i, number in enumerate(shown) if self.COLUMNS[number].flex]
        for position, i in enumerate(flexible):
            share = spare // (len(flexible) - position)
            widths[i] += share
            spare -= share
        self._shown, self._widths, self._laid_out_for = shown, widths, width
        return widths

    def _wanted(self, numbers: list[int]) -> int:
        """The width the columns ``numbers`` take at their content's width, with the gaps."""
        content = self._content
        return sum(max(self.COLUMNS[n].width, content[n]) for n in numbers) + len(numbers) - 1

    def _measure(self, cells: list[Text]) -> None:
        """Note the widths of a row's cells; a cell wider than any before in its column lays the
        table out again (once drawing is done: it cannot change under the lines being drawn)."""
        content = self._content
        grew = False
        for number, cell in enumerate(cells[: len(content)]):
            if cell.cell_len > content[number]:
                content[number] = cell.cell_len
                grew = True
        if grew and self._laid_out_for != -1:
            self._laid_out_for = -1
            self.call_later(self.refresh)

    def _strip(self, cells: list[Text], width: int, style: Style) -> Strip:
        """One row as segments, cell by cell (plain cells skip Rich's text layout: this runs
        for every visible row on every step)."""
        widths = self._layout(width)
        console = self.app.console
        segments: list[Segment] = []
        used = 0
        for position, (number, cell_width) in enumerate(zip(self._shown, widths, strict=True)):
            if position:
                segments.append(_SPACE)
            cell = cells[number] if number < len(cells) else _EMPTY
            length = cell.cell_len
            if length > cell_width:
                column = self.COLUMNS[number]
                if column.run:
                    cell = fit_run(cell, cell_width)
                else:
                    cell = fit(cell, cell_width, middle=not column.prose)
                length = cell.cell_len
            pad = Segment(" " * (cell_width - length)) if length < cell_width else None
            if pad is not None and self.COLUMNS[number].right:
                segments.append(pad)
            if cell.spans:
                segments.extend(segment for segment in cell.render(console) if segment.text)
            elif cell.plain:
                segments.append(Segment(cell.plain, _style(console, cell.style)))
            if pad is not None and not self.COLUMNS[number].right:
                segments.append(pad)
            used += cell_width + (1 if position else 0)
        if used < width:
            segments.append(Segment(" " * (width - used)))
            used = width
        # one Strip, styled as built: each Strip Textual makes carries seven caches of its own
        return Strip(Segment.apply_style(segments, style), used)

    def refresh(self, *regions, **kwargs):
        """Any repaint may show other rows or another state (or focus, or theme): drop the
        drawn rows and the styles (a move repaints its changed lines without this)."""
        self._drawn.clear()
        self._styles = {}
        return super().refresh(*regions, **kwargs)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()
        self._styles = {}

    def _painted(self, component: str | None = None) -> Style:
        """The widget's style, plus a component's, worked out once per repaint: ``rich_style``
        walks every ancestor, and each visible row needs it."""
        style = self._styles.get(component)
        if style is None:
            style = self.rich_style
            if component is not None:
                style += self.get_component_rich_style(component)
            self._styles[component] = style
        return style

    def _mark(self) -> tuple:
        """What every drawn line depends on besides its row."""
        return (round(self.scroll_y), self.scrollable_content_region.width, self.has_focus)

    def render_line(self, y: int) -> Strip:
        return self._drawn.line(y, self._mark(), self._render_line_at)

    def _render_line_at(self, y: int) -> Strip:
        row = round(self.scroll_y) + y - 1 if y else -1
        return self._render_row(y, row, self.scrollable_content_region.width)

    def _render_row(self, y: int, row: int, width: int) -> Strip:
        if y == 0:
            cells = [Text(column.label) for column in self.COLUMNS]
            return self._strip(cells, width, self._painted("virtual-table--header"))
        index = self.index
        if row >= len(index) or self.engine is None:
            if y == 1 and len(index) == 0:
                message = "no rows match the filter" if self.filter_text else self.EMPTY
                return _message(message, width, self._painted("virtual-table--empty"))
            return Strip.blank(width, self._painted())
        key = index.key_at(row)
        style = self._painted()
        if row == self._cursor_row:
            style = self._painted(
                "virtual-table--cursor" if self.has_focus else "virtual-table--cursor-blurred"
            )
        cells = self.row_cells(key)
        self._measure(cells)
        return self._strip(cells, width, style)


_SPACE = Segment(" ")
_EMPTY = Text()
_STYLES: dict[str, Style] = {}


def _style(console, style: str | Style) -> Style | None:
    """A cell's style as a Rich Style (parsed once per distinct string)."""
    if isinstance(style, Style):
        return style
    if not style:
        return None
    parsed = _STYLES.get(style)
    if parsed is None:
        parsed = _STYLES[style] = console.get_style(style)
    return parsed


def _message(message: str, width: int, style: Style) -> Strip:
    text = f" {message}"[:width]
    return Strip([Segment(text, style)]).extend_cell_length(width, style)
