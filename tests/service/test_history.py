"""Finished runs live in the store (the read model's history), for the single process as for the
active scheduler: a snapshot writes the runs the engine finished since the last one, a process's
runs listing reads them back merged with its engine's, and both kinds of process page a job's runs
alike (on the memory store, with a hand-driven clock)."""

from __future__ import annotations

import asyncio
import json

import pytest

from cronlapse.service.live import LiveService
from cronlapse.service.metrics import Metrics
from cronlapse.service.reads import Listing, LiveReads, Reads
from cronlapse.service.store import RunView
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.stored_reads import StoredReads
from cronlapse.service.views import run_json
from tests.service.test_live import Wall, complete_running, open_live
from tests.service.test_write_path import _scheduler

JOBS = {"often": {"every": 60, "max_retries": 0}, "hourly": {"every": 3600}}


def _play(live: LiveService, wall: Wall, steps: int) -> None:
    """The jobs, then ``steps`` minutes of runs, one in three failing."""
    for job_id, fields in JOBS.items():
        live.submit("schedule", {"id": job_id, **fields})
    for step in range(steps):
        wall.now += 60
        live.advance_clock()
        complete_running(live, ok=step % 3 != 0)


def _pages(reads: Reads, job_id: str, limit: int) -> list[Listing]:
    """Every page of the job's runs, following each page's cursor."""
    pages: list[Listing] = []
    since = 0
    while True:
        page = asyncio.run(reads.runs(job_id, since, limit))
        assert page is not None
        pages.append(page)
        if page.next is None:
            return pages
        since = int(page.next)


def test_a_snapshot_writes_the_finished_runs_to_the_store() -> None:
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    _play(live, wall, 12)
    finished = list(live.engine.query.archived_records())
    assert len(finished) >= 10
    assert store.views.finished("often", 0, 100) == [], "nothing written before a snapshot"
    live.snapshot()
    for record in finished:
        job_id, tick = record.key
        row = live.engine.query.run(job_id, tick)
        assert row is not None
        kept = dict(store.views.finished(job_id, tick, 1))
        assert json.loads(kept[tick]) == run_json(live.engine, row)
    assert live.state.finished == [], "written once"
    wall.now += 600
    live.advance_clock()
    complete_running(live)
    opened = open_live(store, wall, workers=1)  # a restart: what followed the snapshot again
    assert opened.state.finished, "the runs finished after the snapshot are still to be written"


def test_a_finished_run_only_the_store_holds_is_listed_in_its_place() -> None:
    """The engine may forget a finished run once the store holds it: the listing merges both,
    paged by scheduled tick."""
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    _play(live, wall, 3)
    engine_ticks = [
        run["tick"] for run in asyncio.run(LiveReads(live, Metrics()).runs("often", 0, 50)).items
    ]
    first = engine_ticks[0]
    forgotten = [first - 180, first - 120, first - 60]
    store.views.keep_finished(
        [RunView("often", tick, False, json.dumps({"tick": tick}), True) for tick in forgotten]
    )
    reads = LiveReads(live, Metrics())
    pages = _pages(reads, "often", 2)
    listed = [run["tick"] for page in pages for run in page.items]
    assert listed == forgotten + engine_ticks
    assert pages[0].next == str(forgotten[2]) and pages[1].next == str(engine_ticks[1])


def test_the_single_process_pages_runs_as_an_api_process_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same inputs to a single process (snapshots every few rows, so much of its history is
    read from the store) and to an active scheduler, whose API processes read the read model."""
    single_store, wall = MemoryStore(), Wall()
    single = open_live(single_store, wall, workers=1, snapshot_every=7)
    scheduler_store = MemoryStore()
    scheduler = _scheduler(scheduler_store, monkeypatch)
    scheduler.submit("up", {"worker": "w1"})  # a worker process's slot, as the single's own
    for live, clock in ((single, wall), (scheduler, scheduler.clock.wall)):
        _play(live, clock, 20)  # type: ignore[arg-type]
    assert single_store.views.finished("often", 0, 100), "the single process wrote its history"
    single_reads = LiveReads(single, Metrics())
    api_reads = StoredReads(scheduler_store.views)
    for job_id in JOBS:
        for limit in (1, 3, 50):
            assert _pages(single_reads, job_id, limit) == _pages(api_reads, job_id, limit)
