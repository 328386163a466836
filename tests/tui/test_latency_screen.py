"""``s``: the latency tables and plots at the current tick; esc closes."""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.analyses.latency.attribution import latency_report
from tui.app import DashboardApp
from tui.model.session import load_session
from tui.screens.latency import LatencyScreen
from tui.widgets.latency import LatencyPlot

pytestmark = pytest.mark.integration

DST = Path(__file__).resolve().parents[2] / "scenarios" / "nightly-etl-dst.yaml"


def _app() -> DashboardApp:
    return DashboardApp(session=load_session(DST), watch=False, blink=False)


async def test_s_shows_the_report_of_the_current_tick_and_esc_closes_it() -> None:
    app = _app()
    async with app.run_test(size=(150, 50)) as pilot:
        app.dashboard.seek(1700)
        await pilot.press("s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LatencyScreen)
        assert screen.report == latency_report(app.dashboard.session.history.engine)
        assert screen.report.now == 1700
        plots = list(screen.query(LatencyPlot))
        assert [plot.measure for plot in plots] == ["lag", "wait", "backoff"]
        drawn = plots[1].plt.build()
        assert "queue wait: runs by ticks waited" in drawn
        assert "priority high" in drawn and "priority medium" in drawn
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LatencyScreen)
