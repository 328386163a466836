"""The read model answers what the engine answers: an API process reading the store
(:class:`StoredReads`) and the active scheduler reading its engine (:class:`LiveReads`) give the
same JSON, as inputs apply and as time alone changes a job's answer (on the memory store)."""

from __future__ import annotations

import asyncio

import pytest

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
