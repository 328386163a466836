"""Finished runs live in the store (the read model's history), for the single process as for the
active scheduler: a snapshot writes the runs the engine finished since the last one, a process's
runs listing reads them back merged with its engine's, and both kinds of process page a job's runs
alike (on the memory store, with a hand-driven clock)."""

from __future__ import annotations

import asyncio
import json
import pickle
import random

import pytest

from cronlapse.service.export import ExportError, export_journal
from cronlapse.service.journal_replay import JournalReplay
from cronlapse.service.live import LiveService, LiveState, fresh_state
from cronlapse.service.metrics import Metrics
from cronlapse.service.reads import Listing, LiveReads, Reads
from cronlapse.service.store import RunView
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.stored_reads import StoredReads
from cronlapse.service.views import run_json
from tests.service.export_helpers import scenario_events, service_events
from tests.service.test_export import drive
from tests.service.test_live import Wall, answers, complete_running, open_live
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
    answers = {}
    for record in finished:
        row = live.engine.query.run(*record.key)
        assert row is not None
        answers[record.key] = run_json(live.engine, row)
    live.snapshot()
    for (job_id, tick), answer in answers.items():
        kept = dict(store.views.finished(job_id, tick, 1))
        assert json.loads(kept[tick]) == answer
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


def _twins(minutes: int) -> tuple[LiveService, MemoryStore, LiveService, MemoryStore]:
    """The same inputs to a service keeping ten minutes of history and one keeping it all, both
    snapshotting every 20 rows."""
    kept, whole = MemoryStore(), MemoryStore()
    services = []
    for store, retention in ((kept, {"retention": 600}), (whole, {})):
        wall = Wall()
        live = open_live(store, wall, workers=1, snapshot_every=20, **retention)
        _play(live, wall, minutes)
        services.append(live)
    return services[0], kept, services[1], whole


def test_a_retention_compacts_the_journal_and_forgets_old_finished_runs() -> None:
    compacted, kept, uncompacted, whole = _twins(60)
    oldest = kept.journal.oldest_snapshot()
    assert oldest is not None and kept.journal.compacted() > 0
    assert whole.journal.compacted() == 0 and whole.journal.count() == kept.journal.last_seq()
    first = next(kept.journal.rows_after(0))
    assert first.seq == kept.journal.compacted() + 1 <= oldest.seq, "rows from the snapshot on"
    horizon = first.tick - 600
    assert [t for t, _ in kept.views.finished("often", 0, 10**4) if t < horizon - 600] == []
    assert [t for t, _ in whole.views.finished("often", 0, 10**4) if t < horizon - 600] != []
    assert JournalReplay.latest(kept).engine.now == compacted.engine.now, "cronlapse status"
    assert answers(compacted) == answers(uncompacted)
    restarts = [open_live(store, Wall(), workers=1) for store in (kept, whole)]
    assert answers(restarts[0]) == answers(restarts[1]), "a restart needs no row deleted"


def test_a_follower_left_behind_the_compacted_rows_starts_from_the_latest_snapshot() -> None:
    """A standby scheduler follows the journal by position: rows it has not read may be
    compacted away meanwhile."""
    compacted, kept, _uncompacted, _whole = _twins(60)
    follower = LiveService(kept, compacted.clock, compacted.config)
    assert follower.state.seq < kept.journal.compacted()
    follower.replay()
    assert answers(follower) == answers(compacted)


def test_a_compacted_journal_exports_from_its_oldest_kept_snapshot() -> None:
    """test_export's random inputs (which leave moments with nothing in flight), compacted."""
    kept, whole = MemoryStore(), MemoryStore()
    for store, retention in ((kept, {"retention": 300}), (whole, {})):
        wall = Wall()
        live = open_live(store, wall, workers=2, snapshot_every=20, **retention)
        drive(live, wall, random.Random(7), 100, prompt=True)
    assert kept.journal.compacted() > 0
    oldest = kept.journal.oldest_snapshot()
    assert oldest is not None
    since = JournalReplay.first_kept(kept, oldest).engine.now
    stretch = export_journal(kept, "memory:", None, None)
    assert stretch.start >= since
    events, runner = scenario_events(stretch.text, stretch.start)
    assert runner.failures == [] and runner.rejections == []
    assert events == service_events(whole, stretch.start, stretch.end)
    with pytest.raises(ExportError, match="deleted by the history's retention"):
        export_journal(kept, "memory:", str(since - 1), None)


