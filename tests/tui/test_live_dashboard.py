"""The dashboard attached to a live service: its journal replayed into a history, followed at
the head, rewound, a what-if kept local, and real commands sent through the API."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.cli import tui as cli_tui
from cronlapse.service.clock import Anchor, LiveClock
from cronlapse.service.config import Config
from cronlapse.service.live import LiveService
from cronlapse.service.store import (
    CLOCK_KEY,
    ENGINE_CLOCK,
    Entry,
    JournalRow,
    JournalUnreadable,
    Snapshot,
    StoreFailure,
    open_journal_reader,
    open_store,
)
from engine.core import Engine
from engine.model.commands import PauseJob
from engine.model.journaled import values
from engine.model.records import OccurrenceState
from tests.service.conftest import TOKEN, Server, free_port
from tests.waiting import until
from tui.live_app import LiveDashboardApp, live_app
from tui.model.commandline import CommandError
from tui.model.live import LiveSource, Mode, open_live
from tui.model.live_api import ServiceApi, api_request, find_token
from tui.model.timefmt import UnixClock, short
from tui.widgets.occurrences import OccurrencesTable
from tui.widgets.status_header import StatusHeader

START = 1_000_000
TABLES = ("jobs", "workers", "records", "notifications")
"""The query's tables of records compared, each a mapping of key to record."""


class Wall:
    """A wall clock the test moves (the service's and the viewer's: one machine)."""

    def __init__(self) -> None:
        self.now = float(START)

    def __call__(self) -> float:
        return self.now


def serve(db: Path, wall: Wall, **config: int) -> LiveService:
    """The service in-process, as ``cronlapse serve`` opens it, on a clock the test moves."""
    store = open_store(f"sqlite:///{db}")
    saved = store.journal.get_meta(CLOCK_KEY)
    clock = LiveClock.resume(None if saved is None else Anchor.loads(saved), 1.0, wall)
    store.journal.set_meta(CLOCK_KEY, clock.anchor.dumps())
    live = LiveService(store, clock, Config(**config))
    live.open()
    return live


def complete_running(live: LiveService, ok: bool = True) -> None:
    for job_id, scheduled in list(live.engine.query.record_keys(OccurrenceState.RUNNING)):
        attempt = live.engine.query.record(job_id, scheduled).running_attempt
        assert attempt is not None
        args = {"job": job_id, "scheduled": scheduled, "attempt": attempt.number, "ok": ok}
        live.submit("complete", args)


def tables(engine: Engine) -> dict:
    return {
        table: {key: values(record) for key, record in getattr(engine.query, table)().items()}
        for table in TABLES
    }


def caught_up(source: LiveSource) -> LiveSource:
    """Every row read, and the history at the live head."""
    while source.poll()[1]:
        pass
    source.navigator.seek(source.head)
    return source


# ------------------------------------------------------------------ the source


STEP = st.one_of(
    st.tuples(st.just("schedule"), st.integers(0, 4), st.integers(1, 40)),
    st.tuples(st.just("wait"), st.integers(1, 90), st.just(0)),
    st.tuples(st.just("complete"), st.booleans(), st.just(0)),
    st.tuples(st.just("cancel"), st.integers(0, 4), st.just(0)),
    st.tuples(st.just("delete"), st.integers(0, 4), st.just(0)),
    st.tuples(st.just("modify"), st.integers(0, 4), st.integers(1, 40)),
    st.tuples(st.just("poll"), st.just(0), st.just(0)),
    st.tuples(st.just("rewind"), st.integers(1, 100), st.just(0)),
    st.tuples(st.just("restart"), st.integers(0, 400), st.just(0)),
    st.tuples(st.just("what-if"), st.integers(0, 4), st.integers(0, 100)),
)


