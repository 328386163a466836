"""Snapshots written by a forked child, into a real SQLite database (the memory store's would
be lost with the child's copy of memory)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.service.snapshots import BackgroundSnapshots
from cronlapse.service.store import open_store
from tests.service.test_live import Wall, answers, open_live

pytestmark = pytest.mark.integration


def test_a_forked_child_writes_the_snapshot_while_the_server_goes_on(tmp_path: Path) -> None:
    wall = Wall()
    url = f"sqlite:///{tmp_path / 'a.db'}"
    live = open_live(open_store(url), wall, workers=1, snapshot_every=5)
    live.background = BackgroundSnapshots(url)
    for number in range(12):  # nothing runs yet: a restart would take a running attempt over
        live.submit("schedule", {"id": f"j{number}", "every": 60, "first": "+60"})
    live.background.wait()
    saved = live.store.journal.latest_snapshot()
    assert saved is not None and saved.seq >= 5
    before = answers(live)
    live.store.close()
    again = open_live(open_store(url), wall, workers=1, snapshot_every=5)
    assert answers(again) == before
    again.store.close()
