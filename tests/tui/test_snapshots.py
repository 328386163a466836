"""What the dashboard looks like, pinned: SVG snapshots at fixed sizes of the fixed test run.

Update them after an intended change with ``pytest tests/tui/test_snapshots.py --snapshot-update``
and look at the SVGs before committing. Cursor blink is off (``blink=False``) and nothing on
screen reads the real clock, so the same tick always draws the same screen.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import BROKEN_YAML, small_session

from tui.app import DashboardApp


def dashboard() -> DashboardApp:
    return DashboardApp(session=small_session(), watch=False, blink=False)


class TestDashboard:
    def test_main_screen_wide(self, snap_compare) -> None:
        async def to_tick_23(pilot) -> None:
            pilot.app.dashboard.seek(23)
            await pilot.pause()

        assert snap_compare(dashboard(), terminal_size=(140, 40), run_before=to_tick_23)

    def test_main_screen_80x24(self, snap_compare) -> None:
        assert snap_compare(dashboard(), press=["shift+right"], terminal_size=(80, 24))

    def test_help_screen(self, snap_compare) -> None:
        assert snap_compare(dashboard(), press=["question_mark"], terminal_size=(110, 48))

    def test_detail_pane(self, snap_compare) -> None:
        keys = ["end", "slash", *"flaky", "enter", "shift+tab"]
        assert snap_compare(dashboard(), press=keys, terminal_size=(80, 24))


class TestErrors:
    def test_error_view(self, snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
        monkeypatch.chdir(tmp_path)
        Path("broken.yaml").write_text(BROKEN_YAML, encoding="utf-8")
        app = DashboardApp("broken.yaml", watch=False, blink=False)
        assert snap_compare(app, terminal_size=(100, 24))
