"""A snapshot is pickled objects, so after an upgrade that renamed or reshaped one of its classes
the snapshot a database holds may not load. The journal's rows are plain values that every
version reads: a whole journal is replayed instead; a compacted one cannot be, and the server
says so and does not start."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from pathlib import Path

import pytest

from cronlapse.cli.main import main
from cronlapse.service.clock import LiveClock
from cronlapse.service.config import Config
from cronlapse.service.live import LiveService
from cronlapse.service.server import ServeError, start
from cronlapse.service.store import SnapshotUnreadable, Store, open_store
from cronlapse.service.store.memory import MemoryStore
from tests.service.test_live import Wall, answers, open_live

FROM_ANOTHER_VERSION = b"cno_such_module\nGone\n."
"""A pickle (protocol 0) of a class from a module this version does not have."""


def served(store: Store, wall: Wall) -> LiveService:
    """A service with five jobs and a snapshot; the snapshot at its latest row."""
    live = open_live(store, wall, workers=2, snapshot_every=3)
    for number in range(5):
        live.submit("schedule", {"id": f"j{number}", "every": 60, "first": "+60"})
    store.journal.save_snapshot(live.state.seq, FROM_ANOTHER_VERSION)
    return live


def test_a_snapshot_that_does_not_load_is_replaced_by_the_whole_journal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    wall, store = Wall(), MemoryStore()
    before = answers(served(store, wall))
    with caplog.at_level(logging.WARNING, logger="cronlapse.serve"):
        again = open_live(store, wall, workers=2, snapshot_every=3)
    assert answers(again) == before
    assert any(
        "does not load (ModuleNotFoundError" in message and "replaying the journal" in message
        for message in caplog.messages
    ), caplog.messages


def test_a_compacted_journal_behind_an_unreadable_snapshot_is_a_clear_refusal() -> None:
    wall, store = Wall(), MemoryStore()
    live = served(store, wall)
    assert store.journal.compact(10**9) > 0
    with pytest.raises(SnapshotUnreadable, match=f"snapshot at journal row {live.state.seq} "):
        open_live(store, wall, workers=2, snapshot_every=3)


def test_the_server_refuses_to_start_with_that_message() -> None:
    wall, store = Wall(), MemoryStore()
    served(store, wall)
    store.journal.compact(10**9)
    with pytest.raises(ServeError) as refused:
        start(LiveService(store, LiveClock.resume(None, 1.0, wall), Config(workers=2)), 1.0)
    message = str(refused.value)
    assert message.startswith("cannot start on the database memory:"), message
    assert "the snapshot at journal row" in message
    assert message.endswith("start the version of cronlapse that wrote it"), message


@pytest.mark.integration
@pytest.mark.parametrize("command", [["status"], ["export", "--scenario", "-o", "-"]])
def test_the_commands_that_read_a_snapshot_say_it_does_not_load(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = open_store(url)
    served(store, Wall())
    assert store.journal.compact(10**9) > 0
    store.close()
    with contextlib.closing(sqlite3.connect(tmp_path / "s.db")) as db, db:  # an upgrade
        db.execute("UPDATE snapshots SET state = ?", (FROM_ANOTHER_VERSION,))
    assert main([*command, "--db", url]) == 2
    err = capsys.readouterr().err
    assert "the snapshot at journal row" in err and "does not load (ModuleNotFoundError" in err
    assert "Traceback" not in err
