"""A start gives back to the system the memory its load freed (issue 36, RSS after a restart).

Unpickling a snapshot builds each record's fields in a temporary dict and frees it at once: for
20,000 jobs about 17 MB that the C allocator kept, counted in the server's resident size for as
long as it ran, until ``malloc_trim`` returned it."""

from __future__ import annotations

import sys

import pytest

from cronlapse.service import heap, server
from cronlapse.service.config import Config
from cronlapse.service.live import LiveService
from cronlapse.service.store.memory import MemoryStore
from tests.service.test_live import Wall, open_live


def test_a_start_trims_the_heap_once_the_state_is_loaded_and_taken_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryStore()
    first = open_live(store, Wall(), workers=1, snapshot_every=2)
    for number in range(3):
        first.submit("schedule", {"id": f"j{number}", "every": 60, "first": "+60"})
    again = LiveService(store, first.clock, Config(workers=1))
    seen: list[tuple[bool, int]] = []
    monkeypatch.setattr(
        server, "trim_heap", lambda: seen.append((again.serving, len(again.state.order)))
    )
    server.start(again, 1.0)
    assert seen == [(True, 3)], "trimmed once, after the snapshot, the replay and the take-over"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_the_heap_is_trimmed_where_the_c_library_can() -> None:
    assert heap.trim_heap() is True
