"""``w``: the why screen for the selected row, a snapshot per kind of row, and esc to close."""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.analyses.explain import explain_run, plain
from tests.waiting import until
from tui.app import DashboardApp
from tui.model.session import load_session
from tui.screens.why import WhyScreen, run_of

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _app(name: str) -> DashboardApp:
    return DashboardApp(session=load_session(SCENARIOS / name), watch=False, blink=False)


async def _select(pilot, tick: int, key: tuple[str, int]) -> None:
    """Go to ``tick`` and put the occurrences table's cursor on ``key``, as the arrows would."""
    dashboard = pilot.app.dashboard
    dashboard.seek(tick)
    await pilot.pause()
    table = dashboard.query_one("#occurrences")
    table.focus()  # it takes the focus when the app gets to it: the arrows come after that
    await until(lambda: table.has_focus, "the occurrences table to take the focus")
    table.set_cursor(table.index.position(key))
    await pilot.pause()
    assert dashboard.detail.shown == ("occurrence", key)


def _ask(tick: int, key: tuple[str, int]):
    async def run_before(pilot) -> None:
        await _select(pilot, tick, key)
        await pilot.press("w")
        await pilot.pause()

    return run_before


CASES = {
    "waiting": ("worker-crash.yaml", 70, ("hourly", 60)),
    "retry": ("retry-storm-jitter.yaml", 12, ("client-03", 0)),
    "cancelled": ("seed-001-aging-cascade.yaml", 12, ("c", 0)),
    "calendar_dst": ("nightly-etl-dst.yaml", 1565, ("extract", 1560)),
    "timed_out": ("stuck-job-timeout.yaml", 12, ("sync-ledger", 0)),
    "lost": ("worker-crash.yaml", 100, ("render", 0)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_why_screen(snap_compare, case: str) -> None:
    name, tick, key = CASES[case]
    run_before = _ask(tick, key)
    assert snap_compare(_app(name), terminal_size=(120, 40), run_before=run_before)


async def test_w_explains_the_selected_row_and_esc_closes_it() -> None:
    app = _app("worker-crash.yaml")
    async with app.run_test(size=(120, 40)) as pilot:
        app.dashboard.seek(70)
        await pilot.press("slash", *"hourly", "enter")
        await pilot.pause()
        assert app.dashboard.detail.shown == ("occurrence", ("hourly", 60))
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WhyScreen)
        assert screen.title_text == "Why? hourly@60"
        assert app.dashboard.navigator.history.tick == 70
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, WhyScreen)


async def test_the_screen_shows_the_text_explain_prints() -> None:
    app = _app("worker-crash.yaml")
    async with app.run_test(size=(160, 50)) as pilot:
        await _select(pilot, 100, ("render", 0))
        await pilot.press("w")
        await pilot.pause()
        shown = app.screen.body
        session = app.dashboard.session
        expected = plain(explain_run(session.history, "render", 0, session.clock))
        assert _texts(shown) == [line.lstrip("│├└─ ") for line in expected.splitlines()]


def _texts(tree) -> list[str]:
    found = [str(tree.label)]
    for child in tree.children:
        found += _texts(child)
    return found


def test_rows_map_to_the_run_they_are_about() -> None:
    session = load_session(SCENARIOS / "worker-crash.yaml")
    history = session.history
    history.seek(40)
    engine = history.engine
    assert run_of("occurrence", ("render", 0), engine, None) == ("render", 0)
    assert run_of("worker", "w-b", engine, None) == ("render", 0)
    assert run_of("notification", ("a", 5, 1, "failed", "slack", "#x"), engine, None) == ("a", 5)
    lost = next(i for i, e in enumerate(engine.log) if type(e).__name__ == "AttemptLost")
    assert run_of("event", lost, engine, None) == ("render", 0)
    registered = next(i for i, e in enumerate(engine.log) if type(e).__name__ == "WorkerRegistered")
    assert run_of("event", registered, engine, None) == "This event is not about one run."
    assert run_of("worker", "w-a", engine, None) == "Worker w-a has run nothing yet."
    assert run_of("occurrence", None, engine, None).startswith("Select a row first")
