"""``cronlapse export --scenario``: a stretch of a service's journal replays as a scenario, event
for event, with the answers the service gave (in-process, on the memory store, here; the command
on SQLite files: test_export_cli.py; a real server for a simulated hour: test_export_server.py)."""

from __future__ import annotations

import random
from pathlib import Path

from export_helpers import scenario_events, service_events
from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.service.export import Stretch, export_journal
from cronlapse.service.journal_replay import busy
from cronlapse.service.live import LiveService
from cronlapse.service.store import Store
from cronlapse.service.store.memory import MemoryStore
from engine.model.records import OccurrenceState
from tests.service.test_live import Wall, complete_running, open_live
from tui.model.session import load_session

JOBS = [
    {"id": "a", "every": 60, "max_retries": 2},
    {"id": "b", "cron": "*/2 * * * *", "priority": "high", "max_retries": 1},
    {
        "id": "c",
        "at": "+300",
        "notify": [{"on": ["succeeded", "failed"], "channel": "webhook", "to": "hook"}],
    },
]


def drive(live: LiveService, wall: Wall, rng: random.Random, steps: int, prompt: bool) -> None:
    """Random inputs as a service gets them; ``prompt``: every running attempt reports at once
    (the stretch then has moments where nothing is in flight)."""
    for job in JOBS:
        live.submit("schedule", dict(job))
    for step in range(steps):
        wall.now += rng.choice([1, 5, 17, 30])
        live.advance_clock()
        running = list(live.engine.query.record_keys(OccurrenceState.RUNNING))
        for job_id, scheduled in running if prompt else running[:1]:
            attempt = live.engine.query.record(job_id, scheduled).running_attempt
            assert attempt is not None
            ok = rng.random() < 0.6
            args = {"job": job_id, "scheduled": scheduled, "attempt": attempt.number, "ok": ok}
            live.submit("complete", args)
        roll = rng.random()
        if roll < 0.05:
            live.submit("modify", {"job": "a", "every": rng.choice([30, 60, 90]), "run": "noop"})
        elif roll < 0.1:
            live.submit("cancel", {"job": rng.choice("abc")})
        elif roll < 0.13:
            live.submit("schedule", {"id": f"n{step}", "every": 45, "max_retries": 1})
        elif roll < 0.14:
            live.submit("delete", {"job": rng.choice("abc")})
        elif roll < 0.15:
            live.submit("modify", {"job": "a", "run": "noop"})


def journal(seed: int, prompt: bool, steps: int = 120, store: Store | None = None) -> Store:
    """A service's journal of ``steps`` random inputs, on ``store`` (a new memory store)."""
    store = MemoryStore() if store is None else store
    wall = Wall()
    live = open_live(store, wall, workers=2)
    drive(live, wall, random.Random(seed), steps, prompt)
    return store


def export(store: Store, start: str | None, end: str | None = None) -> Stretch:
    return export_journal(store, "memory:", start, end)


def assert_reproduced(store: Store, start: str | None, end: str | None = None) -> int:
    stretch = export(store, start, end)
    expected = service_events(store, stretch.start, stretch.end)
    events, runner = scenario_events(stretch.text, stretch.start)
    assert runner.failures == []
    assert events == expected
    assert runner.rejections == []
    return stretch.start


@settings(max_examples=15)
@given(seed=st.integers(0, 10**6), prompt=st.booleans(), at=st.floats(0, 1), to=st.floats(0, 1))
def test_a_stretch_replays_the_services_events_exactly(
    seed: int, prompt: bool, at: float, to: float
) -> None:
    store = journal(seed, prompt)
    assert_reproduced(store, None)
    rows = list(store.journal.rows_after(0))
    first, last = rows[0].tick, rows[-1].tick
    start = first + int(at * (last - first))
    assert_reproduced(store, str(start), str(start + int(to * (last - start))))


def test_a_stretch_from_a_quiet_moment_continues_the_generator() -> None:
    store = journal(7, prompt=True, steps=200)
    stretch = export(store, "+2000", None)
    assert stretch.start > 1_001_000
    assert "seed_skip: 0\n" not in stretch.text  # retries drew jittered backoffs before it
    assert_reproduced(store, "+2000")


def test_a_start_in_the_middle_of_a_run_moves_back_to_the_last_quiet_moment() -> None:
    store = journal(3, prompt=False)
    stretch = export(store, "+800", None)
    assert stretch.start < 1_000_000 + 800
    assert stretch.moved is not None


