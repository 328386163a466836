"""The live dashboard's audit: a service that stops answering, what a live job's detail says,
the cause of a run failed for good, the ruler's labels, ``home``, the header at the head, the
help, priorities by name, and a database that is not a service's."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import io
import re
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console
from rich.style import Style
from tui_helpers import POLICY, LastToLeave, pane_text, small_session, workers_done

from cronlapse.cli import tui as cli_tui
from cronlapse.service.store import SERVICE_POLICY, open_store
from engine.model.policies import OnTimeout
from engine.model.records import OccurrenceState
from tests.service.conftest import TOKEN, Server, free_port
from tests.tui.test_live_dashboard import (
    START,
    Answering,
    Wall,
    complete_running,
    header,
    journal_readings,
    occurrence_rows,
    recorded_service,
    serve,
    still_app,
    type_command,
)
from tests.waiting import until
from tui import detail_text
from tui.app import DashboardApp
from tui.live_app import LiveDashboardApp, live_app
from tui.model.live import STALL_SECONDS, open_live
from tui.model.live_api import ApiRequest
from tui.model.timefmt import short
from tui.screens import live as live_screen
from tui.screens.help import HelpScreen
from tui.widgets.cancellations import CancellationsTable
from tui.widgets.occurrences import OccurrencesTable
from tui.widgets.timeline import SCALES, TimelineView


def text(renderable) -> str:
    """The renderable as one line of words (the detail pane's columns, without their padding)."""
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(renderable)
    return " ".join(console.export_text().split())


def last_row_tick(server: Server) -> int:
    store = open_store(f"sqlite:///{server.db}")
    try:
        return list(store.journal.rows_after(0))[-1].tick
    finally:
        store.close()


def notices(app) -> list[str]:
    return [notification.message for notification in app._notifications]


# ------------------------------------------------------- a service that stops answering


@pytest.mark.e2e
async def test_a_service_that_stops_answering_holds_the_head_at_its_last_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed, the service journals nothing: the header says so, the head stays at the last
    row (no run is made up after it) and comes back to LIVE when the service answers again."""
    monkeypatch.setattr(live_screen, "HEALTH_SECONDS", 0.2)
    monkeypatch.delenv("CRONLAPSE_TOKEN", raising=False)
    server = Server(tmp_path, "workers: 1\n", speed="20", token=TOKEN)
    server.start()
    try:
        app = live_app(f"sqlite:///{server.db}", None, None, blink=False)
        async with app.run_test(size=(140, 40)):
            screen = app.dashboard
            await until(lambda: "● LIVE" in header(app), "the live head")
            with server.client() as http:
                assert http.post("/job", json={"id": "tick", "every": 5}).status_code == 201
            await until(lambda: any("tick" in r for r in occurrence_rows(app)), "a run")
            port = server.port
            server.kill()
            last = last_row_tick(server)
            await until(lambda: "NOT RESPONDING since" in header(app), "the outage")
            assert "● LIVE" not in header(app)
            clocks = journal_readings(app.source, monkeypatch)  # 20 ticks a second
            await until(lambda: any(clock > last + 10 for clock in clocks), "the clock to run on")
            assert screen.navigator.tick == last == screen.navigator.history.until
            assert all(tick <= last for _, tick in screen.navigator.engine.query.records())

            server.start(port=port)
            await until(lambda: "● LIVE" in header(app), "the service back")
            await until(lambda: screen.navigator.tick > last, "following again")
    finally:
        server.kill()


class HeldService(Answering):
    """A service whose answers to one kind of request (``health`` or ``send``) come only once
    the test lets them go."""

    def __init__(self, held: str) -> None:
        super().__init__()
        self.held = held
        self.asked = 0
        self.let_go = asyncio.Event()

    async def health(self) -> str | None:
        if self.held == "health":
            await self._hold()
        return None

    async def send(self, request: ApiRequest) -> tuple[bool, str]:
        if self.held == "send":
            await self._hold()
        return True, f"{request.verb}: {request}: 204"

    async def _hold(self) -> None:
        self.asked += 1
        await self.let_go.wait()


@pytest.mark.integration
@pytest.mark.parametrize("held", ["health", "send"])
async def test_an_answer_that_comes_as_the_app_quits_leaves_the_screen_alone(
    tmp_path: Path, held: str
) -> None:
    """Under load the health check's answer came as the app quit: after the screen's widgets
    were gone, before Textual cancelled the screen's workers. Following the journal then failed
    on a widget that was gone (``NoMatches("TimelineView")``); a command's answer would too.
    The screen is taken down by then, and an answer leaves it alone."""
    service = HeldService(held)
    app = LiveDashboardApp(open_live(*recorded_service(tmp_path)), service, blink=False)

    async def answer() -> None:
        service.let_go.set()
        await workers_done(app, "live-health", "live-api")

    async with app.run_test(size=(140, 40)) as pilot:
        await until(lambda: "● LIVE" in header(app), "the live head")
        if held == "send":
            await type_command(pilot, "delete a")
        await until(lambda: service.asked, f"a {held} request under way")
        await app.dashboard.mount(LastToLeave(answer))
    # the app has quit, and the answers came as its screen was taken down: nothing failed


class RefusingService(HeldService):
    """A held service that refuses what it is sent, as the API does a job it does not have."""

    async def send(self, request: ApiRequest) -> tuple[bool, str]:
        await super().send(request)
        return False, f"{request.verb}: 404 no job"


@pytest.mark.integration
@pytest.mark.parametrize("accepted", [True, False])
async def test_a_command_sent_to_the_service_closes_the_line_before_its_answer(
    tmp_path: Path, accepted: bool
) -> None:
    """The service answers later: the line used to stay open until it did, and a ``:`` typed
    meanwhile joined the line sent. It closes as it is sent; the answer, a refusal too, comes
    as a toast and leaves the line typed meanwhile alone (``up`` recalls the one sent)."""
    service = HeldService("send") if accepted else RefusingService("send")
    app = LiveDashboardApp(open_live(*recorded_service(tmp_path)), service, blink=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await until(lambda: "● LIVE" in header(app), "the live head")
        bar = app.dashboard.command_bar
        await pilot.press(":", *"delete a", "enter")
        await until(lambda: service.asked, "the request under way")
        assert not bar.is_open
        await pilot.press(":", *"sch")
        assert bar.is_open and bar.input.value == "sch"
        service.let_go.set()
        await until(lambda: app.dashboard.answers, "the answer")
        await until(lambda: "delete" in " ".join(notices(app)), "the answer's toast")
        toast = list(app._notifications)[-1]
        assert toast.severity == ("information" if accepted else "error")
        assert bar.is_open and bar.input.value == "sch" and not str(bar.message.render())


UNIX_TICK = re.compile(r"\d{7}|\d,\d{3},\d{3}|\d…\d")
"""A live tick as a number (``1000012``, ``1,000,012``) or a number cut (``1796…8930``)."""


@pytest.mark.integration
async def test_the_live_dashboard_shows_its_ticks_as_times(tmp_path: Path) -> None:
    """A live service's ticks are Unix seconds: as numbers they say nothing (``1796…8930``
    cut to a column). The tables, the header, the ruler and the detail's times show them as
    times, as the time columns of a scenario with a clock do; a run is ``job@time``."""
    app = still_app(tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(lambda: "● LIVE" in header(app), "the live head")
        screen = app.dashboard
        clock = screen.session.clock
        for pane in ("workers", "occurrences", "timeline"):
            screen.query_one(f"#{pane}").focus()
            await pilot.pause()
            shown = [*pane_text(app, pane), *pane_text(app, "detail")[:8], header(app)]
            assert not [line for line in shown if UNIX_TICK.search(line)], pane
        assert short(clock, screen.navigator.tick) in header(app)
        events = [line.split()[:3] for line in pane_text(app, "events")[1:] if line.strip()]
        assert events and not [words for words in events if UNIX_TICK.search(" ".join(words))]
        assert [short(clock, START + 1), "started", f"a@{short(clock, START + 1)}"] in events


@pytest.mark.integration
def test_a_journal_that_stops_while_the_clock_runs_is_a_stalled_service(tmp_path: Path) -> None:
    """The heartbeat: a run falls due after the last row, the service's clock passes it and no
    row comes (a running service journals a clock reading within milliseconds): the head goes
    back to the last row, until the journal moves again."""
    wall = Wall()
    live = serve(tmp_path / "a.db", wall, workers=1)
    source = open_live(f"sqlite:///{tmp_path / 'a.db'}", wall)
    live.submit("schedule", {"id": "a", "every": 10, "first": "+5"})
    source.poll()
    last = source.last_row_tick
    wall.now += 8  # the run is due at +5; the service journals nothing (stalled)
    source.poll()
    source.navigator.seek(source.head)
    assert source.history.engine.query.run_state("a", START + 5) is OccurrenceState.RUNNING
    assert source.not_responding_since() is None  # not late enough to tell
    wall.now += STALL_SECONDS + 1
    changes, _ = source.poll()
    assert source.not_responding_since() == START + 5
    assert source.head == last == source.history.until == source.navigator.tick
    assert [change.forward for change in changes] == [False]  # the made-up run is undone
    assert source.history.engine.query.run_state("a", START + 5) is not OccurrenceState.RUNNING
    source.poll()  # its recording past the head is forgotten: it stays stalled
    assert source.not_responding_since() == START + 5 and source.navigator.tick == last
    source.navigator.step(1)
    assert source.navigator.tick == last  # nothing to step to past the held head

    live.advance_clock()  # the service goes on: its clock reading is journaled
    source.poll()
    assert source.not_responding_since() is None
    assert source.head == START + 8 + STALL_SECONDS + 1
    complete_running(live)
    live.store.close()
    source.reader.close()


@pytest.mark.e2e
async def test_an_unreachable_url_and_a_wrong_token_are_said_at_attach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CRONLAPSE_TOKEN", raising=False)
    server = Server(tmp_path, "workers: 1\n", speed="10", token=TOKEN)
    server.start()
    wrong = tmp_path / "wrong-token"
    wrong.write_text("not-the-token\n", encoding="utf-8")
    try:
        app = live_app(f"sqlite:///{server.db}", None, str(wrong), blink=False)
        async with app.run_test(size=(140, 40)):
            await until(lambda: any("refuses the token" in n for n in notices(app)), "the token")
            assert "● LIVE" in header(app)  # it answers: the journal is followed as ever
        nowhere = f"http://127.0.0.1:{free_port()}"
        app = live_app(f"sqlite:///{server.db}", nowhere, None, blink=False)
        async with app.run_test(size=(140, 40)):
            await until(lambda: any("does not answer" in n for n in notices(app)), "the url")
            assert any(nowhere in n for n in notices(app))
            await until(lambda: "NOT RESPONDING" in header(app), "the header")
    finally:
        server.kill()


# ------------------------------------------------------------------ the panes


@pytest.mark.integration
def test_a_live_jobs_detail_says_who_ends_its_attempts_and_its_real_timeout(
    tmp_path: Path,
) -> None:
    wall = Wall()
    live = serve(tmp_path / "a.db", wall, workers=1)
    live.submit("schedule", {"id": "own", "every": 60, "timeout": 30})
    live.submit("schedule", {"id": "default", "every": 60, "priority": "high"})
    shown = text(detail_text.job("default", live.engine, None))
    assert "set by the executor" in shown and "duration 1" not in shown
    assert "300, the policy's default" in shown and "timeout none" not in shown
    assert "timeout 30" in text(detail_text.job("own", live.engine, None))
    assert live.engine.policy == SERVICE_POLICY
    live.store.close()


@pytest.mark.integration
def test_a_priority_reads_as_its_name_in_the_detail_and_the_table(tmp_path: Path) -> None:
    wall = Wall()
    live = serve(tmp_path / "a.db", wall, workers=1)
    live.submit("schedule", {"id": "x", "every": 60, "first": "+1", "priority": "high"})
    live.submit("schedule", {"id": "y", "every": 60, "first": "+1", "priority": 7})
    assert "priority 2 (high)" in text(detail_text.job("x", live.engine, None))
    assert "priority 7 " in text(detail_text.job("y", live.engine, None))
    wall.now += 1
    live.advance_clock()
    assert "priority 2 (high)" in text(detail_text.occurrence(("x", START + 1), live.engine, None))
    live.store.close()


@pytest.mark.integration
async def test_the_occurrences_table_names_the_priority(app: DashboardApp) -> None:
    async with app.run_test(size=(160, 48)):
        app.dashboard.seek(2)
        table = app.dashboard.query_one(OccurrencesTable)
        etl = table.row_text(("etl", 0)).split()
        assert "medium" in etl and "1" not in etl[5:]  # etl has priority 1


@pytest.mark.integration
async def test_a_run_taken_back_by_on_timeout_is_not_said_to_have_used_its_retries() -> None:
    """seed 003's on_timeout: next_run fails a timed-out run for good, retries left or not."""
    policy = dataclasses.replace(POLICY, on_timeout=OnTimeout.NEXT_RUN)
    app = DashboardApp(session=small_session(policy=policy), watch=False, blink=False)
    async with app.run_test(size=(160, 48)):
        app.dashboard.seek(12)
        table = app.dashboard.query_one(CancellationsTable)
        stuck = " ".join(table.row_text(("stuck", 4)).split())
        assert stuck.startswith("stuck 4 FAILED 1/2 timed_out")
        assert "retries exhausted" not in stuck and "on_timeout" in stuck
        doomed = " ".join(table.row_text(("doomed", 3)).split())
        assert doomed.endswith("failed retries exhausted")


