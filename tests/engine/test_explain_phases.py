"""A run's "Time so far", a tick that is not a run yet, the forecast's end, a failure's reason.

Each answer is checked against the scenario's own events: the phases of a run are its life cut
into pieces that do not overlap, named after what held it (a pause, a dependency, a worker,
a backoff) as its events say.
"""

from __future__ import annotations

import pytest

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.phases import phases
from engine.model.records import OccurrenceState
from tests.engine.explain_helpers import PAUSED_WHILE_QUEUED, bundled, history_at, inline, why
from tests.engine.test_explain_attempts import PLAYED_TO_AN_END

S = OccurrenceState


def _phase_rows(text: str) -> list[str]:
    """The lines of the answer's "Time so far" section, without their guides."""
    lines = text.splitlines()
    start = next(i for i, row in enumerate(lines) if row.endswith("Time so far"))
    rows = []
    for row in lines[start + 1 :]:
        if not row.startswith(("│  ├─ ", "│  └─ ")):
            break
        rows.append(row[6:])
    return rows


@pytest.mark.parametrize(
    ("name", "job", "scheduled", "expected"),
    [
        # Fell due while paused, created by the resume at 95, started at once (15 idle workers).
        (
            "semantics/missed-runs-after-a-pause.yaml",
            "airflow-catchup",
            30,
            ["paused: 65 ticks", "running: 1 tick"],
        ),
        (
            "semantics/scheduler-outage.yaml",
            "hourly",
            10,
            ["paused: 85 ticks", "running: 1 tick"],
        ),
        # BLOCKED from its tick until transform@120 succeeded at 150, then started at once.
        (
            "semantics/dependencies-airflow.yaml",
            "load",
            120,
            ["waiting for a dependency: 30 ticks", "running: 10 ticks"],
        ),
        (
            "semantics/dependencies-airflow.yaml",
            "cleanup",
            60,
            ["waiting for a dependency: 10 ticks", "running: 1 tick"],
        ),
        # Unblocked and cancelled at 70 by the cascade: it never waited for a worker.
        ("semantics/dependencies-airflow.yaml", "load", 60, ["waiting for a dependency: 10 ticks"]),
        ("semantics/trigger-rules.yaml", "all-success", 0, ["waiting for a dependency: 4 ticks"]),
        # Held by BufferAll from its tick until buffer-all@10 ended at 50 and released it.
        (
            "semantics/overlap-temporal.yaml",
            "buffer-all",
            20,
            ["waiting for a slot (overlap rule): 30 ticks", "running: 25 ticks"],
        ),
    ],
)
def test_the_phases_name_what_held_the_run(
    name: str, job: str, scheduled: int, expected: list[str]
) -> None:
    scenario = bundled(name)
    assert scenario.until is not None
    assert _phase_rows(why(scenario, job, scheduled, at=scenario.until)) == expected


def test_a_pause_does_not_hold_a_run_created_before_it() -> None:
    """A pause stops the creation of runs; q@1, created at 1, waits for the worker (and starts
    at 10, paused or not), so all its wait is for a worker."""
    assert _phase_rows(why(inline(PAUSED_WHILE_QUEUED), "q", 1, at=40)) == [
        "waiting for a worker: 9 ticks",
        "running: 2 ticks",
    ]


@pytest.mark.parametrize(
    ("name", "job", "scheduled"),
    [
        ("semantics/overlap-kubernetes.yaml", "replace", 0),
        ("semantics/overlap-temporal.yaml", "cancel-other", 10),
    ],
)
def test_a_terminated_attempt_stops_running_when_it_is_terminated(
    name: str, job: str, scheduled: int
) -> None:
    scenario = bundled(name)
    assert _phase_rows(why(scenario, job, scheduled, at=100)) == ["running: 10 ticks"]


