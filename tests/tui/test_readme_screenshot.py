"""The README's screenshot is what ``python -m tui.screenshot`` draws today, so it cannot show a
dashboard that no longer exists (it showed ``#1`` on first attempts after they were dropped)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.screenshot import DEFAULT_OUT, take


@pytest.mark.usefixtures("busy_machine")  # the screenshot waits for the dashboard to settle
async def test_the_readme_screenshot_is_the_dashboard_as_drawn_now(tmp_path: Path) -> None:
    drawn = await take(tmp_path / "dashboard.svg")
    assert drawn.read_bytes() == DEFAULT_OUT.read_bytes(), (
        "docs/dashboard.svg is out of date: run python -m tui.screenshot"
    )
