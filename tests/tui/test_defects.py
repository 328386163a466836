"""The defects a new user found (issue 17, deliverable 4): each pinned by a Pilot test."""

from __future__ import annotations

from pathlib import Path

from tui.app import DashboardApp
from tui.widgets.timeline import TimelineView

SIZE = (160, 48)
SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


async def test_opening_a_scenario_with_other_worker_ids_redraws_the_timeline() -> None:
    app = DashboardApp(SCENARIOS / "nightly-etl-dst.yaml", watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right")
        app.open_path(SCENARIOS / "notification-outage.yaml")
        await pilot.press("right")
        await pilot.pause()
        timeline = app.dashboard.query_one(TimelineView)
        assert timeline.lane_ids == sorted(app.dashboard.navigator.engine.workers)
        timeline.render_line(1)


WORKERS_YAML = """\
scenario: renamed
workers: [{names}]
jobs:
  - {{id: etl, every: 10, duration: 3}}
clock: {{until: 30}}
"""


async def test_a_reload_after_renaming_workers_redraws_the_timeline(tmp_path: Path) -> None:
    path = tmp_path / "renamed.yaml"
    path.write_text(WORKERS_YAML.format(names="a, b"), encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right")
        path.write_text(WORKERS_YAML.format(names="c, d"), encoding="utf-8")
        await pilot.press("r")
        await pilot.pause()
        timeline = app.dashboard.query_one(TimelineView)
        assert timeline.lane_ids == ["c", "d"]
        timeline.render_line(1)