def test_who_does_not_write_the_history_does_not_keep_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reading tool's replay and the active scheduler (its read model wrote every run with
    the rows that finished it) hold no finished runs for a snapshot to write."""
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1, snapshot_every=10**6)
    _play(live, wall, 10)
    assert live.state.finished, "the single process writes them at its next snapshot"
    assert JournalReplay.latest(store).live.state.finished == []
    scheduler_store = MemoryStore()
    scheduler = _scheduler(scheduler_store, monkeypatch)
    scheduler.submit("up", {"worker": "w1"})
    _play(scheduler, scheduler.clock.wall, 10)  # type: ignore[arg-type]
    written: list[object] = []
    monkeypatch.setattr(scheduler_store.views, "keep_finished", written.append)
    scheduler.snapshot()
    assert written == [] and scheduler.state.finished == []
    assert len(scheduler_store.views.finished("often", 0, 100)) >= 8, "by the read model"


def test_a_jobs_recent_runs_the_engine_forgot_come_from_the_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A job's detail lists its ten most recently touched runs: one the engine forgot once the
    store held it is read from the store, by the single process and by the active scheduler's
    read model alike. (A recent tick the engine has no run for stands for a forgotten one.)"""
    single_store, wall = MemoryStore(), Wall()
    single = open_live(single_store, wall, workers=1)
    scheduler_store = MemoryStore()
    scheduler = _scheduler(scheduler_store, monkeypatch)
    scheduler.submit("up", {"worker": "w1"})
    details = []
    for live, store, clock in (
        (single, single_store, wall),
        (scheduler, scheduler_store, scheduler.clock.wall),
    ):
        _play(live, clock, 3)  # type: ignore[arg-type]
        ticks = list(live.state.recent["often"])
        forgotten = ticks[0] - 30  # between two runs: the engine answers nothing there
        live.state.recent["often"] = {forgotten: None} | live.state.recent["often"]
        kept = json.dumps({"tick": forgotten, "status": "succeeded"})
        store.views.keep_finished([RunView("often", forgotten, False, kept, True)])
        live.submit("modify", {"job": "often", "priority": "high"})  # the job is written again
        details.append(asyncio.run(LiveReads(live, Metrics()).job("often")))
    stored = asyncio.run(StoredReads(scheduler_store.views).job("often"))
    assert details[0] == details[1] == stored
    assert stored is not None
    listed = [run["tick"] for run in stored["runs"]]
    assert listed[: len(ticks) + 1] == [forgotten, *ticks]


PER_JOB = 2_000
"""Bytes a snapshot may hold per job beyond a new service's (the runs at the snapshot's tick, its
recent runs not written yet; see the tighter test below for a fleet's)."""


def test_a_snapshot_after_many_finished_runs_is_no_bigger_than_after_none() -> None:
    sizes = []
    for minutes in (0, 300):
        store, wall = MemoryStore(), Wall()
        live = open_live(store, wall, workers=1)
        _play(live, wall, minutes)
        live.snapshot()
        saved = store.journal.latest_snapshot()
        assert saved is not None
        sizes.append(len(saved.state))
    assert sizes[1] <= sizes[0] + PER_JOB * len(JOBS), sizes


def test_a_snapshot_leaves_the_recent_runs_it_wrote_to_the_store() -> None:
    """A job's detail lists its recent runs; once a snapshot has written the finished ones to
    the store, the service's state no longer names them (its snapshot would hold ten ticks a
    job), and the detail reads them from the store: the same answer before and after, and
    after a restart."""
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    _play(live, wall, 14)
    before = {job_id: asyncio.run(LiveReads(live, Metrics()).job(job_id)) for job_id in JOBS}
    assert len(before["often"]["runs"]) > 10, "ten touched runs, and the one due next"
    live.snapshot()
    named = [(job_id, tick) for job_id, runs in live.state.recent.items() for tick in runs]
    assert len(named) <= 1, "but a run its engine holds yet (finished at this tick), none"
    after = {job_id: asyncio.run(LiveReads(live, Metrics()).job(job_id)) for job_id in JOBS}
    assert after == before
    restarted = open_live(store, wall, workers=1)  # its running run's attempt is lost, retried
    for job_id in JOBS:
        again = asyncio.run(LiveReads(restarted, Metrics()).job(job_id))
        assert again is not None and _ended(again) == _ended(before[job_id]) != []
    wall.now += 60
    live.advance_clock()
    complete_running(live)
    latest = asyncio.run(LiveReads(live, Metrics()).job("often"))
    assert latest is not None
    assert [run["tick"] for run in latest["runs"]][:-2] == [
        run["tick"] for run in before["often"]["runs"]
    ][1:-1], "one more run (and the next), the oldest gone"


