"""The timeline: one lane per worker, the recent past up to the current tick, jobs as bars.

Each column is ``scale`` ticks; the right edge is the current tick. A bar is an attempt, in its
job's colour with the job id written in it where it fits; its last cell is a red ✗ when the
attempt failed or timed out and an orange ! when its worker was lost. ╳ marks a worker that was
down, · an idle one. Only the visible lanes are drawn, from :class:`~tui.model.lanes.Lanes`, and
a move repaints only the lanes that changed (:mod:`tui.widgets.screen_lines`).
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine.core import Engine
from engine.schedules.clock import Clock
from tui.cells import fit
from tui.messages import RowSelected
from tui.model.lanes import Lanes
from tui.model.navigator import Change
from tui.model.rows import natural_key
from tui.model.timefmt import tick_label, ticks_are_times
from tui.states import DIM, JOB_PALETTE, TICK, job_colour, style_of
from tui.widgets.screen_lines import ScreenLines, set_virtual_size

LABEL = 8
"""The narrowest lane label (with the space after the id); it widens to the longest worker id,
up to ``LABEL_MAX``, and longer ids are cut in the middle (:func:`tui.cells.fit`)."""
LABEL_MAX = 17
SCALES = (1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 1440)
LABEL_STEP = 10
"""Columns from one ruler label to the next, when the labels fit in fewer (a space after each)."""
LABEL_STEP_UNIT = 5
"""Longer labels are spaced by a multiple of this, so that the ruler stays regular."""
_IDLE = Style(color="grey35")
_DOWN = Style(color="red", dim=True)
_ENDS = {
    "FAILED": ("✗", Style(color="white", bgcolor="red", bold=True)),
    "TIMED_OUT": ("✗", Style(color="white", bgcolor="red", bold=True)),
    "LOST": ("!", Style(color="black", bgcolor="dark_orange", bold=True)),
    "TERMINATED": ("✗", Style(color="black", bgcolor="grey62", bold=True)),
}


class TimelineView(ScrollView, can_focus=True, inherit_bindings=False):
    """Workers over time."""

    BINDINGS: ClassVar[list[Binding]] = [
        Binding("[", "zoom(1)", "Zoom out"),
        Binding("]", "zoom(-1)", "Zoom in"),
        Binding("up,k", "move_cursor(-1)", "Up", show=False),
        Binding("down,j", "move_cursor(1)", "Down", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"timeline--cursor"}
    DEFAULT_CSS = """
    TimelineView { overflow-x: hidden; }
    TimelineView > .timeline--cursor { background: $accent 60%; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        self._drawn = ScreenLines()  # before super(): Textual refreshes in __init__
        super().__init__(id=id, classes=classes)
        self.lanes = Lanes()
        self.engine: Engine | None = None
        self.clock: Clock | None = None
        self.scale_index = 0
        self.lane_ids: list[str] = []
        self.label = LABEL
        self._lane_set: set[str] = set()
        self.cursor = 0
        self.border_title = "Timeline"
        self._style_base: Style | None = None
        self._style_map: dict[str, Style] = {}
        self._subtitle = ""

    @property
    def scale(self) -> int:
        """Ticks per column."""
        return SCALES[self.scale_index]

    # ------------------------------------------------------------ the model

    def rebuild(self, engine: Engine, clock: Clock | None) -> None:
        self.engine, self.clock = engine, clock
        self.lanes.rebuild(engine)
        self._after_update()

    def apply(self, change: Change, engine: Engine) -> None:
        self.absorb(change, engine)
        self.show()

    def absorb(self, change: Change, engine: Engine) -> None:
        """Update the lanes without repainting (see VirtualTable.absorb)."""
        self.engine = engine
        self.lanes.apply(change, engine)

    def show(self) -> None:
        self._after_update()

    def _after_update(self) -> None:
        engine = self.engine
        # Compared as sets, not counts: another file (or a reload after a rename) may bring the
        # same number of workers under other ids, and a lane for a gone worker cannot be drawn.
        workers = engine.query.workers() if engine is not None else None
        if workers is not None and workers.keys() != self._lane_set:
            self.lane_ids = sorted(workers, key=natural_key)
            self._lane_set = set(self.lane_ids)
            longest = max(map(len, self.lane_ids), default=0)
            self.label = max(LABEL, min(LABEL_MAX, longest + 1))
        self.cursor = max(0, min(self.cursor, len(self.lane_ids) - 1))
        region = self.scrollable_content_region
        set_virtual_size(self, Size(region.width, len(self.lane_ids) + 1))
        subtitle = f"{self.scale:,} tick{'s' if self.scale > 1 else ''}/cell  [ ]"
        if subtitle != self._subtitle:  # setting it repaints the whole widget
            self._subtitle = self.border_subtitle = subtitle
        self._drawn.repaint(self, region.height, self._mark(), self._render_line_at)

    @property
    def cursor_key(self) -> str | None:
        """The worker of the lane the cursor is on, as a table's ``cursor_key`` is its row's."""
        return self.lane_ids[self.cursor] if self.lane_ids else None

    # --------------------------------------------------------------- actions

    def action_zoom(self, direction: int) -> None:
        self.scale_index = max(0, min(len(SCALES) - 1, self.scale_index + direction))
        self._after_update()

    def action_move_cursor(self, delta: int) -> None:
        if not self.lane_ids:
            return
        self.cursor = max(0, min(len(self.lane_ids) - 1, self.cursor + delta))
        visible = max(1, self.scrollable_content_region.height - 1)
        top = round(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False, immediate=True)
        self.refresh()
        self.post_message(RowSelected(self, "worker", self.lane_ids[self.cursor]))

    def on_focus(self) -> None:
        if self.lane_ids:
            self.post_message(RowSelected(self, "worker", self.lane_ids[self.cursor]))
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_resize(self) -> None:
        self._after_update()

    def refresh(self, *regions, **kwargs):
        """Any repaint may show another state (a zoom, the cursor, the theme): drop the drawn
        lanes (a move repaints its changed lines without this)."""
        self._drawn.clear()
        return super().refresh(*regions, **kwargs)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()

    # -------------------------------------------------------------- drawing

    def _window(self, width: int) -> tuple[int, int]:
        """(first tick shown, number of columns)."""
        columns = max(1, width - self.label - 1)
        now = self.engine.now if self.engine is not None else 0
        scale = self.scale
        # The last column holds now; columns start at multiples of the scale so that bars do
        # not shift as time moves. Early in a run the window starts at 0 and the future is blank.
        first = (now // scale + 1 - columns) * scale
        return max(0, first), columns

    def _mark(self) -> tuple:
        """What every drawn lane depends on besides the run."""
        return (round(self.scroll_y), self.scrollable_content_region.width, self.has_focus)

    def render_line(self, y: int) -> Strip:
        return self._drawn.line(y, self._mark(), self._render_line_at)

    def _render_line_at(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if self.engine is None:
            return Strip.blank(width, base)
        start, columns = self._window(width)
        if y == 0:
            return self._axis(start, columns, width, base)
        row = round(self.scroll_y) + y - 1
        if row >= len(self.lane_ids):
            return Strip.blank(width, base)
        worker_id = self.lane_ids[row]
        label_style = base + style_of(self.engine.query.workers()[worker_id].state)
        if row == self.cursor and self.has_focus:
            label_style += self.get_component_rich_style("timeline--cursor")
        name = fit(worker_id, self.label - 1).plain.ljust(self.label)
        segments = [Segment(name, label_style), Segment(" ", base)]
        segments += self._lane(worker_id, start, columns, base)
        return Strip(segments).adjust_cell_length(width, base)

    def _axis(self, start: int, columns: int, width: int, base: Style) -> Strip:
        """The ruler: ``|tick`` every ten columns, or further apart when the labels are longer
        (a live service's ticks are times: ``|09:45:08``), and ``▼`` over the current tick.
        Only whole labels are drawn: a label cut by the next one or by the
        edge would name another tick. A label that ``▼`` would fall inside is left out (one that
        starts there keeps its number: ``▼40``)."""
        cells = [" "] * columns
        now_column = -1
        if self.engine is not None:
            now_column = (self.engine.now - start) // self.scale
        clock = self.clock
        widest = len(f"|{tick_label(clock, start + max(0, columns - 1) * self.scale)}")
        step = max(LABEL_STEP, -(-(widest + 1) // LABEL_STEP_UNIT) * LABEL_STEP_UNIT)
        for column in range(0, columns, step):
            label = f"|{tick_label(clock, start + column * self.scale)}"
            if column + len(label) > columns or column < now_column < column + len(label):
                continue
            cells[column : column + len(label)] = label
        if 0 <= now_column < columns:
            cells[now_column] = "▼"
        title = "time" if ticks_are_times(clock) else "tick"
        segments = [
            Segment(title.rjust(self.label) + " ", base + DIM),
            Segment("".join(cells), base + TICK),
        ]
        return Strip(segments).adjust_cell_length(width, base)

    def _lane(self, worker_id: str, start: int, columns: int, base: Style) -> list[Segment]:
        """One worker's cells: a character and a style key per column, then runs of equal keys
        as segments (styles are combined once per key, not once per cell)."""
        engine = self.engine
        assert engine is not None
        scale = self.scale
        end = start + columns * scale
        registered = engine.query.workers()[worker_id].registered
        now = engine.now
        chars = [" "] * columns
        # idle dots from the first column at or after its registration up to now
        first_idle = max(0, -((start - registered) // scale))
        last_idle = min(columns - 1, (now - start) // scale)
        if first_idle <= last_idle:
            chars[first_idle : last_idle + 1] = "·" * (last_idle + 1 - first_idle)
        keys: list[str] = ["idle"] * columns
        for outage in self.lanes.down_between(worker_id, start, end):
            first = max(0, (outage.start - start) // scale)
            # A worker still down is drawn down to now, as a running attempt is: not into ticks
            # that have not happened.
            until = now + 1 if outage.end is None else outage.end
            last = (until - 1 - start) // scale
            for c in range(first, min(columns - 1, last) + 1):
                chars[c], keys[c] = "╳", "down"
        for span in self.lanes.overlapping(worker_id, start, end):
            finish = span.end if span.end is not None else now + 1
            first = max(0, (span.start - start) // scale)
            last = min(columns - 1, (max(finish, span.start + 1) - 1 - start) // scale)
            if last < first:
                continue
            label = f" {span.job_id}" if last - first + 1 > len(span.job_id) else ""
            chars[first : last + 1] = label.ljust(last - first + 1)
            keys[first : last + 1] = [job_colour(span.job_id)] * (last - first + 1)
            if span.outcome in _ENDS and span.end is not None and span.end <= end:
                chars[last], keys[last] = _ENDS[span.outcome][0], span.outcome
        return _merge(chars, keys, self._styles(base))

    def _styles(self, base: Style) -> dict[str, Style]:
        """Style keys to styles on ``base`` (cached until the base style changes)."""
        if self._style_base != base:
            self._style_base = base
            styles = {"idle": base + _IDLE, "down": base + _DOWN}
            styles |= {name: base + marker for name, (_, marker) in _ENDS.items()}
            styles |= {
                colour: base + Style(color="white", bgcolor=colour) for colour in JOB_PALETTE
            }
            self._style_map = styles
        return self._style_map


def _merge(chars: list[str], keys: list[str], styles: dict[str, Style]) -> list[Segment]:
    """Runs of cells with the same style key as one segment each."""
    segments: list[Segment] = []
    run_start = 0
    for c in range(1, len(keys) + 1):
        if c == len(keys) or keys[c] != keys[run_start]:
            segments.append(Segment("".join(chars[run_start:c]), styles[keys[run_start]]))
            run_start = c
    return segments
