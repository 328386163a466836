"""Pausing and resuming a job, and each job's last success and failure (issue 36, item 7): on the
live engine, through the one write path, and the same after a restart (replay or snapshot)."""

from __future__ import annotations

import pickle

import pytest

from cronlapse.service.codec import InputInvalid
from cronlapse.service.live import LiveState, fresh_state
from cronlapse.service.metrics import Metrics
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.views import iso, job_json
from engine.model.commands import Outcome
from engine.model.records import OccurrenceState
from tests.service.test_live import START, Wall, answers, complete_running, open_live


def view(live, job_id: str) -> dict:
    job = live.engine.query.live_job(job_id)
    assert job is not None
    return job_json(live.state, job)


def running(live) -> list[tuple[str, int]]:
    return list(live.engine.query.record_keys(OccurrenceState.RUNNING))


def test_a_paused_job_starts_no_run_until_resumed_and_a_restart_says_the_same() -> None:
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "etl", "every": 60, "first": "+60"})
    assert live.submit("pause", {"job": "etl"}).outcome is Outcome.OK
    assert view(live, "etl")["paused"] is True
    again = live.submit("pause", {"job": "etl"})
    assert (again.outcome, again.message) == (Outcome.CONFLICT, "etl is already paused")
    wall.now += 60
    live.advance_clock()
    assert running(live) == [], "a paused job starts no run"
    assert answers(open_live(store, wall, workers=1)) == answers(live)
    assert live.submit("resume", {"job": "etl"}).outcome is Outcome.OK
    assert view(live, "etl")["paused"] is False
    assert running(live) == [("etl", START + 60)], "the run missed while paused: catch_up latest"
    refused = live.submit("resume", {"job": "etl"})
    assert (refused.outcome, refused.message) == (Outcome.CONFLICT, "etl is not paused")
    # A restart records a running attempt lost and retries it (its executor died with the
    # server): the run ends first, so that the restart has nothing to take over.
    complete_running(live)
    assert answers(open_live(store, wall, workers=1)) == answers(live)


def test_each_job_shows_when_its_last_run_succeeded_and_failed() -> None:
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "etl", "every": 60})
    assert (view(live, "etl")["last_success"], view(live, "etl")["last_failure"]) == (None, None)
    wall.now += 5
    live.advance_clock()
    complete_running(live, ok=True)
    succeeded = live.engine.now
    wall.now += 60
    live.advance_clock()
    complete_running(live, ok=False)  # no retries: the run failed for good
    failed = live.engine.now
    assert view(live, "etl")["last_success"] == iso(succeeded)
    assert view(live, "etl")["last_failure"] == iso(failed)
    assert answers(open_live(store, wall, workers=1)) == answers(live)
    live.snapshot()
    restarted = open_live(store, wall, workers=1)
    assert view(restarted, "etl")["last_failure"] == iso(failed)
    text = Metrics().text(live.engine, live.state)
    assert f'cronlapse_job_last_success_timestamp_seconds{{job="etl"}} {succeeded}' in text
    assert f'cronlapse_job_last_failure_timestamp_seconds{{job="etl"}} {failed}' in text


def test_a_deleted_job_has_no_last_times_in_the_metrics() -> None:
    live = open_live(MemoryStore(), Wall(), workers=1)
    live.submit("schedule", {"id": "once"})
    complete_running(live, ok=True)
    live.submit("delete", {"job": "once"})
    assert 'job="once"' not in Metrics().text(live.engine, live.state)


def test_a_snapshot_from_before_the_last_times_loads_with_none() -> None:
    """An older cronlapse pickled its state without them: a restart must not fail reading them
    (issue 36: an attribute missing after a restart broke ``export``)."""
    state = fresh_state()
    saved = pickle.dumps(state)
    older = {key: value for key, value in vars(state).items() if not key.startswith("last_")}
    state.__dict__.clear()
    state.__dict__.update(older)
    loaded = pickle.loads(pickle.dumps(state))
    assert isinstance(loaded, LiveState)
    assert (loaded.last_success, loaded.last_failure) == ({}, {})
    assert pickle.loads(saved).last_success == {}