def test_the_active_schedulers_read_model_lists_the_recent_runs_a_snapshot_wrote(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The read model the API processes answer from: after a snapshot (which stops naming the
    finished runs in the state), a job written again lists the same recent runs, read back
    from the store, as the scheduler's own reads do."""
    store = MemoryStore()
    scheduler = _scheduler(store, monkeypatch)
    scheduler.submit("up", {"worker": "w1"})
    _play(scheduler, scheduler.clock.wall, 14)  # type: ignore[arg-type]
    before = asyncio.run(StoredReads(store.views).job("often"))
    assert before is not None and len(before["runs"]) > 10
    scheduler.snapshot()
    assert sum(len(runs) for runs in scheduler.state.recent.values()) <= 1
    scheduler.submit("modify", {"job": "often", "priority": "high"})  # the job is written again
    after = asyncio.run(StoredReads(store.views).job("often"))
    assert after is not None
    assert after["runs"] == before["runs"]
    assert asyncio.run(LiveReads(scheduler, Metrics()).job("often")) == after


def _ended(detail: dict) -> list[dict]:
    return [run for run in detail["runs"] if run["status"] in ("succeeded", "failed")]


FLEET = 40
"""Jobs in the snapshot-size test: enough that a cost per job shows beside the constant ones."""


def test_a_snapshot_after_hours_of_runs_holds_a_bounded_cost_a_job_not_its_runs() -> None:
    """Issue 36: a restart costs the same with a long history as with a short one. The same
    jobs, snapshotted halfway to their next runs (their runs' timeouts passed) after no run, 2
    hours and 4 hours of runs every 15 minutes: what the later snapshots hold beyond the first
    is each job's latest run (its status, and a dependent created later, read it), last success
    time and forgotten-before tick, a bounded cost a job, not its runs (8 and 16 of them), and 4
    hours cost what 2 do."""
    sizes = []
    for hours in (0, 2, 4):
        store, wall = MemoryStore(), Wall()
        live = open_live(store, wall, workers=2)
        first = int(wall.now) + 450
        for number in range(FLEET):
            live.submit("schedule", {"id": f"job{number}", "every": 900, "first": first})
        periods = hours * 4
        for period in range(periods):
            wall.now = first + period * 900
            live.advance_clock()
            while complete_running(live):  # two at a time
                pass
        wall.now = first - 450 + periods * 900  # halfway to the next runs
        live.advance_clock()
        live.follow_clock()
        live.snapshot()
        saved = store.journal.latest_snapshot()
        assert saved is not None
        sizes.append(len(saved.state))
    none, two, four = sizes
    assert abs(four - two) <= 64, sizes
    assert four - none <= 200 * FLEET, sizes


def test_the_last_success_and_failure_times_pickle_in_a_few_bytes_a_job_in_their_order() -> None:
    """Each job's last success and failure times are the one thing a snapshot holds a job for
    its history: a few bytes a job (positions in submission order and ticks, compressed), read
    back in the order they were first set (``/metrics`` lists them so)."""
    jobs = 1_000
    state = fresh_state()
    state.order = [f"job{number}" for number in range(jobs)]
    empty = len(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    spread = random.Random(7)
    for number in reversed(range(jobs)):
        state.last_success[state.order[number]] = 1_800_000_000 + spread.randrange(3600)
    state.last_failure[state.order[7]] = 1_800_000_100
    again = pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    assert list(again.last_success.items()) == list(state.last_success.items())
    assert again.last_failure == {"job7": 1_800_000_100}
    assert again.order == state.order
    assert len(pickle.dumps(state, pickle.HIGHEST_PROTOCOL)) - empty <= 5 * jobs


def test_a_state_pickled_with_plain_last_times_still_loads() -> None:
    """What a snapshot written before held: the dictionaries themselves."""
    state = fresh_state()
    state.order = ["a", "b"]
    saved = dict(state.__dict__, last_success={"b": 5, "a": 9}, last_failure={"a": 3})
    loaded = LiveState.__new__(LiveState)
    loaded.__setstate__(pickle.loads(pickle.dumps(saved, pickle.HIGHEST_PROTOCOL)))
    assert list(loaded.last_success.items()) == [("b", 5), ("a", 9)]
    assert loaded.last_failure == {"a": 3}


def test_a_last_time_of_a_job_not_in_the_order_is_pickled_as_it_is() -> None:
    state = fresh_state()
    state.order = ["a"]
    state.last_success = {"a": 1, "stray": 2}
    again = pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    assert again.last_success == {"a": 1, "stray": 2}