def test_the_dashboard_opens_it_and_plays_the_same_events(tmp_path: Path) -> None:
    store = journal(5, prompt=True)
    stretch = export(store, None, None)
    target = tmp_path / "incident.yaml"
    target.write_text(stretch.text, encoding="utf-8")
    session = load_session(target)
    session.history.seek(stretch.end)
    events = [event for event in session.engine.log if event.tick > stretch.start]
    assert events == service_events(store, stretch.start, stretch.end)
    assert session.clock is not None and session.clock.zone.key == "UTC"


def test_a_calendar_run_cancelled_ahead_moves_the_start_before_the_cancel() -> None:
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "cron", "cron": "*/5 * * * *"})
    wall.now += 30
    live.advance_clock()
    live.submit("cancel", {"job": "cron"})  # the 1000200 run, ahead of time
    cancelled_at = live.engine.now
    wall.now += 60
    live.submit("schedule", {"id": "other", "at": "+1000"})
    stretch = export(store, str(cancelled_at + 30), None)
    assert stretch.start < cancelled_at
    assert stretch.moved == "job cron's schedule has a run before 1000500 it will not make"
    assert_reproduced(store, str(cancelled_at + 30))


def test_a_notification_try_awaiting_its_report_is_in_flight() -> None:
    """A reported try that was made but whose end is not journaled yet has no timer left: the
    moment is still busy, or a stretch starting there would lack the notification its report
    ends."""
    live = open_live(MemoryStore(), Wall(), workers=1)
    hook = [{"on": ["succeeded"], "channel": "webhook", "to": "hook"}]
    live.submit("schedule", {"id": "told", "notify": hook})
    complete_running(live)
    assert list(live.pending), "the notification is queued and its try has fallen due"
    assert busy(live.engine, live.pending) is not None
    assert busy(live.engine) is not None
    key = next(iter(live.pending))
    report = dict(zip(("job", "scheduled", "attempt", "event", "channel", "to"), key, strict=True))
    live.submit("delivery", report | {"ok": True})
    assert busy(live.engine, live.pending) is None
    assert busy(live.engine) is None


def test_a_modified_schedule_that_names_no_zone_replays_in_the_zone_the_service_read_it() -> None:
    """Journaled by ``LiveService.submit`` as given (the API adds the job's zone first, and an
    older server did not): the service read the new time in its clock's zone, UTC, and so
    must the scenario, which reads a schedule naming no zone in the job's (Paris)."""
    store = MemoryStore()
    wall = Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "paris", "daily": "02:00", "timezone": "Europe/Paris"})
    wall.now += 60
    live.advance_clock()
    live.submit("modify", {"job": "paris", "daily": "03:00"})
    assert live.engine.query.job("paris").spec.schedule.describe() == "cron 0 3 * * * (UTC)"
    for _ in range(3):
        wall.now += 86_400
        live.advance_clock()
    assert_reproduced(store, None)


def test_an_input_the_engine_refused_after_it_was_journaled_is_exported_as_a_test() -> None:
    """A job in a pool the service does not define: read, journaled, then refused by the engine
    (422). The export writes it with the answer it got; ``check`` refused the file for it."""
    store = MemoryStore()
    wall = Wall()
    live = open_live(store, wall, workers=1)
    assert not live.submit("schedule", {"id": "pooled", "every": 60, "pool": "x"}).accepted
    live.submit("schedule", {"id": "plain", "every": 60})
    wall.now += 600
    live.advance_clock()
    assert_reproduced(store, None)


def test_a_job_of_several_triggers_is_exported_with_them() -> None:
    """A cron list, its one more run and its repeat (a systemd timer's triggers, which the
    service accepts as a scenario does) were exported as no schedule at all: a one-time job."""
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=2)
    live.submit(
        "schedule",
        {"id": "t", "cron": ["*/7 * * * *", "*/5 * * * *"], "first": "+90", "repeat": 120},
    )
    live.submit("schedule", {"id": "other", "every": 45})
    for _ in range(40):
        wall.now += 17
        live.advance_clock()
        for job_id, scheduled in list(live.engine.query.record_keys(OccurrenceState.RUNNING)):
            attempt = live.engine.query.record(job_id, scheduled).running_attempt
            assert attempt is not None
            args = {"job": job_id, "scheduled": scheduled, "attempt": attempt.number, "ok": True}
            live.submit("complete", args)
    stretch = export(store, "+300", None)
    assert '"cron": ["*/7 * * * *", "*/5 * * * *"]' in stretch.text
    assert '"repeat": 120' in stretch.text
    assert_reproduced(store, "+300")


