"""Long jumps (``end``, ``g`` far ahead) play in the background: the progress shows at once, keys
are answered meanwhile, ``escape`` stops one, and wherever a jump ends the screen is what a
direct seek to that tick shows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tui_helpers import (
    CLOCK,
    JOBS,
    POLICY,
    LastToLeave,
    small_session,
    small_timeline,
    until_landed,
    workers_done,
)

from engine.core import Engine
from engine.model.commands import ScheduleJob
from engine.play.ticks import at_ticks
from engine.schedules.kinds import Once
from tests.waiting import until
from tui.app import DashboardApp
from tui.model.indexes import SortedIndex
from tui.model.jump import Jump, Pacer
from tui.model.navigator import Navigator, merge
from tui.model.session import Session, make_session
from tui.screens import playback
from tui.screens.dashboard import DashboardScreen
from tui.widgets.status_header import Progress, StatusHeader
from tui.widgets.timeline import TimelineView
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration

SIZE = (120, 36)
LONG = 5_000


def long_session() -> Session:
    return make_session("long", lambda: Engine(POLICY), at_ticks(small_timeline()), LONG)


def screen_state(screen: DashboardScreen) -> dict:
    """Everything the panes show, as plain values: the rows, title and cursor of every table,
    the lanes, and the header's tick."""
    state: dict = {"tick": screen.navigator.tick}
    for table in screen.query(VirtualTable):
        state[table.id] = [
            " ".join(table.row_text(table.index.key_at(i)).split()) for i in range(len(table.index))
        ]
        state[f"{table.id} title, cursor"] = (str(table.border_title), table.cursor_key)
    lanes = screen.query_one(TimelineView).lanes
    # copies: spans are closed in place as the run goes on
    state["lanes"] = {
        worker: [astuple(span) for span in spans] for worker, spans in lanes.spans.items()
    }
    state["outages"] = {
        worker: [astuple(o) for o in down] for worker, down in lanes.outages.items()
    }
    state["header"] = screen.query_one("#status").summary.split("  ")[1:3]
    return state