class _Now:
    def __init__(self, now: int) -> None:
        self.now = now


@pytest.mark.parametrize("now", [59, 1_439, 1_000_000, 1_796_322_900, 10**12 - 7])
@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("columns", [30, 71, 140])
def test_every_ruler_label_is_whole_and_names_its_columns_tick(now, scale, columns) -> None:
    timeline = TimelineView()
    timeline.engine = _Now(now)  # type: ignore[assignment]
    timeline.scale_index = SCALES.index(scale)
    start, columns = timeline._window(columns + timeline.label + 1)
    cells = timeline._axis(start, columns, columns + timeline.label + 1, Style()).text
    ruler = cells[timeline.label + 1 :]
    labels = 0
    for column, char in enumerate(ruler):
        if char != "|":
            continue
        digits = ""
        for after in ruler[column + 1 :]:
            if not after.isdigit():
                break
            digits += after
        assert digits and int(digits) == start + column * scale, (column, ruler)
        labels += 1
    assert labels >= 1 or columns < 12, ruler


# -------------------------------------------------------------- the live screen


@pytest.mark.integration
async def test_home_goes_to_the_first_journal_row(tmp_path: Path) -> None:
    app = still_app(tmp_path)
    async with app.run_test(size=(110, 24)) as pilot:
        await until(lambda: "● LIVE" in header(app), "the live head")
        await pilot.press("home")
        assert app.dashboard.navigator.tick == START  # the first row (registering the worker)
        assert "w1" in app.dashboard.navigator.engine.query.workers()
        await pilot.press("left")
        assert app.dashboard.navigator.tick == START


