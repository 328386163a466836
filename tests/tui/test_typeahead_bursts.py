"""Keys typed in one burst do what the same keys typed slowly do, across lines too.

A paste, a fast typist or a busy machine hands the app many keys at once: ``g60⏎/x⏎`` must go
to tick 60 and then filter the table, though the keys of the second line arrive before the go-to
prompt of the first has closed. Each test posts its keys all at once, as a terminal hands over
what it read, and compares with the keys pressed one by one (Pilot waits after each key).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual import events
from tui_helpers import small_session

from tui.app import DashboardApp
from tui.screens.prompt import PromptScreen
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration

SIZE = (100, 30)
CHARACTERS = {
    "slash": "/",
    "colon": ":",
    "space": " ",
    "full_stop": ".",
    "minus": "-",
    "plus": "+",
    "underscore": "_",
    "exclamation_mark": "!",
    "enter": "\r",
    "backspace": "\x7f",
    "escape": "\x1b",
}
"""The character each named key carries (the others carry none, or their own name)."""
NAMES = {char: name for name, char in CHARACTERS.items()}


def keys(text: str) -> list[str]:
    """Pilot's key names for ``text``, where ``⏎`` is enter, ``⌫`` backspace, ``←`` left."""
    specials = {"⏎": "enter", "⌫": "backspace", "←": "left", "⎋": "escape"}
    return [specials.get(char) or NAMES.get(char, char) for char in text]


def burst(app: DashboardApp, names: list[str]) -> None:
    """Post every key before any of them is handled, as the terminal driver does."""
    for name in names:
        char = CHARACTERS.get(name, name if len(name) == 1 else None)
        app.post_message(events.Key(name, char))


def state(app: DashboardApp) -> dict[str, object]:
    """What the user sees that keys change: the tick, the filters, the lines and the focus."""
    dashboard = app.dashboard
    bar = dashboard.command_bar
    top = app.screen
    return {
        "screen": type(top).__name__,
        "prompt": (top.input.value, top.input.selection, str(top.error.render()))
        if isinstance(top, PromptScreen)
        else None,
        "tick": dashboard.navigator.tick,
        "filters": {table.id: table.filter_text for table in dashboard.query(VirtualTable)},
        "bar": (bar.is_open, bar.mode, bar.input.value, bar.input.selection),
        "bar message": str(bar.message.render()),
        "focused": app.focused.id if app.focused is not None else None,
        "path": app.path,
        "running": app.is_running,
    }


