"""The README's screenshot is what ``python -m tui.screenshot`` draws today, so it cannot show a
dashboard that no longer exists (it showed ``#1`` on first attempts after they were dropped)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import small_session

from tests.waiting import until
from tui.app import DashboardApp
from tui.screenshot import DEFAULT_OUT, take

pytestmark = pytest.mark.integration


@pytest.mark.usefixtures("busy_machine")  # the screenshot waits for the dashboard to settle
async def test_the_readme_screenshot_is_the_dashboard_as_drawn_now(tmp_path: Path) -> None:
    drawn = await take(tmp_path / "dashboard.svg")
    assert drawn.read_bytes() == DEFAULT_OUT.read_bytes(), (
        "docs/dashboard.svg is out of date: run python -m tui.screenshot"
    )


async def test_the_dashboard_has_settled_once_the_pane_it_focuses_has_the_focus() -> None:
    """What the screenshot waits for: under load it was taken before the retries pane, shown
    and focused after the screen's next refresh, had the focus (a timer drives refreshes)."""
    app = DashboardApp(session=small_session(), watch=False, blink=False)
    async with app.run_test(size=(160, 48)):
        await until(lambda: app.settled, "the first frames")
        app.dashboard.show_pane("retries")
        assert not app.settled, "the pane takes the focus after the next refresh"
        await until(lambda: app.settled, "the dashboard to settle")
        assert app.focused is app.dashboard.pane("retries")
