"""The service's reviewer (seed 003's ``on_timeout: next_run``): a run whose attempt outlives its
``timeout`` is taken back and fails for good without using its retries, so its subscribers hear
that it timed out, never that it exhausted retries it did not use."""

from __future__ import annotations

from cronlapse.service.store.memory import MemoryStore
from tests.service.test_live import Wall, open_live

NOTIFY = [{"on": ["timed_out", "retries_exhausted"], "channel": "webhook", "to": "ops"}]


def happenings(max_retries: int) -> list[str]:
    wall = Wall()
    live = open_live(MemoryStore(), wall, workers=1)
    job = {"id": "slow", "every": 3600, "timeout": 5, "max_retries": max_retries, "notify": NOTIFY}
    assert live.submit("schedule", job).accepted
    wall.now += 10
    live.advance_clock()
    return [note.happening for note in live.engine.query.notifications().values()]


def test_a_run_taken_back_with_retries_unused_is_not_said_to_have_exhausted_them() -> None:
    assert happenings(max_retries=2) == ["timed_out"]


def test_a_run_taken_back_on_its_last_attempt_has_exhausted_its_retries() -> None:
    assert happenings(max_retries=0) == ["timed_out", "retries_exhausted"]
