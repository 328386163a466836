"""A waiting run: its phases so far, what holds it now, and when it would start."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.analyses.explain import explain_run
from cronlapse.analyses.explain.forecast import next_start
from engine.model.records import OccurrenceState
from tests.engine.explain_helpers import bundled, history_at, inline, why
from tests.engine.state_fingerprint import state_fingerprint

QUEUE = """
scenario: queue
clock: {until: 40}
policy: {order: priority}
workers: [w1]
jobs:
  - {id: long, duration: 10, priority: 9}
  - {id: high, at: 1, duration: 2, priority: 5}
  - {id: mid, at: 1, duration: 2, priority: 3}
  - {id: low, at: 1, duration: 2, priority: 1}
"""


def test_a_queued_run_names_the_busy_worker_and_the_runs_ahead_in_order() -> None:
    text = why(inline(QUEUE), "low", 1, at=4)
    assert "waiting for a worker: 3 ticks" in text
    assert "workers: 1 busy, 0 idle, 0 down of 1" in text
    assert "w1 runs long@0 #1 since tick 0, ends at tick 10 by its duration" in text
    assert "2 run(s) ahead of it, by priority order" in text
    assert text.index("high@1 priority 5") < text.index("mid@1 priority 3")
    assert "it would start at tick 14 on w1, in 10 ticks, if nothing changes" in text


def test_busy_workers_are_listed_soonest_to_finish_first_and_the_rest_counted() -> None:
    jobs = "".join(f"  - {{id: j{n}, duration: {20 - n}}}\n" for n in range(7))
    workers = ", ".join(f"w{n}" for n in range(7))
    scenario = inline(
        f"scenario: busy\nclock: {{until: 30}}\nworkers: [{workers}]\njobs:\n{jobs}"
        "  - {id: late, at: 1}\n"
    )
    text = why(scenario, "late", 1, at=2)
    assert text.index("w6 runs j6@0") < text.index("w5 runs j5@0") < text.index("w2 runs j2@0")
    assert "w1 runs" not in text and "and 2 more busy" in text


def test_the_aging_order_shows_the_aged_priority_with_its_numbers() -> None:
    aging = QUEUE.replace("order: priority", "order: aging, aging_step: 2")
    text = why(inline(aging), "low", 1, at=7)
    assert "aged priority = priority + waited // 2" in text
    assert "its aged priority: 1 + 6 // 2 = 4" in text


def test_a_worker_down_shows_and_the_forecast_waits_for_it_to_come_back() -> None:
    text = why(bundled("worker-crash.yaml"), "hourly", 60, at=70)
    assert "down: w-a" in text
    assert "w-b runs render@0 #2 since tick 30, ends at tick 90 by its duration" in text
    assert "it would start at tick 90 on w-a, in 20 ticks" in text


def test_a_blocked_run_names_the_dependency_it_waits_for() -> None:
    text = why(bundled("seed-001-aging-cascade.yaml"), "c", 0, at=8)
    assert "is BLOCKED" in text
    assert "waiting for a dependency: 8 ticks" in text
    assert "waits for a@0, which is RUNNING" in text


def test_a_run_that_does_not_start_in_the_ticks_played_says_so() -> None:
    scenario = inline(QUEUE.replace("duration: 10, priority: 9", "duration: 100, priority: 9"))
    text = why(scenario, "low", 1, at=4)
    assert "it does not start by tick 40, if nothing changes" in text


def test_the_forecast_leaves_the_history_where_it_was() -> None:
    scenario = bundled("nightly-etl-dst.yaml")
    history = history_at(scenario, 1565)
    before = state_fingerprint(history.engine)
    explain_run(history, "transform", 1560, scenario.clock)
    assert history.tick == 1565
    assert state_fingerprint(history.engine) == before


@settings(max_examples=15)
@given(at=st.integers(min_value=0, max_value=60))
def test_the_forecast_is_the_start_a_run_on_shows(at: int) -> None:
    """For every waiting run at any tick, the forecast start is the tick its next attempt starts
    when the history simply plays on."""
    scenario = bundled("retry-storm-jitter.yaml")
    history = history_at(scenario, at)
    engine = history.engine
    waiting = [
        (row.job_id, row.scheduled, len(row.attempts))
        for state in (OccurrenceState.QUEUED, OccurrenceState.RETRY_PENDING)
        for row in engine.query.runs(state=state, limit=1000).items
    ]
    forecasts = [next_start(history, job, tick) for job, tick, _ in waiting]
    history.seek(scenario.until)
    for (job, tick, attempts), forecast in zip(waiting, forecasts, strict=True):
        record = history.engine.query.record(job, tick)
        started = (
            record.attempts[attempts].started
            if record and len(record.attempts) > attempts
            else None
        )
        assert forecast.start == started
