"""``:sweep`` in the dashboard: the open file played many ways in the background, while the
dashboard keeps stepping; ``:sweep`` shows it again, and a notice says when it is done."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from tests.waiting import until
from tui.app import DashboardApp
from tui.model.session import load_session
from tui.screens.sweep import SweepScreen

pytestmark = pytest.mark.integration

QUEUE = """\
scenario: A queue of twelve
policy: {order: fifo}
workers: [w1, w2]
generate:
  - count: 12
    id: "job-{n:02}"
    job: {at: 0, duration: 10}
"""


async def _command(pilot, text: str) -> None:
    await pilot.press("colon", *text, "enter")
    await pilot.pause()


async def _until_finished(app: DashboardApp) -> None:
    run = app.dashboard.sweep_run
    assert run is not None
    await until(lambda: run.snapshot().finished, "the sweep to finish")
    run.join()


async def test_a_sweep_plays_in_the_background_while_the_dashboard_steps(tmp_path: Path) -> None:
    path = tmp_path / "queue.yaml"
    path.write_text(QUEUE, encoding="utf-8")
    app = DashboardApp(session=load_session(path), watch=False, blink=False)
    async with app.run_test(size=(150, 50)) as pilot:
        await _command(pilot, "sweep workers=1..6 metric=max_wait target=max_wait<=20")
        assert isinstance(app.screen, SweepScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SweepScreen)
        before = app.dashboard.navigator.history.tick
        await pilot.press("right")
        await pilot.pause()
        assert app.dashboard.navigator.history.tick > before
        await _until_finished(app)
        await pilot.pause()
        state = app.dashboard.sweep_run.snapshot()
        assert [row.estimates[0].mean for row in state.rows] == [110, 50, 30, 20, 20, 10]
        assert state.answer is not None and state.answer.variant.label() == "workers=4"
        await _command(pilot, "sweep")
        assert isinstance(app.screen, SweepScreen)
        console = Console(width=140, record=True, file=io.StringIO())
        console.print(app.screen.query_one("#sweep-body", Static).content)
        body = console.export_text()
        assert "played: 6 of 6 runs" in body
        assert "cheapest variant meeting max_wait <= 20: workers=4 (max_wait = 20)" in body


async def test_a_sweep_needs_a_scenario_file_and_valid_words(tmp_path: Path) -> None:
    path = tmp_path / "queue.yaml"
    path.write_text(QUEUE, encoding="utf-8")
    app = DashboardApp(session=load_session(path), watch=False, blink=False)
    async with app.run_test(size=(150, 50)) as pilot:
        runner = app.dashboard.runner
        assert runner.run("sweep") == (
            False,
            "sweep: vary something, e.g. :sweep workers=2..6 policy.order=fifo,priority",
        )
        ok, message = runner.run("sweep polcy.order=fifo")
        assert not ok and "closest valid path: policy.order" in message
        assert runner.run("sweep stop") == (False, "sweep: no sweep is playing")
        await pilot.pause()