@pytest.mark.integration
@settings(max_examples=30)
@given(steps=st.lists(STEP, max_size=30))
def test_the_replayed_journal_is_the_services_state(steps) -> None:
    """Whatever the service did, and however the viewer polled, moved and tried what-ifs
    meanwhile, the history (the what-if dropped) at the service's tick has the service's jobs,
    workers, runs and outbox, record for record."""
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        db = Path(directory) / "live.db"
        wall = Wall()
        live = serve(db, wall, workers=2, misfire_grace=60)
        source = open_live(f"sqlite:///{db}", wall)
        for verb, number, value in steps:
            if verb == "schedule":
                live.submit("schedule", {"id": f"j{number}", "every": value, "max_retries": 1})
            elif verb == "wait":
                wall.now += number
                live.advance_clock()
            elif verb == "complete":
                complete_running(live, ok=bool(number))
            elif verb == "modify":
                live.submit("modify", {"job": f"j{number}", "every": value, "priority": "high"})
            elif verb == "poll":
                source.poll()
            elif verb == "rewind":
                source.navigator.seek(source.navigator.tick - number)
            elif verb == "what-if":  # rewound, a local command on top of the real run
                source.following = False
                source.navigator.seek(source.navigator.tick - value)
                source.navigator.apply(PauseJob(f"j{number}"))
            elif verb == "restart":  # a downtime past the grace journals its catch-up
                live.store.close()
                wall.now += number
                live = serve(db, wall, workers=2, misfire_grace=60)
            elif f"j{number}" in live.engine.query.jobs():
                live.submit(verb, {"job": f"j{number}"})
        caught_up(source)
        source.drop_what_if()
        source.navigator.seek(live.engine.now)
        assert source.navigator.tick == live.engine.now
        assert tables(source.history.engine) == tables(live.engine)
        live.store.close()
        source.reader.close()


@pytest.mark.integration
def test_new_rows_are_picked_up_and_the_clock_moves_the_head(tmp_path: Path) -> None:
    wall = Wall()
    live = serve(tmp_path / "a.db", wall, workers=1)
    source = caught_up(open_live(f"sqlite:///{tmp_path / 'a.db'}", wall))
    assert source.head == START
    assert not source.history.engine.query.jobs()
    wall.now += 7  # the journal is idle: the head moves with the service's clock
    source.poll()
    assert source.head == START + 7 == source.history.until
    live.submit("schedule", {"id": "a", "every": 10, "first": "+3"})
    changes, read = source.poll()
    assert read == 1 and not changes  # the row's tick is ahead of the history: nothing undone
    source.navigator.seek(source.head)
    assert "a" in source.history.engine.query.jobs()
    wall.now += 3
    live.advance_clock()
    source.poll()
    source.navigator.seek(source.head)
    assert source.history.engine.query.run_state("a", START + 10) is OccurrenceState.RUNNING


@pytest.mark.integration
def test_a_row_for_a_tick_already_played_moves_back_takes_it_and_returns(tmp_path: Path) -> None:
    wall = Wall()
    live = serve(tmp_path / "a.db", wall, workers=1)
    source = caught_up(open_live(f"sqlite:///{tmp_path / 'a.db'}", wall))
    live.submit("schedule", {"id": "a", "every": 5, "first": "+1"})
    wall.now += 20
    live.advance_clock()
    caught_up(source)
    played = source.navigator.tick
    complete_running(live)  # reported at the service's tick, behind the viewer's head
    wall.now += 2
    changes, _ = source.poll()
    assert [change.forward for change in changes] == [False, True]
    assert source.navigator.tick == played
    source.navigator.seek(live.engine.now)
    assert tables(source.history.engine) == tables(live.engine)


@pytest.mark.integration
def test_a_restart_after_downtime_is_read_from_the_real_state_not_a_what_if(
    tmp_path: Path,
) -> None:
    wall = Wall()
    live = serve(tmp_path / "a.db", wall, workers=1, misfire_grace=60)
    live.submit("schedule", {"id": "a", "every": 10, "first": "+10", "catch_up": "skip"})
    wall.now += 5
    live.submit("schedule", {"id": "b", "at": "+1000"})  # the service's engine is at START + 5
    source = caught_up(open_live(f"sqlite:///{tmp_path / 'a.db'}", wall))
    source.navigator.seek(START + 4)
    assert source.navigator.apply(PauseJob("a"))[0].accepted  # in the what-if, "a" is paused
    live.store.close()
    wall.now += 200
    live = serve(tmp_path / "a.db", wall, workers=1, misfire_grace=60)  # journals a downtime
    caught_up(source)
    assert source.mode() is Mode.WHAT_IF  # kept across the downtime
    source.drop_what_if()
    source.navigator.seek(live.engine.now)
    assert tables(source.history.engine) == tables(live.engine)