@pytest.mark.parametrize("name", PLAYED_TO_AN_END)
def test_the_phases_cut_every_runs_life_without_overlap(name: str) -> None:
    """In every bundled scenario, at its end and half way: the phases of a run that has not
    ended sum to its life so far; those of a run that ended in an attempt sum to its life up to
    that attempt's end; its running time is its attempts' time."""
    scenario = bundled(name)
    assert scenario.until is not None
    for at in (scenario.until // 2, scenario.until):
        history = history_at(scenario, at)
        engine = history.engine
        context = Context(engine, scenario.clock)
        for (job_id, scheduled), record in engine.query.records().items():
            if scheduled > at:
                continue
            found = phases(context, job_id, scheduled)
            total = sum(ticks for _, ticks in found.named())
            ran = sum((a.ended if a.ended is not None else at) - a.started for a in record.attempts)
            assert found.running == ran, (job_id, scheduled, at)
            if not record.state.is_final:
                assert total == at - scheduled, (job_id, scheduled, at, found)
            elif record.state in (S.SUCCEEDED, S.FAILED) and record.attempts:
                last = record.attempts[-1].ended
                assert total == last - scheduled, (job_id, scheduled, at, found)
            else:
                assert total <= at - scheduled, (job_id, scheduled, at, found)


def test_a_past_tick_of_a_paused_job_says_it_is_paused_and_what_its_resume_does() -> None:
    text = why(bundled("semantics/scheduler-outage.yaml"), "hourly", 10, at=50)
    assert (
        text.splitlines()[0] == "hourly@10 is SCHEDULED at tick 50: not created, its job is paused"
    )
    assert (
        "its job was paused at tick 5, by a pause or a scheduler_down window: no run of it is "
        "created while it is paused" in text
    )
    assert "it is resumed at tick 95, if nothing changes" in text
    assert "its missed-run rule decides what happens to this run: catch_up: all" in text
    assert "at that resume the rule runs this run" in text


def test_a_run_the_resume_will_leave_out_says_so() -> None:
    text = why(bundled("semantics/missed-runs-after-a-pause.yaml"), "systemd", 40, at=60)
    assert "its job was paused at tick 5" in text
    assert "it is resumed at tick 95, if nothing changes" in text
    assert "catch_up: latest" in text
    assert "at that resume the rule leaves this run out" in text


def test_a_suspended_job_says_it_is_paused_with_no_resume_coming() -> None:
    text = why(bundled("imports/reporting-week.yaml"), "quarterly-cleanup", 0, at=10080)
    assert "its job was paused at tick 0 (Mon 2026-01-05 00:00 +00:00), by a pause" in text
    assert "no resume comes by tick 10080 (Mon 2026-01-12 00:00 +00:00), if nothing changes" in text
    assert "catch_up: latest, max_missed: 100" in text


def test_a_future_tick_after_a_known_resume_falls_due_as_usual() -> None:
    text = why(bundled("semantics/scheduler-outage.yaml"), "hourly", 100, at=50)
    assert "it is resumed at tick 95, if nothing changes" in text
    assert "it falls due after that resume: it is created on time" in text


MANUAL = """
scenario: manual dispatch
policy: {order: fifo, dispatch: manual}
clock: {until: 30}
workers: [w1]
jobs:
  - {id: a, at: 2, duration: 3}
timeline:
  - {at: 10, dispatch: {}}
"""


def test_a_run_under_manual_dispatch_waits_for_the_next_dispatch() -> None:
    text = why(inline(MANUAL), "a", 2, at=5)
    assert text.startswith("a@2 is SCHEDULED at tick 5: not created, no dispatch since it fell due")
    assert "under manual dispatch only a dispatch command creates runs" in text
    assert "the dispatch at tick 10 creates it, if nothing changes" in text


@pytest.mark.parametrize(
    ("name", "job", "scheduled", "at", "expected"),
    [
        (
            "seed-001-aging-cascade.yaml",
            "c",
            0,
            5,
            "it does not start: it is CANCELLED at tick 9 (a cascade from a), if nothing changes",
        ),
        (
            "semantics/worker-shortage.yaml",
            "celery",
            10,
            20,
            "it does not start: it is CANCELLED at tick 26 (expired: not started 15 ticks after "
            "its time), if nothing changes",
        ),
        (
            "semantics/trigger-rules.yaml",
            "all-success",
            0,
            3,
            "it does not start: it is CANCELLED at tick 4 (a cascade from bad), if nothing changes",
        ),
    ],
)
def test_a_run_that_ends_before_it_starts_says_how_and_when(
    name: str, job: str, scheduled: int, at: int, expected: str
) -> None:
    assert expected in why(bundled(name), job, scheduled, at=at)


def test_a_timeout_taken_back_says_its_retries_were_not_used() -> None:
    text = why(bundled("seed-003-service.yaml"), "stuck-export", 0, at=900)
    assert (
        "failed for good after 1 attempt(s): it timed out, and the policy's on_timeout: next_run "
        "takes a timed-out run back without its retries (max_retries 2)" in text
    )


def test_a_run_that_used_its_attempts_says_so() -> None:
    text = why(bundled("seed-001-aging-cascade.yaml"), "a", 0, at=19)
    assert (
        "failed for good after 2 attempt(s): its last allowed attempt failed (max_attempts 2)"
        in (text)
    )


def test_a_wait_for_a_full_pool_is_its_own_phase() -> None:
    """load-c@0 waits from 0 to 20 with four workers idle: warehouse's two slots are taken."""
    text = why(bundled("semantics/pools-airflow.yaml"), "load-c", 0, at=25)
    assert "waiting for a pool slot (warehouse): 20 ticks" in text
    assert "waiting for a worker" not in text
    assert "running: 5 ticks" in text


def test_a_pooled_run_that_waits_for_a_worker_says_so() -> None:
    scenario = inline(
        """
scenario: pool and one worker
clock: {until: 40}
policy: {order: fifo}
workers: [w1]
pools: {db: 5}
jobs:
  - {id: long, at: 0, duration: 10, pool: db}
  - {id: short, at: 1, duration: 2, pool: db}
"""
    )
    text = why(scenario, "short", 1, at=20)
    assert "waiting for a worker: 9 ticks" in text
    assert "pool slot" not in text
