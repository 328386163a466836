"""Layout defects found by an audit at 160x48 and 80x24: each pinned by what the screen shows."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from tui_helpers import pane_text, screen_lines, until_landed

from cronlapse.analyses.latency.attribution import MEASURES, latency_report
from tui.app import DashboardApp
from tui.cells import ELLIPSIS, fit, fit_run, run_name
from tui.model.session import load_session
from tui.screens.compare import CompareScreen
from tui.screens.latency import LatencyScreen
from tui.screens.prompt import PromptScreen
from tui.widgets.latency_tables import LatencyTables
from tui.widgets.timeline import TimelineView

pytestmark = pytest.mark.integration

WIDE = (160, 48)
SMALL = (80, 24)
SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def rendered(renderable, width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def _app(name: str) -> DashboardApp:
    return DashboardApp(session=load_session(SCENARIOS / name), watch=False, blink=False)


# 1. the latency screen


async def test_the_latency_screen_at_80x24_shows_whole_numbers() -> None:
    app = _app("nightly-etl-dst.yaml")
    async with app.run_test(size=SMALL) as pilot:
        app.dashboard.seek(1700)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, LatencyScreen)
        box = app.screen.query_one("#latency-box")
        region = box.scrollable_content_region
        lines = [line[region.x : region.right] for line in screen_lines(app)]
        shown = "\n".join(lines[region.y : region.bottom])
        assert ELLIPSIS not in shown, shown
        overall = app.screen.report.overall
        all_row = next(line for line in shown.splitlines() if line.split()[:1] == ["all"])
        figures = [f"{overall.figure(m, s):,}" for m in MEASURES for s in ("p95", "max")]
        assert all_row.split() == ["all", f"{overall.due:,}", *figures], all_row
        assert "p50 left out" in shown


def test_the_latency_tables_leave_statistics_out_where_they_do_not_fit() -> None:
    session = load_session(SCENARIOS / "nightly-etl-dst.yaml")
    session.history.seek(1700)
    report = latency_report(session.history.engine)
    for width in (60, 72, 100, 134):
        text = rendered(LatencyTables(report), width)
        assert ELLIPSIS not in text, (width, text)
        assert max(len(line.rstrip()) for line in text.splitlines()) <= width
    wide = rendered(LatencyTables(report), 134)
    assert "p50" in wide and "left out" not in wide
    narrow = rendered(LatencyTables(report), 60)
    assert "p95" in narrow and "left out" in narrow


# 2. notifications, 4. the cancelled pane's cause


async def test_the_notification_columns_fit_at_160x48() -> None:
    app = _app("notification-outage.yaml")
    async with app.run_test(size=WIDE) as pilot:
        app.dashboard.seek(40)
        await pilot.pause()
        await pilot.pause()
        header, *rows = pane_text(app, "notifications")[:4]
        assert header.split() == ["Run", "Event", "Target", "State"], header
        shown = [row.split() for row in rows]
        assert [row[:-2] for row in shown] == [
            ["backup@5", "failed"],
            ["backup@5", "failed"],
            ["backup@5", "#2", "succeeded"],
        ], rows
        assert [row[-1] for row in shown] == ["DELIVERED", "DEAD", "DELIVERED"], rows
        targets = [row[-2] for row in shown]
        assert targets[1:] == ["#ops", "#ops"] and targets[0].startswith("onc"), targets


async def test_the_cancelled_pane_shows_the_cause_at_160x48(app: DashboardApp) -> None:
    async with app.run_test(size=WIDE) as pilot:
        app.dashboard.seek(25)
        await pilot.pause()
        await pilot.pause()
        header, *rows = pane_text(app, "cancellations")[:3]
        assert header.split()[-1] == "Cause", header
        assert "CANCELLED" in rows[1] and "⇐ doomed" in rows[1], rows


# 3. workers


BATCH_YAML = """\
scenario: batches
workers: [w1, w2]
jobs:
  - {id: batch-287, at: 6000, duration: 10}
  - {id: batch-297, at: 6000, duration: 10}
