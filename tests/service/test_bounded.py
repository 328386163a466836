"""The live engine is bounded by live work (issue 36, item 1): finished runs leave its live
structures for the engine's run archive, and what the API reads about them is unchanged.

Complexity, not time: after ten times as many runs, the engine holds as many live records."""

from __future__ import annotations

import asyncio
import json

from cronlapse.service.live import LiveService, LiveState
from cronlapse.service.metrics import Metrics
from cronlapse.service.reads import LiveReads
from cronlapse.service.status import oldest_waiting, outbox_counts
from cronlapse.service.store import SERVICE_POLICY
from cronlapse.service.store.memory import MemoryStore
from engine.core import Engine
from engine.model.records import Occurrence
from engine.parts.run_archive import RunArchive
from engine.play.ticks import TickDriver
from tests.service.test_live import START, Wall, complete_running, open_live

JOBS = ("a", "b", "c")


def play(live: LiveService, wall: Wall, rounds: int) -> None:
    """``rounds`` rounds of the jobs' runs, each one's attempt ending (every fifth fails)."""
    for number in range(rounds):
        wall.now += 10
        live.advance_clock()
        complete_running(live, ok=number % 5 != 0)


def started(archive: bool) -> tuple[LiveService, Wall]:
    wall = Wall()
    live = open_live(MemoryStore(), wall, workers=3)
    live.snapshot_due = lambda: False  # the engine's archive bounds it, not a snapshot's forgetting
    if not archive:  # the engine every service had before: finished runs stay live
        live.state = LiveState(TickDriver(Engine(SERVICE_POLICY)), seq=live.state.seq)
        live.open()
    for job_id in JOBS:
        live.submit("schedule", {"id": job_id, "every": 10, "max_retries": 0})
    return live, wall


def live_records(live: LiveService) -> int:
    return len(live.engine._store.records)


def test_finished_runs_leave_the_live_engine() -> None:
    live, wall = started(archive=True)
    play(live, wall, 20)
    after_few = live_records(live)
    play(live, wall, 200)
    assert live.engine.query.count_runs(job_id="a") >= 220, "the runs are all still read"
    assert live_records(live) == after_few <= 2 * len(JOBS)


def everything_read(live: LiveService) -> str:
    """What the API, ``/metrics`` and ``cronlapse status`` answer, every page of every job's
    runs included."""
    reads = LiveReads(live, Metrics())

    async def read() -> dict:
        answers: dict = {"jobs": [await reads.job(job_id) for job_id in JOBS]}
        for job_id in JOBS:
            pages, cursor = [], "0"
            while cursor is not None:
                page = await reads.runs(job_id, int(cursor), 7)
                assert page is not None
                pages.append(page.items)
                cursor = page.next
            answers[job_id] = pages
        answers["metrics"] = await reads.metrics()
        return answers

    answers = asyncio.run(read())
    engine = live.engine
    answers["status"] = [
        [engine.query.job_word(job_id) for job_id in JOBS],
        oldest_waiting(engine),
        outbox_counts(engine),
    ]
    return json.dumps(answers, default=str)


def test_an_archiving_service_answers_as_one_that_keeps_its_runs() -> None:
    (archiving, wall), (keeping, kept_wall) = started(archive=True), started(archive=False)
    assert not keeping.engine.archives
    play(archiving, wall, 60)
    play(keeping, kept_wall, 60)
    assert everything_read(archiving) == everything_read(keeping)


def test_a_page_of_a_jobs_runs_reads_the_page_not_the_history(monkeypatch) -> None:
    """``GET /job/{id}/runs`` on the live engine seeks the job's archived runs from the cursor:
    a page deep in the history builds the page's records, not every run of every job."""
    live, wall = started(archive=True)
    play(live, wall, 200)
    built = []
    archive_record = RunArchive._record

    def counted(archive: RunArchive, row: int) -> Occurrence:
        built.append(row)
        return archive_record(archive, row)

    monkeypatch.setattr(RunArchive, "_record", counted)
    ticks = [row.scheduled for row in live.engine.query.runs(job_id="a", limit=10**6).items]
    built.clear()
    page = asyncio.run(LiveReads(live, Metrics()).runs("a", ticks[150], 7))
    assert page is not None and [run["tick"] for run in page.items] == ticks[150:157]
    assert page.next == str(ticks[157])
    assert len(built) <= 7 + 2, "the page's runs, the next page's first, and one to see it"


def test_a_snapshot_of_an_engine_that_kept_its_runs_is_replaced_on_restart() -> None:
    """A database snapshotted before the engine archived: the restart rebuilds the state from
    the journal into an archiving engine (once), which answers as the old one did (before the
    restart's own inputs: the running attempts lost, the slots matched)."""
    keeping, wall = started(archive=False)
    play(keeping, wall, 30)
    keeping.snapshot()
    before = everything_read(keeping)
    again = LiveService(keeping.store, keeping.clock, keeping.config)
    again.load_snapshot()
    again.replay()
    assert again.engine.archives
    assert live_records(again) <= 2 * len(JOBS)
    assert everything_read(again) == before


def test_restarts_after_downtime_leave_one_due_entry_a_job() -> None:
    """A restart after more than ``misfire_grace`` down pauses and resumes every job (their
    missed runs follow ``catch_up``), and each resume puts the job on the due heap again: the
    heap grew by a job's worth at each such restart, in every snapshot after. A snapshot's
    forget drops the stale entries."""
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    for number in range(5):
        live.submit("schedule", {"id": f"job{number}", "every": 3600})
    live.snapshot()
    for _ in range(4):
        wall.now += 600  # ten minutes down: past the default misfire grace of 60 s
        live = open_live(store, wall, workers=1)
        live.snapshot()
    assert len(open_live(store, wall, workers=1).engine._cursors.due.items) == 5


def test_a_snapshot_after_a_long_history_is_the_size_of_one_before_any_run() -> None:
    """What a snapshot keeps of the history is a few bytes a job (its latest run, its last
    success), not the runs: 40 jobs after 30 rounds of runs pickle within 24 bytes a job of
    the same jobs before their first run (it was 165). Each snapshot is taken while every job
    waits for its next run, its last attempt's timers long over."""
    sizes = []
    for rounds in (0, 30):
        store, wall = MemoryStore(), Wall()
        live = open_live(store, wall, workers=4, snapshot_every=10**9)
        for number in range(40):
            live.submit("schedule", {"id": f"job{number}", "every": 1000, "first": START + 5})
        for number in range(rounds):
            wall.now = START + 5 + number * 1000
            live.advance_clock()
            while complete_running(live, ok=number % 5 != 0):
                pass  # each report frees a worker for a run still waiting
        wall.now = START + 4 + rounds * 1000
        live.advance_clock()
        live.snapshot()
        saved = store.journal.latest_snapshot()
        assert saved is not None
        sizes.append(len(saved.state))
    assert sizes[1] - sizes[0] <= 24 * 40, sizes
