"""The SQL an SQLite server runs is bounded by live work too (issue 36, item 1): SQLite keeps
each distinct statement text prepared, outside the Python heap (Python's sqlite3 caches 128 a
connection), so a statement whose text depends on a count (an ``IN`` list of the runs a snapshot
writes) grew the server's memory by a prepared statement at each new count, a megabyte for
4,000 keys: with the time it ran, not with its work (benchmarks/soak.py).

Complexity, not time: snapshots of ever more finished runs run the statement texts the first
snapshots ran, and no other."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import event

from cronlapse.service.store import open_store
from tests.service.test_bounded import JOBS, play
from tests.service.test_live import Wall, open_live

pytestmark = pytest.mark.integration


def test_snapshots_of_more_finished_runs_run_no_new_statement(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'bounded.db'}")
    texts: set[str] = set()
    event.listen(store.db, "before_cursor_execute", lambda *args: texts.add(args[2]))
    wall = Wall()
    live = open_live(store, wall, workers=3, snapshot_every=10**9)
    for job_id in JOBS:
        live.submit("schedule", {"id": job_id, "every": 10, "max_retries": 0})

    def snapshots(rounds: range) -> set[str]:
        """A snapshot after each count of rounds: the finished runs it writes grow."""
        for count in rounds:
            play(live, wall, count)
            live.snapshot()
        return set(texts)

    first = snapshots(range(1, 4))
    assert snapshots(range(4, 12)) == first
    store.close()