clock: {until: 6100}
"""


async def test_workers_show_runs_that_differ_in_their_job_id_apart(tmp_path: Path) -> None:
    path = tmp_path / "batches.yaml"
    path.write_text(BATCH_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=WIDE) as pilot:
        app.dashboard.seek(6001)  # far ahead: a jump, in the background
        await until_landed(pilot)
        running = [line.split()[2] for line in pane_text(app, "workers")[1:3]]
        assert sorted(running) == ["batch-287@6000", "batch-297@6000"], running


def test_a_run_name_shows_its_attempt_from_the_second_on() -> None:
    assert run_name("etl", 60, 1).plain == "etl@60"
    assert run_name("etl", 60, 2).plain == "etl@60 #2"


def test_a_run_name_is_cut_in_its_job_id_so_the_tick_and_attempt_stay() -> None:
    names = [run_name(job, 60, 2) for job in ("batch-287", "batch-297")]
    cut = [fit_run(name, 10).plain for name in names]
    assert cut == ["b…87@60 #2", "b…97@60 #2"]
    assert fit_run(Text("w-01"), 3).plain == fit("w-01", 3).plain
    assert (
        fit_run(run_name("a-very-long-job", 123456, 3), 8).plain
        == fit("a-very-long-job@123456 #3", 8).plain
    ), "no room for the job: cut as any id"


# 5. ctrl+u, 6. the go-to prompt


async def test_clearing_the_command_line_clears_the_candidate_list(app: DashboardApp) -> None:
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("colon", *"cancel ", "tab")
        bar = app.dashboard.command_bar
        assert str(bar.message.render()).startswith("tab:")
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert bar.input.value == ""
        assert str(bar.message.render()) == ""


async def test_typing_after_tab_clears_the_candidate_list(app: DashboardApp) -> None:
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("colon", *"cancel ", "tab", "backspace")
        await pilot.pause()
        assert str(app.dashboard.command_bar.message.render()) == ""


async def test_the_go_to_prompt_selects_a_failed_entry_so_typing_replaces_it(
    app: DashboardApp,
) -> None:
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("g", *"abc", "enter")
        await pilot.pause()
        prompt = app.screen
        assert isinstance(prompt, PromptScreen)
        assert "✗" in str(prompt.error.render())
        assert prompt.input.selection == (0, 3)
        await pilot.press(*"12", "enter")
        await pilot.pause()
        assert app.screen is app.dashboard and app.dashboard.navigator.tick == 12


# 7. thousands separators


async def test_the_latency_screen_writes_ticks_and_counts_with_separators() -> None:
    app = _app("nightly-etl-dst.yaml")
    async with app.run_test(size=WIDE) as pilot:
        app.dashboard.seek(1700)
        await pilot.press("s")
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert "Latency at tick 1,700" in text
        assert "1700" not in text


async def test_the_timeline_zoom_and_the_worker_detail_write_separators() -> None:
    app = _app("nightly-etl-dst.yaml")
    async with app.run_test(size=WIDE) as pilot:
        app.dashboard.seek(1700)
        timeline = app.dashboard.query_one(TimelineView)
        timeline.focus()
        await pilot.press(*"[" * 10)
        await pilot.pause()
        assert str(timeline.border_subtitle).startswith("1,440 ticks/cell")
        app.dashboard.query_one("#workers").focus()
        await pilot.pause()
        assert " of 1,700 ticks (" in app.dashboard.detail.text


async def test_export_says_the_tick_with_separators(tmp_path: Path) -> None:
    app = _app("nightly-etl-dst.yaml")
    async with app.run_test(size=WIDE):
        app.dashboard.seek(1700)
        ok, message = app.dashboard.runner.run(f"export {tmp_path / 'a.json'}")
        assert ok and "up to tick 1,700 " in message, message


async def test_the_compare_screen_writes_ticks_and_counts_with_separators() -> None:
    app = _app("nightly-etl-dst.yaml")
    async with app.run_test(size=WIDE) as pilot:
        dashboard = app.dashboard
        dashboard.seek(1500)
        assert dashboard.runner.run("register w-c")[0]
        dashboard.seek(1200)
        assert dashboard.runner.run("register w-d")[0]
        await pilot.press("colon", *"compare", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        horizon = screen.horizon
        assert horizon >= 1000 and f"to tick {horizon:,}" in text, text


# 8. the event detail's title


async def test_the_event_detail_is_titled_in_words(app: DashboardApp) -> None:
    async with app.run_test(size=WIDE) as pilot:
        app.dashboard.seek(1)
        events = app.dashboard.query_one("#events")
        events.focus()
        await pilot.pause()
        detail = app.dashboard.detail
        assert detail.kind == "event"
        title = detail.text.splitlines()[0]
        assert "Attempt" not in title and "Occurrence" not in title, title
        assert title.startswith("Event  "), title
