"""Files that cannot run show why, at file:line:column, and the dashboard keeps running."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import BROKEN_YAML, SMALL_YAML

from tui.app import DashboardApp
from tui.model.session import LoadFailed, load_session
from tui.screens.errors import ErrorScreen, render_problems

pytestmark = pytest.mark.integration

SIZE = (100, 30)


def shown(app: DashboardApp) -> str:
    screen = app.screen
    assert isinstance(screen, ErrorScreen)
    options = app.console.options.update_width(1000)
    lines = app.console.render_lines(render_problems(screen.failed), options)
    return "\n".join("".join(segment.text for segment in line) for line in lines)


async def test_an_invalid_scenario_shows_its_errors_and_the_app_keeps_running(
    broken_file: Path,
) -> None:
    app = DashboardApp(broken_file, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ErrorScreen)
        text = shown(app)
        assert f"{broken_file}:4:22: jobs[0].every: expected a whole number" in text
        assert f"{broken_file}:5:22: jobs[1].colour: unknown key 'colour'" in text
        assert "  - {id: bad, at: 5, colour: red}" in text
        await pilot.press("escape")
        assert app.screen is app.dashboard and app.dashboard.session.kind == "empty"
        await pilot.press("right", "end", "home")
        assert app.is_running


async def test_fixing_the_file_brings_the_dashboard_back(broken_file: Path) -> None:
    app = DashboardApp(broken_file, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ErrorScreen)
        broken_file.write_text(SMALL_YAML, encoding="utf-8")
        assert app.check_file()
        await pilot.pause()
        assert app.screen is app.dashboard
        assert app.dashboard.session.name == "small yaml"


async def test_breaking_the_file_while_watching_shows_the_errors(scenario_file: Path) -> None:
    app = DashboardApp(scenario_file, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "right")
        scenario_file.write_text(SMALL_YAML.replace("every: 10", "every: often"), "utf-8")
        await pilot.press("r")
        assert isinstance(app.screen, ErrorScreen)
        assert ":5:22: jobs[0].every: expected a whole number" in shown(app)
        await pilot.press("escape")
        assert app.dashboard.session.name == "small yaml", "the last good run is still there"
        assert app.dashboard.navigator.tick > 0


async def test_esc_from_another_files_errors_reloads_and_watches_the_file_shown_again(
    scenario_file: Path, broken_file: Path
) -> None:
    app = DashboardApp(scenario_file, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "right")
        assert not app.open_path(broken_file)
        assert isinstance(app.screen, ErrorScreen)
        await pilot.press("escape")
        assert app.screen is app.dashboard and app.dashboard.session.name == "small yaml"
        assert app.path == scenario_file
        await pilot.press("r")
        assert app.screen is app.dashboard, "r reloads the file shown, not the broken one"
        broken_file.write_text(BROKEN_YAML + "\n", encoding="utf-8")
        assert not app.check_file(), "the broken file is no longer watched"
        scenario_file.write_text(SMALL_YAML.replace("small yaml", "small yaml, saved"), "utf-8")
        assert app.check_file()
        assert app.dashboard.session.name == "small yaml, saved"


async def test_a_script_with_bad_lines_shows_their_numbers(tmp_path: Path) -> None:
    script = tmp_path / "bad.txt"
    script.write_text("INIT 2 3\nSUBMIT A 1 x 1 0\nTICK 3\nJUMP\n", encoding="utf-8")
    app = DashboardApp(script, watch=False, blink=False)
    async with app.run_test(size=SIZE):
        text = shown(app)
        assert f"{script}:2:1: duration must be an integer, got 'x'" in text
        assert f"{script}:4:1: unknown command 'JUMP'" in text


async def test_a_good_script_opens(tmp_path: Path) -> None:
    script = tmp_path / "good.txt"
    script.write_text("INIT 2 3\nSUBMIT A 1 3 2 0\nFAIL A 1\nTICK 12\n", encoding="utf-8")
    app = DashboardApp(script, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen is app.dashboard and app.dashboard.session.kind == "script"
        await pilot.press("end")
        assert app.dashboard.navigator.engine.query.run_state("A", 0).name == "SUCCEEDED"


async def test_a_missing_file_is_an_error_not_a_crash(tmp_path: Path) -> None:
    app = DashboardApp(tmp_path / "gone.yaml", watch=False, blink=False)
    async with app.run_test(size=SIZE):
        assert "cannot read" in shown(app)


def test_load_failures_carry_positions(broken_file: Path) -> None:
    try:
        load_session(broken_file)
    except LoadFailed as failed:
        positions = [(p.line, p.column) for p in failed.problems]
        assert positions == [(4, 22), (5, 22)]
    else:
        raise AssertionError("the broken scenario loaded")


def test_an_import_problem_is_a_problem_at_its_line_and_column(tmp_path: Path) -> None:
    timer = tmp_path / "feb.timer"
    timer.write_text("[Timer]\nOnCalendar=*-02-28 25:00\n")
    try:
        load_session(timer)
    except LoadFailed as failed:
        [problem] = failed.problems
        assert (problem.source, problem.line, problem.column) == (str(timer), 2, 20)
        assert problem.message == "OnCalendar=: hour '25': expected values from 0 to 23"
    else:
        raise AssertionError("an hour 25 loaded")


def test_a_timer_that_never_elapses_opens_without_its_job(tmp_path: Path) -> None:
    # systemd accepts a February 30th and never elapses it: not imported, like @reboot.
    timer = tmp_path / "feb.timer"
    timer.write_text("[Timer]\nOnCalendar=*-02-30 00:00\nOnCalendar=daily\n")
    session = load_session(timer)
    assert list(session.engine.query.jobs()) == ["feb"]


async def test_an_imported_crontab_says_what_it_could_not_import(tmp_path: Path) -> None:
    """``cronlapse run`` and ``check`` say it on standard error; the dashboard said nothing."""
    crontab = tmp_path / "team.crontab"
    crontab.write_text("@reboot /bin/agent\n30 2 * * * /bin/load\n", encoding="utf-8")
    app = DashboardApp(crontab, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen is app.dashboard and "load" in app.dashboard.navigator.engine.query.jobs()
        messages = [str(toast.message) for toast in app._notifications]
        assert any(
            f"not imported: {crontab}:1: @reboot runs when cron starts" in m for m in messages
        ), messages