def test_a_restart_after_downtime_is_exported_as_its_pauses_and_resumes() -> None:
    """A ``downtime`` row (a restart past the misfire grace) in the stretch: the jobs it paused
    and resumed, read from the replayed state, reproduce its catch-up."""
    store = MemoryStore()
    wall = Wall()
    live = open_live(store, wall, workers=1, misfire_grace=60)
    live.submit("schedule", {"id": "a", "every": 10, "first": "+10", "catch_up": "latest"})
    live.submit("schedule", {"id": "b", "every": 30, "first": "+15", "catch_up": "skip"})
    for _ in range(3):
        wall.now += 10
        live.advance_clock()
        complete_running(live)
    wall.now += 300  # down: more than the grace
    live = open_live(store, wall, workers=1, misfire_grace=60)
    for _ in range(6):
        complete_running(live)
        wall.now += 10
        live.advance_clock()
    assert "downtime" in [row.verb for row in store.journal.rows_after(0)]
    stretch = export(store, "+5")
    assert '"pause": {"job": "a"}' in stretch.text and '"resume": {"job": "b"}' in stretch.text
    assert_reproduced(store, "+5")


def test_a_restart_that_found_attempts_running_is_exported_as_their_slots_down_and_up() -> None:
    """The restart records the attempts it finds running lost (their slots down, then up): the
    exported stretch replays the loss and the retry."""
    store = MemoryStore()
    wall = Wall()
    live = open_live(store, wall, workers=2)
    live.submit("schedule", {"id": "a", "every": 30, "first": "+10"})
    live.submit("schedule", {"id": "b", "every": 45, "first": "+10"})
    wall.now += 10
    live.advance_clock()
    assert len(live.engine.query.record_keys(OccurrenceState.RUNNING)) == 2
    wall.now += 5
    live = open_live(store, wall, workers=2)
    for _ in range(6):
        complete_running(live)
        wall.now += 10
        live.advance_clock()
    verbs = [row.verb for row in store.journal.rows_after(0)]
    assert verbs.count("down") == verbs.count("up") == 2
    assert_reproduced(store, None)


def test_a_change_kept_for_a_run_whose_next_run_waits_is_exported_with_a_word_why() -> None:
    """The report of the run's end applied the change before its tick's dispatch started the
    job's next run: no scenario command goes there, so the export says so where it writes it."""
    store = MemoryStore()
    wall = Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "a", "every": 60, "first": "+10"})
    wall.now += 10
    live.advance_clock()
    live.submit("modify", {"job": "a", "priority": "high", "after_run": True})
    wall.now += 90
    live.advance_clock()  # a's next run waits for the only slot
    complete_running(live)
    assert live.state.kept == {}
    text = export(store, "+5").text
    comment = text.index("the job's next run, where a scenario's command cannot be")
    assert '"modify": {"job": "a", "priority": "high"}' in text[comment:]


def test_changes_kept_for_a_runs_end_are_exported_where_they_applied() -> None:
    """An ``after_run`` row changes nothing when it is journaled: the report that ends the run
    applies it, and the export writes it there as the plain command it is."""
    store = MemoryStore()
    wall = Wall()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "a", "every": 60, "first": "+10"})
    live.submit("schedule", {"id": "b", "every": 60, "first": "+20"})
    wall.now += 10
    live.advance_clock()
    live.submit("pause", {"job": "a"})
    live.submit("delete", {"job": "a", "after_run": True})
    live.submit("modify", {"job": "a", "priority": "high", "after_run": True})
    wall.now += 5
    live.advance_clock()
    complete_running(live)  # the report of the run's end applies both, after its dispatch
    assert live.engine.query.live_job("a") is None
    wall.now += 60
    live.advance_clock()
    complete_running(live)
    stretch = export(store, "+5")
    assert "after_run" not in stretch.text and "kept" not in stretch.text
    assert '"delete": {"job": "a"}' in stretch.text
    assert_reproduced(store, "+5")
