"""A restart does no more before it serves than replaying its journal (issue 36): the snapshot
that replay makes due is taken once the service takes inputs, in the background when it can."""

from __future__ import annotations

import asyncio

from cronlapse.service.inputs import Inputs
from cronlapse.service.live import SNAPSHOT_FLOOR
from cronlapse.service.store.memory import MemoryStore
from tests.service.test_live import Wall, complete_running, open_live


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


def rows_after_snapshot(store: MemoryStore) -> int:
    return store.journal.last_seq() - (store.journal.latest_snapshot_seq() or 0)


def test_a_small_state_snapshots_before_its_replay_outgrows_it() -> None:
    """Rows after the latest snapshot are replayed at a restart: with ``snapshot_every`` alone, a
    server of 2 jobs replayed up to 10,000 rows and restarted 1.5x slower at one moment of a kill
    than at another. Bounded by the jobs (at least :data:`SNAPSHOT_FLOOR` rows), the replay costs
    about what loading the snapshot does, whenever the kill comes."""
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=2, snapshot_every=10_000)
    for number in range(2):
        live.submit("schedule", {"id": f"j{number}", "every": 1, "first": "+1"})
    most = 0
    for _ in range(3 * SNAPSHOT_FLOOR):
        wall.now += 1
        live.advance_clock()
        while complete_running(live):
            pass
        most = max(most, rows_after_snapshot(store))
    assert most == SNAPSHOT_FLOOR - 1


def test_a_large_state_snapshots_every_as_many_rows_as_it_has_jobs() -> None:
    """Loading a snapshot costs in proportion to its jobs: a state of more jobs than
    :data:`SNAPSHOT_FLOOR` snapshots every as many rows (up to ``snapshot_every``), not more
    often."""
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=2, snapshot_every=10_000)
    jobs = SNAPSHOT_FLOOR + 100
    for number in range(jobs):
        live.submit("schedule", {"id": f"j{number}", "every": 3600, "first": "+3600"})
    most = 0
    for number in range(jobs):  # deleted jobs stay in the state, with their runs' history
        live.submit("delete", {"job": f"j{number}"})
        most = max(most, rows_after_snapshot(store))
    assert most == jobs - 1


def test_a_quiet_moment_after_a_burst_snapshots_what_the_burst_wrote() -> None:
    """A burst of creations grows the jobs rule's bound as fast as its rows: 20,000 creations
    left 9,500 rows after the latest snapshot, for a restart to replay however long the server
    then sat idle. The first clock reading with nothing due and no batch on its way snapshots
    them, if they are :data:`SNAPSHOT_FLOOR` or more."""
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=2, snapshot_every=10_000)
    for number in range(3 * SNAPSHOT_FLOOR):
        live.submit("schedule", {"id": f"j{number}", "every": 3600, "first": "+3600"})
    assert rows_after_snapshot(store) >= SNAPSHOT_FLOOR
    inputs = Inputs(live)
    asyncio.run(inputs.clock())  # nothing is due: a quiet moment
    assert rows_after_snapshot(store) == 0
    live.submit("schedule", {"id": "one-more", "every": 3600, "first": "+3600"})
    asyncio.run(inputs.clock())
    assert rows_after_snapshot(store) == 1, "a row or two is not worth a snapshot"
