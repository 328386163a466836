"""The read model answers what the engine answers: an API process reading the store
(:class:`StoredReads`) and the active scheduler reading its engine (:class:`LiveReads`) give the
same JSON, as inputs apply and as time alone changes a job's answer (on the memory store)."""

from __future__ import annotations

import asyncio
import json

import pytest

from cronlapse.service import read_model
from cronlapse.service.inputs import Inputs
from cronlapse.service.metrics import Metrics
from cronlapse.service.reads import LiveReads, Reads
from cronlapse.service.store import JobFilter
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.stored_reads import StoredReads
from tests.service.test_live import complete_running
from tests.service.test_write_path import _scheduler

JOBS = ("every", "once", "cron", "gone")


async def _answers(reads: Reads) -> tuple:
    every = JobFilter(None, None, None)
    return (
        await reads.tick(),
        [await reads.job(job_id) for job_id in JOBS],
        await reads.jobs(0, 500, every),
        await reads.jobs(1, 2, every),
        await reads.jobs(0, 500, JobFilter("scheduled", None, None)),
        [await reads.runs(job_id, 0, 500) for job_id in JOBS],
        await reads.workers(),
    )


def test_the_stored_answers_are_the_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryStore()
    scheduler = _scheduler(store, monkeypatch)
    live_reads, stored_reads = LiveReads(scheduler, Metrics()), StoredReads(store.views)
    wall = scheduler.clock.wall

    def same() -> None:
        assert asyncio.run(_answers(stored_reads)) == asyncio.run(_answers(live_reads))

    scheduler.submit("schedule", {"id": "every", "every": 60, "max_retries": 1})
    scheduler.submit("schedule", {"id": "once", "at": "+600"})
    scheduler.submit("schedule", {"id": "cron", "cron": "*/5 * * * *", "priority": "high"})
    scheduler.submit("schedule", {"id": "gone", "every": 30})
    scheduler.submit("delete", {"job": "gone"})
    same()
    for step in range(40):  # time alone: runs come within two minutes, then fall due
        wall.now += 23  # type: ignore[attr-defined]
        scheduler.advance_clock()
        complete_running(scheduler, ok=step % 3 != 0)
        same()
    scheduler.submit("modify", {"job": "every", "every": 90, "priority": "low"})
    scheduler.submit("cancel", {"job": "cron"})
    same()


class Monotonic:
    """The read model's idea of elapsed wall time, which the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


def _idle_reading(inputs: Inputs) -> None:
    """A clock reading with nothing to journal, and the write it may start."""

    async def reading() -> None:
        await inputs.clock()
        await inputs.close()

    asyncio.run(reading())


def test_an_idle_schedulers_stored_answers_follow_its_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between inputs the scheduler's time follows the clock without a journal row; what that
    changes reaches the read model in a write without rows: a run's word at once, the tick
    within a second of wall time. Before, an API process said ``created`` for a run the
    scheduler called ``scheduled``, and showed the tick of the last input."""
    seconds = Monotonic()
    monkeypatch.setattr(read_model, "time", seconds)
    store = MemoryStore()
    scheduler = _scheduler(store, monkeypatch)
    inputs = Inputs(scheduler)
    live_reads, stored_reads = LiveReads(scheduler, Metrics()), StoredReads(store.views)
    wall = scheduler.clock.wall
    scheduler.submit("schedule", {"id": "once", "at": "+600"})
    rows = store.journal.last_seq()

    wall.now += 500  # type: ignore[attr-defined]  # within two minutes of the run: scheduled
    _idle_reading(inputs)
    assert asyncio.run(_answers(stored_reads)) == asyncio.run(_answers(live_reads))
    assert json.loads(store.views.job("once") or "{}")["status"] == "scheduled"

    wall.now += 10  # type: ignore[attr-defined]  # the tick alone moves: written once a second
    _idle_reading(inputs)
    assert asyncio.run(stored_reads.tick()) < scheduler.engine.now
    seconds.now += read_model.IDLE_TICK_SECONDS
    _idle_reading(inputs)
    assert asyncio.run(stored_reads.tick()) == scheduler.engine.now
    assert store.journal.last_seq() == rows, "time alone journals nothing"