@pytest.mark.integration
async def test_at_the_head_the_header_says_it_follows_and_space_says_why_it_does_not_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = still_app(tmp_path)
    async with app.run_test(size=(110, 24)) as pilot:
        screen = app.dashboard
        await until(lambda: "● LIVE" in header(app), "the live head")
        assert "following" in header(app)
        assert "paused" not in header(app) and "/s" not in header(app)
        await pilot.press("space")
        assert not screen.playing
        assert any("follows the service" in n for n in notices(app))
        await pilot.press("plus")
        assert any("when rewound" in n for n in notices(app))
        await pilot.press("home")
        assert "❚❚ paused" in header(app) and "/s" in header(app)
        home, played_from = screen.navigator.tick, []
        play_frame = screen.play_frame

        def frame() -> None:
            played_from.append(screen.navigator.tick)
            play_frame()

        monkeypatch.setattr(screen, "play_frame", frame)
        await pilot.press("space")  # plays in real time: may be back at the head by the next line
        await until(lambda: "following" in header(app), "back at the head by playing")
        assert played_from[0] == home and not screen.playing


@pytest.mark.integration
async def test_the_help_has_a_live_section_and_reload_says_why_not(tmp_path: Path) -> None:
    app = still_app(tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        await until(lambda: "● LIVE" in header(app), "the live head")
        await pilot.press("r")
        said = notices(app)
        assert not any("Nothing to reload" in n for n in said)
        assert any("journal" in n and "reload" in n for n in said)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        live = text(app.screen.query_one("#help-notes").content)
        for words in ("schedule, modify, cancel, delete", "what-if", "as the real service"):
            assert words in live
        assert "o " in live and "r " in live


@pytest.mark.integration
async def test_a_what_if_says_its_attempts_end_only_as_the_service_reported(
    tmp_path: Path,
) -> None:
    app = still_app(tmp_path)
    async with app.run_test(size=(110, 24)) as pilot:
        await until(lambda: "● LIVE" in header(app), "the live head")
        await pilot.press("left", "left")
        await type_command(pilot, "pause a")
        await until(lambda: "WHAT-IF" in header(app), "the what-if")
        await until(
            lambda: any("as the real service reported" in n for n in notices(app)),
            "the what-if's limit",
        )


# ---------------------------------------------------------------- the database


@pytest.mark.integration
def test_a_database_that_is_not_a_services_is_one_line_and_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    with sqlite3.connect(junk) as db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    parser = argparse.ArgumentParser()
    cli_tui.add_parser(parser.add_subparsers(dest="command"))
    err = io.StringIO()
    assert cli_tui.run(parser.parse_args(["tui", "--db", f"sqlite:///{junk}"]), err, err) == 2
    said = err.getvalue()
    assert said == f"cronlapse tui: {junk}: not a cronlapse database (it has no journal)\n"
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is no database at all" * 100)
    err = io.StringIO()
    assert cli_tui.run(parser.parse_args(["tui", "--db", f"sqlite:///{garbage}"]), err, err) == 2
    assert err.getvalue().count("\n") == 1 and "SELECT" not in err.getvalue()
    assert "cannot read a service journal: file is not a database" in err.getvalue()
