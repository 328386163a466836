"""The live engine in-process, on the memory store, with a hand-driven clock: replay, snapshots,
catch-up. (A service opened again on the same store is a restart.)"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.service.clock import Anchor, LiveClock
from cronlapse.service.codec import InputInvalid
from cronlapse.service.config import Config
from cronlapse.service.executors import idempotency_key
from cronlapse.service.live import LiveService
from cronlapse.service.store import CLOCK_KEY, Store
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.views import job_json, workers_json
from engine.model.records import OccurrenceState

START = 1_000_000


class Wall:
    """A wall clock the test moves."""

    def __init__(self) -> None:
        self.now = float(START)

    def __call__(self) -> float:
        return self.now


def open_live(store: Store, wall: Wall, **config: int) -> LiveService:
    """The service on ``store`` as ``cronlapse serve`` opens it (a restart when the store holds a
    journal already), on the clock ``wall``."""
    saved = store.journal.get_meta(CLOCK_KEY)
    clock = LiveClock.resume(None if saved is None else Anchor.loads(saved), 1.0, wall)
    store.journal.set_meta(CLOCK_KEY, clock.anchor.dumps())
    live = LiveService(store, clock, Config(**config))
    live.open()
    return live


def answers(live: LiveService) -> str:
    """Everything the API would answer about the state, as one string."""
    jobs = [job_json(live.state, job) for job in live.engine.query.jobs().values()]
    return json.dumps({"jobs": jobs, "workers": workers_json(live.engine), "now": live.engine.now})


def complete_running(live: LiveService, ok: bool = True) -> int:
    running = list(live.engine.query.record_keys(OccurrenceState.RUNNING))
    for job_id, scheduled in running:
        attempt = live.engine.query.record(job_id, scheduled).running_attempt
        assert attempt is not None
        args = {"job": job_id, "scheduled": scheduled, "attempt": attempt.number, "ok": ok}
        live.submit("complete", args)
    return len(running)


def runs_of(live: LiveService, job_id: str) -> dict[int, str]:
    view = job_json(live.state, live.engine.query.job(job_id))
    return {run["tick"]: run["status"] for run in view["runs"]}


STEP = st.one_of(
    st.tuples(st.just("schedule"), st.integers(0, 5), st.integers(1, 50)),
    st.tuples(st.just("wait"), st.integers(1, 120), st.just(0)),
    st.tuples(st.just("complete"), st.booleans(), st.just(0)),
    st.tuples(st.just("cancel"), st.integers(0, 5), st.just(0)),
    st.tuples(st.just("delete"), st.integers(0, 5), st.just(0)),
    st.tuples(st.just("modify"), st.integers(0, 5), st.integers(1, 50)),
)


@settings(max_examples=25)
@given(steps=st.lists(STEP, max_size=25), snapshot_every=st.sampled_from([2, 9, 10**9]))
def test_a_restart_answers_exactly_as_before(steps, snapshot_every) -> None:
    store = MemoryStore()
    wall = Wall()
    live = open_live(store, wall, workers=2, snapshot_every=snapshot_every, misfire_grace=10**9)
    for verb, number, value in steps:
        if verb == "schedule":
            live.submit("schedule", {"id": f"j{number}", "every": value, "max_retries": 1})
        elif verb == "wait":
            wall.now += number
            live.advance_clock()
        elif verb == "complete":
            complete_running(live, ok=bool(number))
        elif verb == "modify":
            live.submit("modify", {"job": f"j{number}", "every": value, "priority": "high"})
        else:
            live.submit(verb, {"job": f"j{number}"})
    before = answers(live)
    replayed = LiveService(store, live.clock, live.config)
    replayed.load_snapshot()
    replayed.replay()
    assert answers(replayed) == before
    running = set(live.engine.query.record_keys(OccurrenceState.RUNNING))
    again = open_live(store, wall, workers=2, snapshot_every=snapshot_every, misfire_grace=10**9)
    assert lost_attempts(again) == lost_attempts(live) | {
        (job_id, scheduled, live.engine.query.record(job_id, scheduled).running_attempt.number)
        for job_id, scheduled in running
    }, "a restart records lost exactly the attempts it finds running"


def lost_attempts(live: LiveService) -> set[tuple[str, int, int]]:
    return {
        (row.job_id, row.scheduled, attempt.number)
        for row in live.engine.query.runs(limit=10**6).items
        for attempt in row.attempts
        if attempt.outcome.value == "LOST"
    }


def test_a_snapshot_and_its_tail_give_what_the_whole_journal_gives() -> None:
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=1, snapshot_every=7)
    live.submit("schedule", {"id": "a", "every": 10})
    for _ in range(30):
        wall.now += 5
        live.advance_clock()
        complete_running(live)
    assert store.journal.latest_snapshot() is not None
    before = answers(live)
    replayed = LiveService(store, live.clock, live.config)
    store.journal.save_snapshot(0, b"")  # not the latest: the newest snapshot wins
    latest = store.journal.latest_snapshot()
    assert latest is not None and latest.seq > 0
    replayed.open()
    assert answers(replayed) == before


def test_an_invalid_input_is_refused_before_the_journal() -> None:
    live = open_live(MemoryStore(), Wall())
    rows = live.store.journal.last_seq()
    with pytest.raises(InputInvalid):
        live.submit("schedule", {"id": "a", "every": 0})
    assert live.store.journal.last_seq() == rows


def test_downtime_within_the_grace_runs_every_missed_run_late() -> None:
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=1, misfire_grace=100)
    live.submit("schedule", {"id": "a", "every": 10, "first": "+10"})
    wall.now += 95
    live = open_live(store, wall, workers=1, misfire_grace=100)
    for _ in range(12):
        wall.now += 1
        live.advance_clock()
        complete_running(live)
    assert [tick - START for tick, status in runs_of(live, "a").items()][:9] == list(
        range(10, 100, 10)
    )


@pytest.mark.parametrize(("catch_up", "missed_runs"), [("latest", 1), ("all", 20), ("skip", 0)])
def test_downtime_past_the_grace_follows_the_jobs_catch_up(catch_up: str, missed_runs: int) -> None:
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=1, misfire_grace=60)
    live.submit("schedule", {"id": "a", "every": 10, "first": "+10", "catch_up": catch_up})
    wall.now += 205  # down from START to START + 205: runs at +10 ... +200 were missed
    live = open_live(store, wall, workers=1, misfire_grace=60)
    for _ in range(40):
        complete_running(live)
        wall.now += 0.5
        live.advance_clock()
    rows = live.engine.query.runs(job_id="a", limit=1000).items
    listed = [
        row
        for row in rows
        if row.scheduled - START <= 200 and row.state is OccurrenceState.SUCCEEDED
    ]
    assert len(listed) == missed_runs
    if catch_up == "latest":
        assert listed[0].scheduled == START + 200


def test_the_idempotency_key_names_a_run_not_an_attempt() -> None:
    assert idempotency_key("a", 10) == idempotency_key("a", 10)
    assert len({idempotency_key("a", 10), idempotency_key("a", 11), idempotency_key("b", 10)}) == 3
    assert len({idempotency_key("a,1", 0), idempotency_key("a", 10)}) == 2


def test_the_clock_continues_across_restarts_and_speed_changes() -> None:
    wall = Wall()
    first = LiveClock.resume(None, 1.0, wall)
    assert first.now() == START
    wall.now += 10
    again = LiveClock.resume(first.anchor, 1.0, wall)
    assert again.now() == START + 10
    faster = LiveClock.resume(again.anchor, 60.0, wall)
    wall.now += 1
    assert faster.now() == START + 70
    assert Anchor.loads(faster.anchor.dumps()) == faster.anchor


def test_an_observer_that_fails_fails_its_own_input_alone() -> None:
    """The events an observer (the structured log, the metrics) failed on are still noted and
    dropped: kept, they failed every later input again (every answer a 500)."""
    live = open_live(MemoryStore(), Wall(), workers=1)

    def observer(events) -> None:  # a bug with one event (as the log's with a far-future run)
        if any(getattr(event, "job_id", None) == "a" for event in events):
            raise RuntimeError("an observer's bug")

    live.on_events.append(observer)
    with pytest.raises(RuntimeError):
        live.submit("schedule", {"id": "a", "every": 60})
    assert len(live.engine.log) == 0
    assert live.state.recent["a"], "the runs the events touched are noted all the same"
    assert live.submit("schedule", {"id": "b", "every": 60}).accepted
    assert sorted(live.engine.query.jobs()) == ["a", "b"]