@pytest.mark.integration
def test_modes_follow_the_head_rewind_and_a_local_what_if(tmp_path: Path) -> None:
    wall = Wall()
    live = serve(tmp_path / "a.db", wall, workers=1)
    live.submit("schedule", {"id": "a", "every": 5})
    wall.now += 30
    live.advance_clock()
    source = caught_up(open_live(f"sqlite:///{tmp_path / 'a.db'}", wall))
    assert source.mode() is Mode.LIVE
    source.following = False
    source.navigator.seek(START + 10)
    assert source.mode() is Mode.REWOUND and source.behind() == 20
    source.navigator.apply(PauseJob("a"))
    assert source.mode() is Mode.WHAT_IF
    changes = source.drop_what_if()
    assert [change.forward for change in changes] == [False]
    assert source.mode() is Mode.REWOUND
    source.navigator.seek(live.engine.now)
    assert tables(source.history.engine) == tables(live.engine)  # the what-if left no trace


@pytest.mark.integration
def test_opening_reads_a_long_journal_in_slices_with_progress(tmp_path: Path) -> None:
    wall = Wall()
    live = serve(tmp_path / "a.db", wall, workers=1)
    for number in range(25):
        live.submit("schedule", {"id": f"j{number}", "at": "+1000"})
    source = open_live(f"sqlite:///{tmp_path / 'a.db'}", wall)
    progress = []
    while source.poll(limit=10)[1]:
        progress.append(source.loaded)
    assert progress == [10 / 26, 20 / 26, 1.0]  # the register row, then 25 jobs
    assert source.seq == source.total == 26


def compacted_service(db: Path, wall: Wall) -> LiveService:
    """A service whose history's retention (5 minutes) compacted its journal: two jobs a
    minute, an hour long, a snapshot every 20 rows (each forgetting the engine's finished
    runs)."""
    live = serve(db, wall, workers=2, snapshot_every=20, retention=300)
    for job_id in ("a", "b"):
        live.submit("schedule", {"id": job_id, "every": 60, "max_retries": 0})
    for minute in range(60):
        wall.now += 60
        live.advance_clock()
        complete_running(live, ok=minute % 4 != 0)
    assert live.store.journal.compacted() > 0
    return live


def live_tables(engine: Engine) -> dict:
    """:func:`tables` with the live runs only (an engine that forgot runs reads its archive
    by key): the service forgets its finished runs at each snapshot, the dashboard's engine
    none after its start."""
    query = engine.query
    found = {table: getattr(query, table)() for table in ("jobs", "workers", "notifications")}
    found["records"] = query.live_records()
    return {table: {key: values(found[table][key]) for key in found[table]} for table in found}


@pytest.mark.integration
def test_a_compacted_journal_opens_at_its_oldest_kept_snapshot_and_rewinds_to_it(
    tmp_path: Path,
) -> None:
    """The rows before the oldest kept snapshot are deleted: the history starts from that
    snapshot's state, replays the rows after it, and goes back to its tick and no further;
    the keyframes taken since restore exactly though the snapshot's engine forgot runs."""
    wall = Wall()
    live = compacted_service(tmp_path / "a.db", wall)
    oldest = live.store.journal.oldest_snapshot()
    assert oldest is not None
    source = caught_up(open_live(f"sqlite:///{tmp_path / 'a.db'}", wall))
    start = source.first_tick
    assert start is not None and source.start is not None and START < start < live.engine.now
    head = source.history.tick
    assert head == live.engine.now
    assert live_tables(source.history.engine) == live_tables(live.engine)
    runs = source.history.engine.query.count_runs(job_id="a")
    source.navigator.seek(0)
    assert source.history.tick == start, "no further back than the snapshot"
    assert source.history.engine.query.count_runs(job_id="a") < runs
    assert not source.history.step_back()
    assert source.history.step_forward() and source.history.tick > start
    source.navigator.seek(head)
    assert live_tables(source.history.engine) == live_tables(live.engine)
    assert source.history.engine.query.count_runs(job_id="a") == runs
    refused = source.history
    refused.seek(start)
    assert refused.apply(PauseJob("a")).problem is not None, "nothing before the start to redo"
    note = source.start_note(UnixClock.of(ENGINE_CLOCK))
    assert note is not None and "oldest snapshot" in note and "retention" in note


