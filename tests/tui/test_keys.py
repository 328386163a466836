"""Every key of the dashboard, pressed through Textual's Pilot: the state before and after."""

from __future__ import annotations

import bisect
import json
from pathlib import Path

import pytest
from tui_helpers import small_session

from tui.app import DashboardApp
from tui.model.rows import OccurrenceRows
from tui.screens.dashboard import PANES
from tui.screens.help import HelpScreen
from tui.screens.playback import SPEEDS
from tui.screens.prompt import PromptScreen
from tui.widgets.occurrences import OccurrencesTable
from tui.widgets.timeline import TimelineView

pytestmark = pytest.mark.integration

SIZE = (100, 30)


async def test_it_opens_paused_at_the_first_tick(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE):
        screen = app.dashboard
        assert screen.navigator.tick == 0 and not screen.playing
        assert "tick 0 / 60" in screen.query_one("#status").summary
        assert "Mon 2026-03-09 00:00:00 UTC" in screen.query_one("#status").summary


async def test_right_and_left_step_one_event_tick(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "right", "right")
        assert app.dashboard.navigator.tick == 3
        await pilot.press("left")
        assert app.dashboard.navigator.tick == 2
        await pilot.press("l", "h", "h")
        assert app.dashboard.navigator.tick == 1


async def test_shift_arrows_jump_ten_event_ticks(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("shift+right")
        event_ticks = app.dashboard.navigator.history.event_ticks
        assert app.dashboard.navigator.tick == event_ticks[10] == 10
        await pilot.press("shift+right", "shift+right")
        position = bisect.bisect_left(event_ticks, app.dashboard.navigator.tick)
        await pilot.press("shift+left")
        assert app.dashboard.navigator.tick == event_ticks[position - 10]


async def test_home_and_end_go_to_the_first_and_last_tick(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        assert app.dashboard.navigator.tick == 60
        assert "tick 60 / 60" in app.dashboard.query_one("#status").summary
        await pilot.press("home")
        assert app.dashboard.navigator.tick == 0


async def test_space_plays_and_pauses(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        await pilot.press("space")
        assert screen.playing and screen._timer is not None
        assert "▶ playing" in screen.query_one("#status").summary
        screen.play_frame()  # what the timer does, without waiting for the clock
        assert screen.navigator.tick >= 1
        await pilot.press("space")
        assert not screen.playing and screen._timer is None
        tick = screen.navigator.tick
        await pilot.pause(0.2)  # the scenario: time passes while paused, and nothing plays
        assert screen.navigator.tick == tick


async def test_playing_stops_at_the_end(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        await pilot.press("end", "space")
        screen.play_frame()
        assert not screen.playing and screen.navigator.tick == 60


async def test_plus_and_minus_change_the_speed(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        start = screen.speed
        await pilot.press("+")
        assert screen.speed == SPEEDS[SPEEDS.index(start) + 1]
        await pilot.press("-", "-")
        assert screen.speed == SPEEDS[SPEEDS.index(start) - 1]
        assert f"{screen.speed}/s" in screen.query_one("#status").summary
        for _ in SPEEDS:
            await pilot.press("+")
        assert screen.speed == SPEEDS[-1]


async def test_g_goes_to_a_tick_or_a_time(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*"25", "enter")
        assert app.dashboard.navigator.tick == 25
        await pilot.press("g", *"00:40", "enter")
        assert app.dashboard.navigator.tick == 40
        await pilot.press("g", *"soon", "enter")
        assert isinstance(app.screen, PromptScreen)
        assert "ISO 8601" in str(app.screen.error.render())
        await pilot.press("escape")
        assert app.screen is app.dashboard and app.dashboard.navigator.tick == 40


async def test_slash_filters_the_focused_table(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        table = app.dashboard.query_one(OccurrencesTable)
        everything = len(table.index)
        await pilot.press("/", *"etl", "enter")
        assert table.filter_text == "etl"
        assert 0 < len(table.index) < everything
        assert all(table.index.key_at(i)[0] == "etl" for i in range(len(table.index)))
        assert "of" in table.border_subtitle
        await pilot.press("/", "ctrl+u", "enter")
        assert len(table.index) == everything and table.filter_text == ""


async def test_tab_and_shift_tab_move_between_panes(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        order = [pane for pane, _ in PANES]
        assert app.focused.id == "occurrences"
        await pilot.press("tab")
        assert app.focused.id == order[1] == screen.active_pane
        await pilot.press("shift+tab", "shift+tab")
        assert app.focused.id == order[-1]


async def test_narrow_terminals_show_one_pane_and_tabs(app: DashboardApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.dashboard
        assert screen.narrow
        visible = [pane.id for pane in screen.query(".pane") if pane.display]
        assert visible == ["occurrences"]
        await pilot.press("tab")
        visible = [pane.id for pane in screen.query(".pane") if pane.display]
        assert visible == ["workers"]
        assert screen.query_one("#tabs").display


async def test_colon_opens_the_command_line(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        bar = app.dashboard.command_bar
        assert not bar.is_open
        await pilot.press(":")
        assert bar.is_open and app.focused is bar.input
        await pilot.press(*"down w1", "enter")
        assert not bar.is_open
        assert app.dashboard.navigator.engine.query.worker("w1").down
        await pilot.press(":", "escape")
        assert not bar.is_open


async def test_colon_after_a_failed_command_starts_a_new_line(app: DashboardApp) -> None:
    """A failed command leaves its line open, selected, to be fixed; a ``:`` typed over it
    is the key that opens the command line, not the first character of a line ``:goto``."""
    async with app.run_test(size=SIZE) as pilot:
        bar = app.dashboard.command_bar
        await pilot.press(":", *"redo", "enter")
        assert bar.is_open and "nothing to redo" in str(bar.message.render())
        await pilot.press(":")
        assert bar.is_open and bar.input.value == "" and not str(bar.message.render())
        await pilot.press(":", *"goto 00:50", "enter")
        assert not bar.is_open
        assert app.dashboard.navigator.tick == 50


async def test_e_exports_the_attempts_next_to_the_file(tmp_path: Path) -> None:
    session = small_session(path=tmp_path / "fleet.yaml")
    app = DashboardApp(session=session, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end", "e")
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.input.value == str(tmp_path / "fleet.trace.json")
        await pilot.press("enter")
        trace = json.loads((tmp_path / "fleet.trace.json").read_text())
        assert any(event["ph"] == "X" for event in trace["traceEvents"])


async def test_question_mark_lists_every_key_and_command(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("?")
        assert isinstance(app.screen, HelpScreen)
        shown = {binding.key for _, bindings in app.screen.sections for binding in bindings}
        from tui.screens.dashboard import DashboardScreen
        from tui.widgets.virtual_table import VirtualTable

        for binding in [*DashboardScreen.BINDINGS, *VirtualTable.BINDINGS, *app.BINDINGS]:
            assert binding.key in shown
        text = str(app.screen.query_one("#help-commands").render())
        assert "schedule" in text or app.screen.query_one("#help-commands")
        await pilot.press("escape")
        assert app.screen is app.dashboard


async def test_q_quits(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
        assert not app.is_running


async def test_o_opens_another_file(app: DashboardApp, scenario_file: Path) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("o")
        assert isinstance(app.screen, PromptScreen)
        app.screen.input.value = str(scenario_file)
        await pilot.press("enter")
        assert app.screen is app.dashboard
        assert app.dashboard.session.name == "small yaml"
        assert app.dashboard.navigator.tick == 0


async def test_a_file_opened_over_another_shows_a_row_of_its_own(
    app: DashboardApp, scenario_file: Path
) -> None:
    """The timeline focused on worker w3, a file with workers w1 and w2 opened: the detail pane
    showed w3 still ("no worker w3 at this tick"), and ``w`` explained that worker."""
    async with app.run_test(size=SIZE) as pilot:
        app.dashboard.show_pane("timeline")
        await pilot.pause()
        timeline = app.dashboard.query_one(TimelineView)
        timeline.action_move_cursor(2)
        await pilot.pause()
        assert app.dashboard.detail.shown == ("worker", "w3")
        assert app.open_path(scenario_file)
        await pilot.pause()
        assert app.dashboard.detail.shown == ("worker", "w2")
        assert "w2" in app.dashboard.navigator.engine.query.workers()


async def test_o_refuses_a_missing_file_inline(app: DashboardApp, tmp_path: Path) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("o")
        app.screen.input.value = str(tmp_path / "nope.yaml")
        await pilot.press("enter")
        assert isinstance(app.screen, PromptScreen)
        assert "no such file" in str(app.screen.error.render())


async def test_r_reloads_the_file_at_the_same_tick(scenario_file: Path) -> None:
    app = DashboardApp(scenario_file, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "right", "right")
        tick = app.dashboard.navigator.tick
        scenario_file.write_text(
            scenario_file.read_text().replace("small yaml", "renamed"), encoding="utf-8"
        )
        await pilot.press("r")
        assert app.dashboard.session.name == "renamed"
        assert app.dashboard.navigator.tick == tick


async def test_the_file_reloads_by_itself_when_it_changes(scenario_file: Path) -> None:
    app = DashboardApp(scenario_file, watch=False, blink=False)
    async with app.run_test(size=SIZE):
        assert app.check_file() is False
        scenario_file.write_text(
            scenario_file.read_text().replace("duration: 3", "duration: 4"), encoding="utf-8"
        )
        assert app.check_file() is True
        spec = app.dashboard.navigator.engine.query.job("etl").spec
        assert spec.duration == 4


async def test_timeline_zooms_and_selects_workers(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.dashboard.query_one(TimelineView)
        timeline.focus()
        await pilot.press("]")
        assert timeline.scale == 1
        await pilot.press("[", "[", "]")
        assert timeline.scale == 2
        await pilot.press("down")
        assert timeline.cursor == 1
        assert app.dashboard.detail.kind == "worker" and app.dashboard.detail.key == "w2"


async def test_table_keys_move_the_cursor_and_follow(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        table = app.dashboard.query_one(OccurrencesTable)
        last = table.index.key_at(len(table.index) - 1)
        assert table.follow and table.cursor_key == last
        await pilot.press("up")
        assert not table.follow and table.cursor_key == table.index.key_at(len(table.index) - 2)
        assert app.dashboard.detail.key == table.cursor_key
        await pilot.press("pageup", "pagedown", "down", "f")
        assert table.follow and table.cursor_key == last


async def test_a_far_seek_runs_in_slices_and_lands_on_the_last_tick() -> None:
    from tui_helpers import POLICY, small_timeline

    from engine.core import Engine
    from engine.play.ticks import at_ticks
    from tui.model.session import make_session

    session = make_session("long", lambda: Engine(POLICY), at_ticks(small_timeline()), 5_000)
    app = DashboardApp(session=session, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        await app.workers.wait_for_complete()
        assert app.dashboard.navigator.tick == 5_000
        table = app.dashboard.query_one(OccurrencesTable)
        rebuilt = OccurrenceRows()
        rebuilt.rebuild(app.dashboard.navigator.engine)
        assert list(table.index.keys()) == list(rebuilt.index.keys())
        await pilot.press("g")
        app.screen.input.value = "99999999"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        assert app.dashboard.navigator.tick == 5_000


async def test_tabs_pressed_in_a_burst_each_move_one_pane(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        await pilot.pause()
        for _ in range(3):  # before focus has moved, as when keys arrive together
            screen.action_focus_pane(1)
        await pilot.pause()
        assert app.focused.id == PANES[3][0] == screen.active_pane
