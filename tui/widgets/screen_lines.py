"""What a Line API widget has on screen, line by line, so that a repaint sends Textual only the
lines that changed.

``Widget.refresh()`` makes Textual draw every line of a widget again: its border, its styles,
the compositor's cuts between panes. That costs more per line than the dashboard's own drawing,
and a step changes few lines of most panes (the workers' busy column, the timeline's axis) and
none of others (retries, notices). So each pane keeps the strips it drew, draws its visible lines
again after a move, and marks as dirty only those that differ. A change of anything that every
line depends on (focus, width, theme, scrolling) still goes through ``refresh()``, which drops
them all.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget


class ScreenLines:
    """The strips drawn at each line of a widget's content, valid for one ``mark`` (what every
    line depends on besides its own content, such as the width and the focus)."""

    def __init__(self) -> None:
        self._strips: dict[int, Strip] = {}
        self._mark: Hashable = None

    def clear(self) -> None:
        """Forget every line: the next repaint draws them all."""
        self._strips = {}

    def line(self, y: int, mark: Hashable, draw: Callable[[int], Strip]) -> Strip:
        """Line ``y`` as drawn, drawing it first if it is not (Textual asks for it)."""
        if mark != self._mark:
            self._strips, self._mark = {}, mark
        strip = self._strips.get(y)
        if strip is None:
            strip = self._strips[y] = draw(y)
        return strip

    def repaint(
        self, widget: Widget, height: int, mark: Hashable, draw: Callable[[int], Strip]
    ) -> None:
        """Draw the ``height`` visible lines and repaint those that changed; the whole widget
        when nothing is drawn yet, the mark changed or the widget is not shown."""
        if not self._strips or mark != self._mark or not widget.display:
            widget.refresh()
            return
        strips = self._strips
        width = widget.size.width
        changed = []
        for y in range(height):
            strip = draw(y)
            if strip != strips.get(y):
                strips[y] = strip
                changed.append(Region(0, y, width, 1))
        if changed:
            # Widget.refresh, not widget.refresh: the widgets' override drops every line drawn.
            Widget.refresh(widget, *changed)


def set_virtual_size(widget: Widget, size: Size) -> None:
    """Set a scrolling widget's virtual size without laying out the screen.

    ``virtual_size`` is a reactive with ``layout=True``: setting it lays out every widget on the
    screen and repaints every scrollbar, on each step that adds a row. Only this widget's
    scrollbars depend on it, so they alone are updated, as Textual does for a size that changes
    while scrolling (``Widget._size_updated(layout=False)``); a scrollbar that appears or goes
    still lays the screen out (it changes the content's width)."""
    if size != widget.virtual_size:
        widget.set_reactive(Widget.virtual_size, size)
        widget._scroll_update(size)