class UnreadableAfterSnapshot:
    """A reader whose first row after the oldest snapshot, at its tick, no longer reads (as
    after a reader grew stricter than the code that wrote it)."""

    def __init__(self, reader, oldest: Snapshot, tick: int) -> None:
        self.reader, self.oldest = reader, oldest
        self.row: JournalRow | None = JournalRow(oldest.seq, tick, 0, "schedule", {})

    def rows_after(self, seq: int, limit: int) -> list[JournalRow]:
        rows = self.reader.rows_after(seq, limit)
        if seq == self.oldest.seq and self.row is not None:
            rows, self.row = [self.row, *rows[: limit - 1]], None
        return rows

    def __getattr__(self, name: str):
        return getattr(self.reader, name)


@pytest.mark.integration
def test_a_row_at_the_start_of_a_compacted_journal_that_no_longer_reads_is_said_and_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The rows read with the oldest snapshot are left out as every other unreadable row is:
    logged, counted in ``skipped``, and the history the same as without them."""
    wall = Wall()
    live = compacted_service(tmp_path / "a.db", wall)
    reader = open_journal_reader(f"sqlite:///{tmp_path / 'a.db'}")
    oldest = reader.oldest_snapshot()
    assert oldest is not None
    tick = oldest.driver().engine.now
    with caplog.at_level("WARNING", logger="cronlapse.tui"):
        source = caught_up(LiveSource(UnreadableAfterSnapshot(reader, oldest, tick), wall))
    assert source.skipped == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"journal row {oldest.seq} no longer reads (missing required key 'id'): skipped"
    ]
    assert live_tables(source.history.engine) == live_tables(live.engine)


@pytest.mark.integration
def test_the_journal_is_opened_read_only(tmp_path: Path) -> None:
    with pytest.raises(JournalUnreadable, match="no such database file"):
        open_journal_reader(f"sqlite:///{tmp_path / 'missing.db'}")
    assert not (tmp_path / "missing.db").exists()
    (tmp_path / "other.db").write_bytes(b"")
    with pytest.raises(JournalUnreadable, match="not a cronlapse database"):
        open_journal_reader(f"sqlite:///{tmp_path / 'other.db'}")
    live = serve(tmp_path / "a.db", Wall())
    reader = open_journal_reader(f"sqlite:///{tmp_path / 'a.db'}")
    with pytest.raises(Exception, match="readonly"), reader.db.begin() as conn:
        conn.exec_driver_sql("DELETE FROM journal")
    assert reader.last_seq() == live.store.journal.last_seq()


def test_the_clock_key_is_the_servers() -> None:
    from cronlapse.service.server import CLOCK_KEY as SERVER_KEY

    assert CLOCK_KEY == SERVER_KEY


# ------------------------------------------------------------- the dashboard


def journal_readings(source: LiveSource, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The service's clock at each reading of the journal from now on (a list that grows)."""
    clocks: list[int] = []
    poll = source.poll

    def reading(*args: int) -> tuple:
        clocks.append(source.clock())
        return poll(*args)

    monkeypatch.setattr(source, "poll", reading)
    return clocks


def occurrence_rows(app) -> list[str]:
    table = app.dashboard.query_one(OccurrencesTable)
    index = table.index
    return [table.row_text(index.key_at(row)) for row in range(len(index))]


def header(app) -> str:
    return app.dashboard.query_one(StatusHeader).summary


async def type_command(pilot, line: str) -> None:
    """Type ``line`` on the command line and press enter (as tests/tui/test_commands.py does)."""
    pilot.app.dashboard.command_bar.open("command", line)
    await pilot.press("enter")


def journal_verbs(server: Server) -> list[tuple[str, dict]]:
    store = open_store(f"sqlite:///{server.db}")
    try:
        return [(row.verb, row.args) for row in store.journal.rows_after(0)]
    finally:
        store.close()


