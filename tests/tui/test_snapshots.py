"""What the dashboard looks like, pinned: SVG snapshots at fixed sizes of the fixed test run.

Update them after an intended change with ``pytest tests/tui/test_snapshots.py --snapshot-update``
and look at the SVGs before committing. Cursor blink is off (``blink=False``), nothing on screen
reads the real clock, and each snapshot is taken once the dashboard has settled (its first frames
drawn, a pane asked to take the focus has it, the footer's keys filled in), so the same tick
always draws the same screen, on a busy machine too (``busy_machine``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import BROKEN_YAML, settled, small_session

from tui.app import DashboardApp

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("busy_machine")]


def dashboard() -> DashboardApp:
    return DashboardApp(session=small_session(), watch=False, blink=False)


def pressing(*keys: str):
    """Before the snapshot: the keys, then until the dashboard has settled."""

    async def run_before(pilot) -> None:
        await pilot.press(*keys)
        await settled(pilot)

    return run_before


class TestDashboard:
    def test_main_screen_wide(self, snap_compare) -> None:
        async def to_tick_23(pilot) -> None:
            pilot.app.dashboard.seek(23)
            await settled(pilot)

        assert snap_compare(dashboard(), terminal_size=(140, 40), run_before=to_tick_23)

    def test_main_screen_80x24(self, snap_compare) -> None:
        run_before = pressing("shift+right")
        assert snap_compare(dashboard(), terminal_size=(80, 24), run_before=run_before)

    def test_help_screen(self, snap_compare) -> None:
        run_before = pressing("question_mark")
        assert snap_compare(dashboard(), terminal_size=(110, 48), run_before=run_before)

    def test_detail_pane(self, snap_compare) -> None:
        run_before = pressing("end", "slash", *"flaky", "enter", "shift+tab")
        assert snap_compare(dashboard(), terminal_size=(80, 24), run_before=run_before)


class TestErrors:
    def test_error_view(self, snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
        monkeypatch.chdir(tmp_path)
        Path("broken.yaml").write_text(BROKEN_YAML, encoding="utf-8")
        app = DashboardApp("broken.yaml", watch=False, blink=False)
        assert snap_compare(app, terminal_size=(100, 24), run_before=settled)