def test_a_change_asked_after_the_run_waits_for_its_end_and_a_restart_keeps_it() -> None:
    """``after_run``: the change is journaled and kept while the job's run runs; once the run
    ends, the server applies it as a row of its own (``kept``), which takes it off the list."""
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "etl", "every": 60})
    assert running(live) == [("etl", START)]
    assert live.submit("modify", {"job": "etl", "priority": "high", "after_run": True}).accepted
    assert live.submit("delete", {"job": "etl", "after_run": True}).accepted
    assert view(live, "etl")["priority"] == "low", "kept, not applied"
    assert live.kept_due() == []
    restarted = open_live(store, wall, workers=1)
    assert (
        restarted.state.kept
        == live.state.kept
        == {"etl": [("modify", {"job": "etl", "priority": "high"}), ("delete", {"job": "etl"})]}
    )
    # The restart took the server over (its running attempt lost and retried): go on there.
    # The run's end applies both changes, in order, in its own input.
    live = restarted
    complete_running(live)
    assert live.engine.query.live_job("etl") is None and live.state.kept == {}
    assert answers(open_live(store, wall, workers=1)) == answers(live)


def test_a_kept_row_whose_change_a_runs_end_applied_changes_nothing() -> None:
    """The server submits a ``kept`` row for a job its run freed; if the run's end applied the
    change first, the row must not apply it twice (a second ``cancel`` cancels another run)."""
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "etl", "every": 60})
    live.submit("modify", {"job": "etl", "priority": "high", "after_run": True})
    row = ("modify", {"job": "etl", "priority": "high", "kept": True})
    complete_running(live)
    assert live.state.kept == {}
    live.submit("modify", {"job": "etl", "priority": "low"})
    assert live.submit(*row).accepted
    assert view(live, "etl")["priority"] == "low", "the row applied nothing"


def test_a_kept_change_refused_because_a_run_runs_again_stays_first() -> None:
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "etl", "every": 60})
    live.submit("modify", {"job": "etl", "priority": "high", "after_run": True})
    refused = live.submit("modify", {"job": "etl", "priority": "high", "kept": True})
    assert refused.outcome is Outcome.CONFLICT
    assert live.state.kept == {"etl": [("modify", {"job": "etl", "priority": "high"})]}


def test_the_journal_keys_of_a_kept_change_are_checked() -> None:
    live = open_live(MemoryStore(), Wall(), workers=1)
    live.submit("schedule", {"id": "etl", "every": 60})
    for args in (
        {"job": "etl", "after_run": "yes"},
        {"job": "etl", "after_run": True, "kept": True},
        {"job": "etl", "after_run": True, "priority": "urgent"},
    ):
        with pytest.raises(InputInvalid):
            live.submit("modify", args)
    assert live.state.kept == {}


def test_a_change_kept_for_the_current_run_applies_at_its_end_though_the_next_run_starts() -> None:
    """A job whose next run waits behind the current one: the run's end starts the next run in
    the same input, and the kept change must apply between the two, not wait for every run of
    the job (issue 36: it was refused again and again while the runs overlapped)."""
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "etl", "every": 60})
    assert live.submit("modify", {"job": "etl", "priority": "high", "after_run": True}).accepted
    wall.now += 90
    live.advance_clock()  # the run of START + 60 is due and waits for the only slot
    complete_running(live)
    assert running(live) == [("etl", START + 60)], "the next run started at once"
    assert view(live, "etl")["priority"] == "high", "the change applied at the first run's end"
    assert live.state.kept == {} and live.kept_due() == []
    restarted = open_live(store, wall, workers=1)  # the journal replayed: the same place
    assert (view(restarted, "etl")["priority"], restarted.state.kept) == ("high", {})
