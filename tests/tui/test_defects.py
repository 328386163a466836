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


OPEN_ENDED_YAML = """\
scenario: open ended
clock: {epoch: "2026-03-09T00:00:00", timezone: UTC, tick: 60}
workers: [w1]
jobs:
  - {id: etl, every: 10, duration: 3}
"""


async def test_an_open_ended_run_shows_a_horizon_and_plays_on(tmp_path: Path) -> None:
    path = tmp_path / "open.yaml"
    path.write_text(OPEN_ENDED_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        header = app.dashboard.query_one("#status")
        assert "tick 0 / 1,440+" in header.summary  # a day of one-minute ticks
        await pilot.press("right", "right")
        assert app.dashboard.navigator.tick == 10
        await pilot.press("g", *"3000", "enter")
        await pilot.pause()
        assert app.dashboard.navigator.tick == 3000
        assert "tick 3,000 / 4,320+" in header.summary


async def test_end_on_an_open_ended_run_goes_to_its_horizon_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "open.yaml"
    path.write_text(OPEN_ENDED_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        await pilot.pause()
        assert app.dashboard.navigator.tick == 1440
        assert any("horizon, tick 1,440" in str(n.message) for n in app._notifications)
        await pilot.press("end")
        await pilot.pause()
        assert app.dashboard.navigator.tick == 2880


async def test_play_goes_on_in_an_open_ended_run(tmp_path: Path) -> None:
    path = tmp_path / "open.yaml"
    path.write_text(OPEN_ENDED_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE):
        screen = app.dashboard
        screen.playing = True
        for _ in range(5):
            screen.play_frame()
        assert screen.playing and screen.navigator.tick == 23  # events at 0, 3, 10, 13, 20, 23


async def test_the_empty_session_plays_a_job_scheduled_after_an_invalid_file(
    broken_file: Path,
) -> None:
    app = DashboardApp(broken_file, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        await pilot.press("colon", *"register w1", "enter")
        await pilot.press("colon", *"schedule x every=5 duration=2", "enter")
        await pilot.press("right", "right")
        assert app.dashboard.session.kind == "empty"
        assert app.dashboard.navigator.tick > 0
        assert "tick 0 /" not in app.dashboard.query_one("#status").summary
