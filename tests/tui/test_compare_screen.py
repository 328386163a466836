"""``:compare``: the replaced future beside the new one, played in the background; and what it
says when there is only one future."""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.analyses.compare.futures import compare
from tui.app import DashboardApp
from tui.model.session import load_session
from tui.screens.compare import NO_BRANCH, CompareScreen

pytestmark = pytest.mark.integration

CRASH = Path(__file__).resolve().parents[2] / "scenarios" / "worker-crash.yaml"


def _app() -> DashboardApp:
    return DashboardApp(session=load_session(CRASH), watch=False, blink=False)


async def _command(pilot, text: str) -> None:
    await pilot.press("colon", *text, "enter")
    await pilot.pause()


def _toasts(app: DashboardApp) -> str:
    """The answers of the commands that succeeded, which toasts show."""
    return "\n".join(str(toast.message) for toast in app._notifications)


async def _branch(pilot) -> None:
    """A command at 80, then a rewind to 10 and another command: two futures. Run as the command
    line runs them, without its toast (which lasts seconds of real time: not in a snapshot)."""
    dashboard = pilot.app.dashboard
    dashboard.seek(80)
    assert dashboard.runner.run("register w-c")[0]
    dashboard.seek(10)
    assert dashboard.runner.run("register w-d")[0]
    await pilot.pause()


async def _compared(pilot) -> CompareScreen:
    """``:compare`` typed, once both futures are played to their end."""
    await _command(pilot, "compare")
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    assert screen.comparison is not None
    return screen


def _moved(screen: CompareScreen) -> dict[tuple[str, int], int]:
    assert screen.comparison is not None
    return {(m.job_id, m.scheduled): m.by for m in screen.comparison.moved}


async def test_compare_shows_both_futures_played_to_the_end() -> None:
    app = _app()
    async with app.run_test(size=(140, 50)) as pilot:
        await _branch(pilot)
        screen = await _compared(pilot)
        assert (screen.before.tick, screen.after.tick) == (150, 150)
        assert screen.comparison == compare(screen.before.engine, screen.after.engine)
        assert _moved(screen) == {("hourly", 60): -20}
        assert app.dashboard.navigator.history.tick == 10
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)


async def test_a_command_while_rewound_compares_with_the_files_own_future() -> None:
    """Crash versus no crash: the file's run played to its end, then back to the crash and
    the worker brought up at once. The future replaced is the file's own; compare and redo
    take it as they take a future of the user's commands."""
    app = _app()
    async with app.run_test(size=(140, 50)) as pilot:
        dashboard = app.dashboard
        dashboard.seek(150)
        dashboard.seek(30)
        await pilot.pause()
        await _command(pilot, "up w-a")
        assert "a new future starts here" in _toasts(app)
        assert _moved(await _compared(pilot)) == {("hourly", 60): -30}
        await pilot.press("escape")
        await _command(pilot, "redo")
        assert "the previous future is back" in _toasts(app)
        assert not dashboard.navigator.history.user_commands


async def test_compare_with_one_future_says_how_to_make_two() -> None:
    app = _app()
    async with app.run_test(size=(140, 50)) as pilot:
        await _command(pilot, "compare")
        assert not isinstance(app.screen, CompareScreen)
        assert NO_BRANCH in str(app.dashboard.command_bar.message.render())


def test_compare_screen_snapshot(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _branch(pilot)
        await _command(pilot, "compare")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(140, 50), run_before=run_before)