@pytest.mark.e2e
async def test_the_dashboard_follows_a_real_service_rewinds_and_sends_only_live_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CRONLAPSE_TOKEN", raising=False)
    server = Server(tmp_path, "workers: 2\n", speed="10", token=TOKEN)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    server.start()
    try:
        app = live_app(f"sqlite:///{server.db}", None, str(token_file), blink=False)
        assert app.api.base_url == server.url  # the server wrote where it listens
        async with app.run_test(size=(140, 40)) as pilot:
            screen = app.dashboard
            await until(lambda: "● LIVE" in header(app), "the live head")
            with server.client() as http:
                assert http.post("/job", json={"id": "pilot", "every": 3600}).status_code == 201
            await until(
                lambda: any("pilot" in row and "SUCCEEDED" in row for row in occurrence_rows(app)),
                "the run in the occurrences table",
            )

            ran = max(
                tick for job, tick in screen.navigator.engine.query.records() if job == "pilot"
            )
            await until(lambda: screen.navigator.tick > ran + 1, "the head past the run")
            await pilot.press("left")  # to the run's last event: the job exists there
            assert "REWOUND" in header(app)
            await type_command(pilot, "delete pilot")
            await until(lambda: "WHAT-IF" in header(app), "the what-if")
            assert screen.navigator.engine.query.job("pilot").deleted  # locally
            polls = journal_readings(app.source, monkeypatch)
            await until(lambda: len(polls) >= 3, "the journal read on meanwhile")
            with server.client() as http:
                assert http.get("/job/pilot").status_code == 200
            assert "delete" not in [verb for verb, _ in journal_verbs(server)]

            await pilot.press("end")
            await until(lambda: "● LIVE" in header(app), "back at the live head")
            assert not screen.navigator.engine.query.job("pilot").deleted
            await type_command(pilot, "schedule real-one at=+1000 priority=high")
            await until(lambda: screen.answers, "the API's answer")
            assert screen.answers == ["schedule: POST /job: 201 created real-one"]
            with server.client() as http:
                assert http.get("/job/real-one").json()["priority"] == "high"
            assert ("schedule", {"id": "real-one", "at": "+1000", "priority": "high"}) in (
                journal_verbs(server)
            )
            await until(
                lambda: "real-one" in screen.navigator.engine.query.jobs(), "the journaled command"
            )

            await type_command(pilot, "down w1")  # no such request: refused, nothing sent
            assert "has no such request" in str(screen.command_bar.message.render())
            await type_command(pilot, "delete nobody")
            await until(lambda: len(screen.answers) == 2, "the API's refusal")
            assert screen.answers[1] == "delete: DELETE /job/nobody: 404 no job 'nobody'"
    finally:
        server.kill()


def recorded_service(directory: Path) -> tuple[str, Wall]:
    """A journal the test wrote: a job every 5 ticks, two of its runs reported, on a fixed clock."""
    wall = Wall()
    live = serve(directory / "a.db", wall, workers=1)
    live.submit("schedule", {"id": "a", "every": 5, "first": "+1"})
    for _ in range(3):
        wall.now += 5
        live.advance_clock()
        complete_running(live)
    wall.now += 2
    live.store.close()
    return f"sqlite:///{directory / 'a.db'}", wall


class Answering(ServiceApi):
    """A service that answers and takes the token, for a recorded journal: no server runs, and
    these tests are about the screen (the tests of a service that stops answering run one)."""

    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:9", None)

    async def health(self) -> str | None:
        return None

    async def refusal(self) -> str | None:
        return None


def still_app(directory: Path) -> LiveDashboardApp:
    """The dashboard on a recorded journal whose clock stands still: the same screen each run."""
    url, wall = recorded_service(directory)
    return LiveDashboardApp(open_live(url, wall), Answering(), blink=False)


@pytest.mark.integration
class TestHeader:
    def test_live(self, snap_compare, tmp_path: Path) -> None:
        async def at_the_head(pilot) -> None:
            await until(lambda: "● LIVE" in header(pilot.app), "the live head")

        app = still_app(tmp_path)
        assert snap_compare(app, terminal_size=(110, 24), run_before=at_the_head)

    def test_what_if(self, snap_compare, tmp_path: Path) -> None:
        async def a_what_if(pilot) -> None:
            await until(lambda: "● LIVE" in header(pilot.app), "the live head")
            await pilot.press("left", "left")
            await type_command(pilot, "pause a")
            await until(lambda: "WHAT-IF" in header(pilot.app), "the what-if")

        app = still_app(tmp_path)
        assert snap_compare(app, terminal_size=(110, 24), run_before=a_what_if)


