"""Inputs that cannot be journaled or applied are set aside as dead letters, shown by
``cronlapse status`` and ``/metrics``, and never stop what takes inputs: the single process
(SQLite, PostgreSQL), a replay, and the active scheduler that takes the inbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from cronlapse.service.live import LiveService
from cronlapse.service.status import status_of, status_text
from cronlapse.service.store import Store, Why, open_store
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.store.sql.urls import database_url
from cronlapse.service.write_path import SetAside
from tests.service.conftest import BACKENDS, ROOT, database_for
from tests.service.role_processes import Processes
from tests.service.test_live import Wall, open_live
from tests.waiting import wait_until

SURROGATE = {"id": "\ud800", "every": 3600}


@pytest.fixture
def sql_store(backend: str, request: pytest.FixtureRequest, tmp_path: Path):
    store = open_store(database_for(backend, request) or f"sqlite:///{tmp_path / 'c.db'}")
    try:
        yield store
    finally:
        store.close()


@pytest.mark.integration
@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_an_input_no_store_can_hold_is_set_aside_and_the_service_goes_on(
    sql_store: Store,
) -> None:
    live = open_live(sql_store, Wall(), workers=1)
    rows = sql_store.journal.last_seq()
    with pytest.raises(SetAside, match="lone surrogate"):
        live.submit("schedule", SURROGATE)
    assert sql_store.journal.last_seq() == rows, "neither journaled"
    assert list(live.engine.query.jobs()) == [], "nor applied"
    assert live.submit("schedule", {"id": "after", "every": 3600}).accepted
    (letter,) = sql_store.dead_letters.latest(5)
    assert (letter.why, letter.verb) == (Why.UNSTORABLE, "schedule")
    assert letter.args == '{"id":"\\ud800","every":3600}'
    shown = status_text(status_of(sql_store))
    assert "dead      1 input(s) set aside, not applied; the latest:" in shown
    assert '  schedule {"id":"\\ud800","every":3600}: unstorable, id: text must be' in shown


def test_a_journal_row_that_fails_to_apply_is_set_aside_once_and_the_replay_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "bad", "every": 3600})
    bad = store.journal.last_seq()
    live.submit("schedule", {"id": "good", "every": 3600})
    applying = LiveService.apply

    def defect(self, tick, verb, args, decoded):
        if args.get("id") == "bad":
            raise RuntimeError("a defect")
        return applying(self, tick, verb, args, decoded)

    monkeypatch.setattr(LiveService, "apply", defect)
    for _ in range(2):
        again = open_live(store, wall, workers=1)
        assert list(again.engine.query.jobs()) == ["good"]
    (letter,) = store.dead_letters.latest(5)
    assert (letter.why, letter.journal_seq) == (Why.UNAPPLIED, bad)
    assert letter.reason == "applying it failed: RuntimeError: a defect"


@pytest.mark.e2e
def test_the_active_scheduler_sets_poisoned_inbox_rows_aside_and_goes_on(processes) -> None:
    """The API refuses a lone surrogate at the edge; an inbox row holding one (or arguments
    that are not JSON) failed the active scheduler's commit, which ended it, and every
    scheduler elected after it."""
    group: Processes = processes("workers: 1\n")
    scheduler = group.scheduler("a")
    scheduler.start()
    store = open_store(group.url)
    try:
        poisoned = store.inbox.write("schedule", SURROGATE)
        database = create_engine(database_url(group.url))
        with database.begin() as conn:
            unreadable = conn.execute(
                text(
                    "INSERT INTO inbox (verb, args, created) "
                    "VALUES ('schedule', '{x', 0) RETURNING seq"
                )
            ).scalar()
        database.dispose()
        after = store.inbox.write("schedule", {"id": "after", "every": 3600})
        answers = {}

        def answered() -> bool:
            for seq in (poisoned, unreadable, after):
                if seq not in answers and (answer := store.inbox.take_answer(seq)) is not None:
                    answers[seq] = answer
            return len(answers) == 3

        wait_until(answered, "the three rows to be answered", context=scheduler.both_outputs)
        assert scheduler.healthy(), "the scheduler goes on"
        assert "lone surrogate" in answers[poisoned]
        assert "not JSON" in answers[unreadable]
        assert '"outcome":"CREATED"' in answers[after]
        assert {letter.why for letter in store.dead_letters.latest(5)} == {
            Why.UNSTORABLE,
            Why.UNREADABLE,
        }
    finally:
        store.close()
    with scheduler.client() as client:
        assert "\ncronlapse_dead_letters 2\n" in client.get("/metrics").text
    shown = subprocess.run(
        [sys.executable, "-m", "cronlapse", "status", "--db", group.url],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert "dead      2 input(s) set aside, not applied; the latest:" in shown