async def direct_state(make: Callable[[], Session], *ticks: int) -> dict:
    """The screen after direct seeks to ``ticks``, one after the other, on a fresh copy of the
    run. A table's cursor stays on its row while the row is there (VirtualTable), so the screen
    after a jump that was shown on the way (a key during it catches the views up) is the screen
    after seeks to where it was shown."""
    app = DashboardApp(session=make(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        for tick in ticks:
            screen.apply(screen.navigator.seek(tick))
        await pilot.pause()
        return screen_state(screen)


def shown_ticks(screen: DashboardScreen, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ticks at which ``screen`` shows its views from now on (a list that grows)."""
    ticks: list[int] = []
    show_views = screen.show_views

    def showing() -> None:
        ticks.append(screen.navigator.tick)
        show_views()

    monkeypatch.setattr(screen, "show_views", showing)
    return ticks


async def under_way(screen: DashboardScreen) -> None:
    await until(lambda: screen.navigator.tick > 0, "the jump to move while the app answers keys")


@pytest.fixture
def one_tick_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Slices of one tick: a jump over the long run lasts long enough to press keys during it."""
    monkeypatch.setattr(playback, "SLICE_SECONDS", 0.0)
    monkeypatch.setattr(playback, "Pacer", lambda seconds: Pacer(seconds, size=1, largest=1))


# ------------------------------------------------------------------ the model


@settings(max_examples=25)
@given(sizes=st.lists(st.integers(1, 40), min_size=1, max_size=8), target=st.integers(0, 60))
def test_a_jump_in_any_slices_lands_where_a_direct_seek_does(sizes: list[int], target: int):
    navigator = Navigator(small_session().history)
    jump = Jump(navigator, target)
    fractions = [jump.fraction]
    changes = []
    while not jump.done:
        changes.append(jump.advance(sizes[len(changes) % len(sizes)]))
        fractions.append(jump.fraction)
    assert navigator.tick == target
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert not jump.advance(5).moved, "a finished jump stays put"
    direct = Navigator(small_session().history)
    expected = direct.seek(target)
    moved = [change for change in changes if change.moved]
    if target == 0:
        assert not moved
    else:
        change = merge(moved)
        assert (change.before, change.after) == (0, target)
        assert list(change.events) == list(expected.events)
    assert len(navigator.engine.log) == len(direct.engine.log)


def test_a_jump_to_the_end_of_an_endless_run_lands_on_its_horizon() -> None:
    def quiet_run() -> Session:
        """No ``until``; only one-time jobs, so the run goes quiet after a while."""
        timeline = [(0, command) for _, command in small_timeline()[:3]]
        timeline += [(0, ScheduleJob(spec)) for spec in JOBS if isinstance(spec.schedule, Once)]
        return make_session("quiet", lambda: Engine(POLICY), at_ticks(timeline), None)

    navigator = Navigator(quiet_run().history)
    jump = Jump(navigator, navigator.end_target())
    while not jump.done:
        jump.advance(3)
    reference = Navigator(quiet_run().history)
    reference.last()
    assert navigator.tick == reference.tick == navigator.history.horizon_chunk
    assert len(navigator.engine.log) == len(reference.engine.log) > 0


def test_the_pacer_doubles_after_a_quick_slice_and_halves_after_a_slow_one() -> None:
    pacer = Pacer(0.02, size=8, largest=32)
    pacer.record(0.001)
    assert pacer.size == 16
    pacer.record(0.015)
    assert pacer.size == 16, "about right: unchanged"
    pacer.record(0.001)
    pacer.record(0.001)
    assert pacer.size == 32, "never above the largest"
    for _ in range(10):
        pacer.record(1.0)
    assert pacer.size == 1, "never below one tick"


def test_the_progress_label_says_where_and_how_far() -> None:
    assert Progress(10_080, 0.437).label() == "jump to 10,080: 43%"
    assert Progress(10_080, 0.437).label(short=True) == "43%"


# -------------------------------------------------------------- the dashboard


async def test_end_shows_the_progress_at_once_and_lands_as_a_direct_seek() -> None:
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        screen.action_last()  # the key's handler, without letting the loop run on
        assert screen.jump is not None and screen.navigator.tick == 0
        header = screen.query_one("#status").summary
        assert "jump to 5,000: 0%" in header and "esc stops" in header
        await until_landed(pilot)
        landed = screen_state(screen)
        assert "jump to" not in screen.query_one("#status").summary
    assert landed["tick"] == LONG
    assert landed == await direct_state(long_session, LONG)


async def test_keys_are_answered_while_a_jump_plays(
    one_tick_slices, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        shown = shown_ticks(screen, monkeypatch)
        await pilot.press("end")
        assert screen.jump is not None
        assert "jump to 5,000: " in screen.query_one("#status").summary
        await pilot.press("tab")
        assert screen.jump is not None, "the jump plays on"
        assert screen.active_pane == "workers"
        await under_way(screen)
        await pilot.press("escape")
        assert screen.jump is None
        stopped = screen_state(screen)
        assert "jump to" not in screen.query_one("#status").summary
    assert 0 < stopped["tick"] < LONG
    assert shown[-1] == stopped["tick"]
    assert stopped == await direct_state(long_session, *shown)


async def test_a_move_during_a_jump_starts_from_the_tick_it_reached(
    one_tick_slices, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under load the jump had got to tick 6 when ``left`` came: the retries table, shown there
    with its cursor on doomed@3, kept it there at tick 5, where a seek from the start puts it on
    flaky@1, the first row. The screen is the one seeks to the ticks it was shown at make."""
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        shown = shown_ticks(screen, monkeypatch)
        await pilot.press("end")
        await under_way(screen)
        await pilot.press("left")
        assert screen.jump is None
        moved = screen_state(screen)
        ticks = list(screen.navigator.history.event_ticks)
    assert moved["tick"] in ticks or moved["tick"] == 0
    assert shown[-1] == moved["tick"] and shown[-2] > moved["tick"], "from the tick reached"
    assert moved == await direct_state(long_session, *shown)


async def test_a_command_during_a_jump_applies_at_the_tick_it_reached(one_tick_slices) -> None:
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        await pilot.press("end")
        await under_way(screen)
        await pilot.press(":")
        app.dashboard.command_bar.input.value = "down w1"
        await pilot.press("enter")
        assert screen.jump is None
        reached = screen.navigator.tick
        assert 0 < reached < LONG
        assert screen.navigator.engine.query.worker("w1").down
        assert screen_state(screen)["tick"] == reached


async def test_an_engine_failure_during_a_jump_is_reported_and_ends_it(monkeypatch) -> None:
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        calls = []
        seek = Navigator.seek

        def failing_seek(self, tick):
            calls.append(tick)
            if len(calls) > 2:
                raise RuntimeError("boom")
            return seek(self, tick)

        monkeypatch.setattr(Navigator, "seek", failing_seek)
        await pilot.press("end")
        await until_landed(pilot)
        monkeypatch.undo()
        messages = [notification.message for notification in app._notifications]
        assert any("the engine failed: RuntimeError: boom" in text for text in messages)
        reached = screen_state(screen)
    assert reached == await direct_state(long_session, reached["tick"])


async def test_a_far_go_to_plays_as_a_jump_and_home_stops_it(one_tick_slices) -> None:
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        await pilot.press("g")
        app.screen.input.value = "4000"
        await pilot.press("enter")
        assert screen.jump is not None and screen.jump.target == 4_000
        await pilot.press("home")
        assert screen.jump is None and screen.navigator.tick == 0
        assert screen_state(screen) == await direct_state(long_session, 0)


async def test_a_key_during_a_jump_acts_on_views_caught_up_with_the_engine(
    one_tick_slices, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict] = []
    focus_pane = DashboardScreen.action_focus_pane

    def looking(self: DashboardScreen, direction: int) -> None:
        seen.append(screen_state(self))
        focus_pane(self, direction)

    monkeypatch.setattr(DashboardScreen, "action_focus_pane", looking)
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        await pilot.press("end")
        await under_way(screen)
        await pilot.press("tab")
        assert screen.jump is not None
        await pilot.press("escape")
    assert seen[0]["tick"] > 0
    assert seen[0] == await direct_state(long_session, seen[0]["tick"])


@settings(max_examples=60)
@given(
    width=st.integers(80, 200),
    name=st.text(alphabet="abcdef ,", min_size=1, max_size=70),
    fraction=st.floats(0, 1),
    target=st.integers(0, 10**7),
)
def test_the_header_fits_its_width_and_keeps_the_progress(width, name, fraction, target) -> None:
    header = StatusHeader()
    progress = Progress(target, fraction)
    header.show(name, 1_234, 10_080, CLOCK, False, 10, "", progress)
    line = header._line(width).plain
    assert len(line) <= width
    assert "tick 1,234 / 10,080" in line and "esc stops" in line
    assert f"» {progress.label()}" in line or f"» {progress.label(short=True)}" in line
    assert f"{int(fraction * 100)}%" in line


@settings(max_examples=60)
@given(
    start=st.lists(st.integers(0, 300), max_size=80),
    batches=st.lists(st.lists(st.integers(0, 300), max_size=150), max_size=4),
    filtered=st.booleans(),
)
def test_putting_many_keys_at_once_orders_them_as_one_by_one(start, batches, filtered) -> None:
    """A jump's slice adds its rows with ``put_all`` (appended when they sort last)."""
    together = SortedIndex(lambda key: (key % 17,))
    one_by_one = SortedIndex(lambda key: (key % 17,))
    for index in (together, one_by_one):
        index.reset(set(start))
        if filtered:
            index.set_filter(lambda key: key % 3 != 0)
    for batch in batches:
        together.put_all(batch)
        for key in batch:
            one_by_one.put(key)
        assert list(together.keys()) == list(one_by_one.keys())
        shown = [together.key_at(i) for i in range(len(together))]
        assert shown == [one_by_one.key_at(i) for i in range(len(one_by_one))]
        assert all(together.position(key) == shown.index(key) for key in shown)


async def test_a_reload_far_ahead_plays_back_to_the_tick_as_a_jump() -> None:
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        await pilot.press("end")
        await until_landed(pilot)
        screen.load(long_session(), keep_tick=True)
        assert screen.jump is not None and screen.jump.target == LONG
        assert "jump to 5,000: " in screen.query_one("#status").summary
        await until_landed(pilot)
        reloaded = screen_state(screen)
    assert reloaded == await direct_state(long_session, LONG)


async def test_a_jump_whose_worker_is_cancelled_is_over(one_tick_slices) -> None:
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        await pilot.press("end")
        assert screen.jump is not None
        screen.workers.cancel_group(screen, "jump")  # as when the app closes
        await until(lambda: screen.jump is None, "the cancelled jump to be over")
        await pilot.press("right")
        assert screen.navigator.tick > 0


async def test_a_jump_playing_as_the_app_quits_leaves_the_screen_alone(one_tick_slices) -> None:
    """Under load a jump's next slice came as the app quit: after the screen's widgets were gone,
    before Textual cancelled the screen's workers, and it failed on a widget that was gone
    (``NoMatches("TimelineView")``). The screen is taken down by then: the jump ends there."""
    app = DashboardApp(session=long_session(), watch=False, blink=False)
    async with app.run_test(size=SIZE):
        screen = app.dashboard
        screen.seek(LONG)
        await under_way(screen)
        await screen.mount(LastToLeave(lambda: workers_done(app, "jump")))
    # the app has quit while the jump played: nothing failed
