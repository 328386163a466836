"""``a``: the advice of ``cronlapse advise`` for the file on screen, worked out in the background;
esc closes it. And one snapshot of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import settled, small_session

from cronlapse.analyses.advise import AdviceOptions, advise, read_fleet
from cronlapse.analyses.advise.render import advice_text
from tests.waiting import until
from tui.app import DashboardApp
from tui.model.advice import NO_FILE
from tui.model.session import load_session
from tui.screens.advice import AdviceScreen

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("busy_machine")]

HERD = """\
scenario: Midnight herd
clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, until: 1440}
workers: [w1, w2]
jobs:
  - {id: backup, cron: "0 0 * * *", duration: 10, catch_up: latest}
  - {id: report, cron: "0 0 * * *", duration: 10, catch_up: latest}
  - {id: index, cron: "0 0 * * *", duration: 10, catch_up: latest}
  - {id: mail, cron: "0 0 * * *", duration: 10, catch_up: latest}
"""


def _herd_app(tmp_path: Path) -> DashboardApp:
    path = tmp_path / "herd.yaml"
    path.write_text(HERD, encoding="utf-8")
    return DashboardApp(session=load_session(path), watch=False, blink=False)


async def _advised(pilot) -> AdviceScreen:
    await pilot.press("a")
    screen = pilot.app.screen
    assert isinstance(screen, AdviceScreen)
    await until(lambda: screen.answer is not None, "the advice to be worked out")
    await settled(pilot)
    return screen


async def test_a_shows_the_advice_the_command_gives_and_esc_closes_it(tmp_path: Path) -> None:
    app = _herd_app(tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await _advised(pilot)
        assert screen.answer is not None and screen.answer.advice is not None
        fleet = read_fleet(str(tmp_path / "herd.yaml"), HERD)
        expected = advice_text(advise(fleet, AdviceOptions()))
        assert advice_text(screen.answer.advice) == expected
        assert "spread their fire minutes" in expected
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, AdviceScreen)


async def test_a_run_without_a_file_says_advice_needs_one() -> None:
    app = DashboardApp(session=small_session(), watch=False, blink=False)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await _advised(pilot)
        assert screen.answer is not None and screen.answer.reason == NO_FILE


def test_advice_screen_snapshot(snap_compare, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # the file's name, shown on screen, is relative

    async def advised(pilot) -> None:
        await _advised(pilot)

    Path("herd.yaml").write_text(HERD, encoding="utf-8")
    app = DashboardApp(session=load_session("herd.yaml"), watch=False, blink=False)
    assert snap_compare(app, terminal_size=(150, 50), run_before=advised)