@pytest.mark.integration
async def test_rewound_the_header_counts_the_ticks_behind_and_end_returns(tmp_path: Path) -> None:
    app = still_app(tmp_path)
    async with app.run_test(size=(110, 24)) as pilot:
        await until(lambda: "● LIVE" in header(app), "the live head")
        head = app.dashboard.navigator.tick
        await pilot.press("left")
        behind = head - app.dashboard.navigator.tick
        assert f"REWOUND {behind} ticks behind" in header(app)
        await pilot.press("end")
        assert "● LIVE" in header(app) and app.dashboard.navigator.tick == head


@pytest.mark.integration
async def test_a_journal_that_cannot_be_read_is_said_once_and_following_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = still_app(tmp_path)
    async with app.run_test(size=(110, 24)):
        await until(lambda: "● LIVE" in header(app), "the live head")
        reader = app.source.reader
        read = reader.rows_after

        tries: list[int] = []

        def locked(seq: int, limit: int):
            tries.append(seq)
            raise StoreFailure("database is locked", "OperationalError")

        monkeypatch.setattr(reader, "rows_after", locked)
        await until(lambda: len(tries) >= 3, "three readings that fail")
        said = [n.message for n in app._notifications if "cannot read the journal" in n.message]
        assert len(said) == 1 and "database is locked" in said[0]
        monkeypatch.setattr(reader, "rows_after", read)
        wall = app.source.wall
        wall.now += 1  # within the heartbeat's patience: the run due at 1,000,016 has no row
        again = short(app.dashboard.session.clock, 1_000_018)  # the header shows the time
        await until(lambda: again in header(app), "following again")
        assert "● LIVE" in header(app)


@pytest.mark.integration
async def test_a_file_does_not_replace_the_live_service(tmp_path: Path, scenario_file) -> None:
    app = still_app(tmp_path)
    async with app.run_test(size=(110, 24)) as pilot:
        await until(lambda: "● LIVE" in header(app), "the live head")
        await type_command(pilot, f"open {scenario_file}")
        await pilot.pause()
        assert app.dashboard.session.kind == "live" and "● LIVE" in header(app)


@pytest.mark.integration
async def test_opening_a_journal_shows_how_far_the_reading_has_got(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, wall = recorded_service(tmp_path)
    store = open_store(url)  # the rows a service writes, in one transaction (faster)
    rows = [
        Entry(int(wall.now), 2, "schedule", {"id": f"j{n}", "at": "+1000"}) for n in range(1920)
    ]
    store.journal.append(rows)
    store.close()
    notes: list[str] = []
    show = StatusHeader.show

    def noting(self, *args, **kwargs) -> None:
        notes.append(args[6])
        show(self, *args, **kwargs)

    monkeypatch.setattr(StatusHeader, "show", noting)
    app = LiveDashboardApp(open_live(url, wall), Answering())
    async with app.run_test(size=(110, 24)):
        await until(lambda: "● LIVE" in header(app), "the live head")
        assert len(app.dashboard.navigator.engine.query.jobs()) == 1920 + 1
    readings = list(dict.fromkeys(note for note in notes if note.startswith("reading")))
    # a slice at a time, the header redrawn after each
    percents = [int(note.removeprefix("reading the journal ").rstrip("%")) for note in readings]
    assert len(percents) >= 3 and percents == sorted(percents) and percents[-1] == 100


# ------------------------------------------------------------ words and requests


@pytest.mark.parametrize(
    ("line", "method", "path", "body"),
    [
        (
            "schedule x every=60 first=09:00 priority=high",
            "POST",
            "/job",
            {"id": "x", "every": 60, "first": "09:00", "priority": "high"},
        ),
        (
            "schedule x at=+5 timeout=none",
            "POST",
            "/job",
            {"id": "x", "at": "+5", "timeout": "none"},
        ),
        (
            "schedule x notify=\"[{on: [failed], channel: slack, to: '#ops'}]\"",
            "POST",
            "/job",
            {"id": "x", "notify": [{"on": ["failed"], "channel": "slack", "to": "#ops"}]},
        ),
        ("modify x priority=5 payload=hi", "PUT", "/job/x", {"priority": 5, "payload": "hi"}),
        ("cancel x", "PUT", "/job/x", {"cancel_next": True}),
        ("delete x", "DELETE", "/job/x", None),
    ],
)
def test_a_command_line_is_the_api_request_with_the_same_keys(line, method, path, body) -> None:
    request = api_request(line)
    assert request is not None
    assert (request.method, request.path, request.body) == (method, path, body)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("down w1", "the service's API has no such request"),
        ("cancel x 20", "the service cancels a job's next run only"),
        ("delete", "delete: expected delete JOB"),
        ("schedule x every=1 every=2", "every is given twice"),
        ("schedule 'x", "cannot split the line into words"),
    ],
)
def test_a_command_the_api_cannot_take_is_refused_before_sending(line, message) -> None:
    with pytest.raises(CommandError, match=message):
        api_request(line)