async def typed_at_once(text: str) -> dict[str, object]:
    app = DashboardApp(session=small_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        burst(app, keys(text))
        await pilot.pause()  # until every key is handled (tests/tui/conftest.py)
        return state(app)


async def typed_slowly(text: str) -> dict[str, object]:
    app = DashboardApp(session=small_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        for name in keys(text):
            await pilot.press(name)
        await pilot.pause()  # until every key is handled (tests/tui/conftest.py)
        return state(app)


async def test_a_go_to_line_then_a_filter_line_typed_at_once_do_both() -> None:
    """The defect: ``/x⏎`` went into the go-to prompt that ``g60⏎`` was closing."""
    seen = await typed_at_once("g60⏎/x⏎")
    assert seen["tick"] == 60
    assert seen["filters"]["occurrences"] == "x"  # type: ignore[index]
    assert seen["screen"] == "DashboardScreen" and seen["focused"] == "occurrences"
    assert seen["bar"][0] is False  # type: ignore[index]


async def test_two_go_to_lines_typed_at_once_end_at_the_second_tick() -> None:
    seen = await typed_at_once("g10⏎g20⏎")
    assert seen["tick"] == 20 and seen["screen"] == "DashboardScreen"


async def test_the_key_behind_a_go_to_line_moves_from_the_tick_gone_to() -> None:
    assert await typed_at_once("g30⏎l") == await typed_slowly("g30⏎l")


async def test_a_command_line_then_a_filter_line_typed_at_once_do_both() -> None:
    seen = await typed_at_once(":goto 30⏎/x⏎")
    assert seen["tick"] == 30 and seen["filters"]["occurrences"] == "x"  # type: ignore[index]
    assert seen["bar"][:3] == (False, "filter", "x")  # type: ignore[index]


async def test_a_filter_line_then_a_go_to_line_typed_at_once_do_both() -> None:
    seen = await typed_at_once("/x⏎g30⏎")
    assert seen["tick"] == 30 and seen["filters"]["occurrences"] == "x"  # type: ignore[index]


async def test_editing_keys_typed_at_once_edit_the_line_in_order() -> None:
    """``⌫`` and ``←`` act where the keys before them left the cursor, not after the rest."""
    seen = await typed_at_once(":ab⌫c←d")
    assert seen["bar"][:3] == (True, "command", "adc")  # type: ignore[index]


async def test_editing_keys_typed_at_once_into_an_open_line_edit_it_in_order(
    app: DashboardApp,
) -> None:
    """The input takes a character at once, while ``⌫`` acts only once it has gone up to the
    app's bindings: typed at once into the open line, ``c`` and ``d`` used to overtake them."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon")
        burst(app, keys("ab⌫c←d"))
        await pilot.pause()  # until every key is handled (tests/tui/conftest.py)
        assert app.dashboard.command_bar.input.value == "adc"


async def test_a_paste_behind_the_key_that_opens_a_line_goes_into_the_line(
    app: DashboardApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        burst(app, keys(":"))
        app.post_message(events.Paste("goto 5"))
        burst(app, keys("⏎"))
        await pilot.pause()  # until every key is handled (tests/tui/conftest.py)
        assert app.dashboard.navigator.tick == 5
        assert not app.dashboard.command_bar.is_open


async def test_a_key_typed_behind_a_refused_command_replaces_the_line() -> None:
    """The refused line stays selected, so the next key replaces it, as when typed slowly."""
    seen = await typed_at_once(":nosuchcommand⏎x")
    assert seen["bar"][:3] == (True, "command", "x")  # type: ignore[index]
    assert seen == await typed_slowly(":nosuchcommand⏎x")


async def test_a_file_opened_and_a_go_to_typed_at_once_go_to_the_tick_in_the_file(
    scenario_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(scenario_file.parent)  # a short path to type
    text = f"o{scenario_file.name}⏎g5⏎/etl⏎"
    seen = await typed_at_once(text)
    assert seen["path"] == Path(scenario_file.name) and seen["tick"] == 5
    assert seen["filters"]["occurrences"] == "etl"  # type: ignore[index]
    assert seen == await typed_slowly(text)


async def test_escape_in_a_burst_closes_only_its_own_line() -> None:
    text = "g12⎋/x⎋g7⏎"
    seen = await typed_at_once(text)
    assert seen["tick"] == 7 and seen["filters"]["occurrences"] == ""  # type: ignore[index]
    assert seen == await typed_slowly(text)


LINES = st.one_of(
    st.builds("g{}⏎".format, st.sampled_from(["5", "+3", "-2", "60", "99", "x"])),
    st.builds("/{}⏎".format, st.sampled_from(["x", "etl", "", "!w1"])),
    st.builds(":{}⏎".format, st.sampled_from(["goto 30", "speed 5", "nope", "filter etl"])),
    st.sampled_from(["l", "h", "⎋", "g4⎋", ":ab⌫⏎"]),
)
"""Lines that go, filter, command (some refused and left open, selected) and single keys."""


@settings(
    max_examples=6,
    derandomize=True,
)
@given(lines=st.lists(LINES, min_size=2, max_size=3))
def test_any_burst_of_lines_does_what_the_lines_typed_slowly_do(lines: list[str]) -> None:
    text = "".join(lines)
    assert asyncio.run(typed_at_once(text)) == asyncio.run(typed_slowly(text))
