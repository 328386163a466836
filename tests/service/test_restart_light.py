"""A restart does no more before it serves than replaying its journal (issue 36): the snapshot
that replay makes due is taken once the service takes inputs, in the background when it can."""

from __future__ import annotations

from cronlapse.service.store.memory import MemoryStore
from tests.service.test_live import Wall, open_live


def test_a_restart_takes_no_snapshot_before_it_serves() -> None:
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=2, snapshot_every=3)
    for number in range(3):  # rows 4 and 5 after the snapshot at 3
        live.submit("schedule", {"id": f"j{number}", "every": 60, "first": "+60"})
    first = store.journal.latest_snapshot_seq()
    again = open_live(store, wall, workers=3, snapshot_every=3)  # replays, registers w3
    assert store.journal.latest_snapshot_seq() == first, "a snapshot was taken before serving"
    again.submit("schedule", {"id": "after", "every": 60, "first": "+60"})
    assert store.journal.latest_snapshot_seq() == again.state.seq