def test_dashboard_commands_and_queries_stay_on_screen() -> None:
    assert api_request("goto +10") is None
    assert api_request("status x 10") is None


def test_the_token_is_the_servers_and_none_is_ever_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'a.db'}"
    monkeypatch.delenv("CRONLAPSE_TOKEN", raising=False)
    assert find_token(db, None) is None
    assert not (tmp_path / "a.db.token").exists()
    (tmp_path / "a.db.token").write_text("beside\n")
    assert find_token(db, None) == "beside"
    (tmp_path / "given").write_text("given\n")
    assert find_token(db, str(tmp_path / "given")) == "given"
    monkeypatch.setenv("CRONLAPSE_TOKEN", "from-env")
    assert find_token(db, str(tmp_path / "given")) == "from-env"


@pytest.mark.integration
async def test_an_unreachable_service_is_an_answer_not_a_crash() -> None:
    request = api_request("delete x")
    assert request is not None
    accepted, text = await ServiceApi(f"http://127.0.0.1:{free_port()}", None).send(request)
    assert not accepted and text.startswith("delete: DELETE /job/x: cannot reach the service")


def test_tui_takes_a_database_instead_of_a_file(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    cli_tui.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["tui", "--db", "sqlite:///x.db", "--url", "http://h:1"])
    assert (args.file, args.db, args.url, args.token_file) == (
        None,
        "sqlite:///x.db",
        "http://h:1",
        None,
    )
    for words in (["tui"], ["tui", "a.yaml", "--db", "sqlite:///x.db"]):
        err = io.StringIO()
        assert cli_tui.run(parser.parse_args(words), io.StringIO(), err) == 2
        assert "give a FILE, or --db URL for a live service (not both)" in err.getvalue()
    err = io.StringIO()
    missing = parser.parse_args(["tui", "--db", f"sqlite:///{tmp_path / 'none.db'}"])
    assert cli_tui.run(missing, io.StringIO(), err) == 2
    assert err.getvalue() == f"cronlapse tui: {tmp_path / 'none.db'}: no such database file\n"


@pytest.mark.integration
async def test_the_dashboard_on_a_compacted_journal_says_where_its_history_starts(
    tmp_path: Path,
) -> None:
    wall = Wall()
    compacted_service(tmp_path / "a.db", wall)
    app = LiveDashboardApp(open_live(f"sqlite:///{tmp_path / 'a.db'}", wall), Answering())
    async with app.run_test(size=(110, 24)) as pilot:
        await until(lambda: "● LIVE" in header(app), "the live head")
        said = [n.message for n in app._notifications if "oldest snapshot" in n.message]
        assert len(said) == 1 and "retention" in said[0]
        await pilot.press("home")
        await pilot.pause()
        assert app.dashboard.navigator.tick == app.source.first_tick
        await pilot.press("left")
        await pilot.pause()
        assert app.dashboard.navigator.tick == app.source.first_tick
        await pilot.press("end")
        await until(lambda: "● LIVE" in header(app), "back at the live head")
