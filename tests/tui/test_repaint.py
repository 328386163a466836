"""A step repaints what changed: no pane whose lines stayed the same is drawn again, and the
screen is not laid out again (see tui/widgets/screen_lines.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from tui_helpers import settled, small_session

from tui.app import DashboardApp
from tui.screens.dashboard import DashboardScreen
from tui.widgets.detail import DetailPane
from tui.widgets.timeline import TimelineView
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration


def on_screen(screen: DashboardScreen) -> dict[str, list]:
    """Each pane's lines as the screen shows them (borders, titles and styles included)."""
    strips = screen._compositor.render_strips()
    shown = {}
    for pane in screen.query(".pane"):
        if pane.display:
            region = pane.region
            shown[pane.id] = [
                list(strips[y].crop(region.x, region.right)) for y in region.line_range
            ]
    return shown


@pytest.mark.usefixtures("busy_machine")
@pytest.mark.parametrize("key", ["right", "left", "shift+right"])
async def test_a_step_draws_only_the_panes_that_changed(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: Counter[str] = Counter()
    for widget in (VirtualTable, TimelineView, DetailPane):
        render_line = widget.render_line

        def counted(self, y: int, render_line=render_line):
            drawn[self.id] += 1
            return render_line(self, y)

        monkeypatch.setattr(widget, "render_line", counted)
    layouts = []
    refresh_layout = DashboardScreen._refresh_layout
    app = DashboardApp(session=small_session(), watch=False, blink=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.dashboard
        screen.seek(30)
        await settled(pilot)  # the first frames too: the footer fills in its keys late
        before = on_screen(screen)
        drawn.clear()

        def laid_out(self, *args, **kwargs):
            layouts.append(args)
            return refresh_layout(self, *args, **kwargs)

        monkeypatch.setattr(DashboardScreen, "_refresh_layout", laid_out)
        await pilot.press(key)
        await settled(pilot)
        after = on_screen(screen)
    assert layouts == [], "a step lays nothing out"
    changed = {pane for pane in after if after[pane] != before[pane]}
    unchanged = after.keys() - changed
    assert changed and unchanged, "the step changed some panes and left others alone"
    for pane in unchanged:
        assert drawn[pane] == 0, f"{pane} did not change but was drawn again"
