"""Keys typed right after a key that opens a line (``/``, ``:``, ``g``) go into that line.

A fast typist, a paste or a slow machine delivers ``/`` and the next keys before the dashboard
has drawn the line they open. Those keys must not reach the dashboard's own bindings: ``e``
would open the export, ``space`` would play, ``q`` would quit. The keys are posted all at once
here, as a terminal hands them over, before any of them is handled.
"""

from __future__ import annotations

import pytest
from textual import events

from tui.app import DashboardApp
from tui.screens.prompt import PromptScreen

pytestmark = pytest.mark.integration

SIZE = (100, 30)


def _type_at_once(
    app: DashboardApp, opener: tuple[str, str], text: str, enter: bool = False
) -> None:
    app.post_message(events.Key(*opener))
    for char in text:
        app.post_message(events.Key("space" if char == " " else char, char))
    if enter:
        app.post_message(events.Key("enter", "\r"))


@pytest.mark.parametrize(
    ("opener", "text"),
    [(("slash", "/"), "queue e"), (("colon", ":"), "down w1 q")],
    ids=["filter", "command"],
)
async def test_a_line_typed_at_once_lands_in_the_command_bar(
    app: DashboardApp, opener: tuple[str, str], text: str
) -> None:
    """``e`` would export, ``space`` play and ``q`` quit, were they the dashboard's."""
    async with app.run_test(size=SIZE) as pilot:
        _type_at_once(app, opener, text)
        await pilot.pause()
        bar = app.dashboard.command_bar
        assert bar.is_open and bar.input.value == text
        assert app.screen is app.dashboard and not app.dashboard.playing
        assert app.is_running


async def test_a_tick_typed_at_once_lands_in_the_go_to_prompt(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        _type_at_once(app, ("g", "g"), "+2h")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.input.value == "+2h"


@pytest.mark.usefixtures("busy_machine")
async def test_a_tick_typed_at_once_on_a_busy_machine_lands_in_the_go_to_prompt(
    app: DashboardApp,
) -> None:
    """What ``'' == '+2h'`` was under load: no key was lost, the test looked too early. A
    pause here waits for the dashboard to handle every key (tests/tui/conftest.py)."""
    async with app.run_test(size=SIZE) as pilot:
        _type_at_once(app, ("g", "g"), "+2h")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.input.value == "+2h"


async def test_a_tick_and_enter_typed_at_once_go_to_the_tick(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        _type_at_once(app, ("g", "g"), "25", enter=True)
        await pilot.pause()
        assert app.screen is app.dashboard
        assert app.dashboard.navigator.tick == 25


async def test_a_filter_and_enter_typed_at_once_filter_the_table(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        _type_at_once(app, ("slash", "/"), "nothing-has-this-name", enter=True)
        await pilot.pause()
        assert not app.dashboard.command_bar.is_open
        assert app.dashboard.query_one("#occurrences").filter_text == "nothing-has-this-name"


async def test_keys_go_to_a_table_clicked_while_the_command_line_stays_open(
    app: DashboardApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash")
        await pilot.click("#occurrences")
        await pilot.press("l")
        assert app.dashboard.command_bar.is_open
        assert app.dashboard.command_bar.input.value == ""
        assert app.dashboard.navigator.tick == 1
