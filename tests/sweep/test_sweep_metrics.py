"""Metrics: names, selectors, waits that count runs still waiting, and the replicas' intervals."""

from __future__ import annotations

import math
import statistics

import pytest
from sweep_helpers import QUEUE, longest_wait

from cronlapse.analyses.sweep.evaluate import Task, evaluate
from cronlapse.analyses.sweep.keys import parse_key
from cronlapse.analyses.sweep.metrics import MetricError, parse_metric
from cronlapse.analyses.sweep.summary import estimate, t_975

WORKERS = parse_key("workers")


def _play(text: str, workers: int, *metrics: str, until: int | None = None) -> tuple:
    task = Task(0, 0, "q.yaml", text, ((WORKERS, workers),), 0, metrics, until)
    outcome = evaluate(task)
    assert outcome.error is None, outcome.error
    return outcome.values


@pytest.mark.parametrize("workers", [1, 2, 3, 4, 5, 6, 12])
def test_the_longest_wait_is_known_by_construction(workers: int) -> None:
    assert _play(QUEUE, workers, "max_wait") == (float(longest_wait(workers)),)


def test_a_run_still_waiting_at_the_end_counts_with_its_wait_so_far() -> None:
    # One worker, stopped at tick 25: jobs 0-2 have started (waits 0, 10, 20); nine still wait
    # 25 ticks. Leaving them out would report a longest wait of 20.
    assert _play(QUEUE, 1, "max_wait", "p50_wait", "runs", until=25) == (25.0, 25.0, 3.0)


def test_selectors_pick_a_job_or_a_priority() -> None:
    text = QUEUE.replace("job: {at: 0, duration: 10}", "job: {at: 0, duration: 10, priority: low}")
    text += "jobs:\n  - {id: urgent, at: 5, duration: 10, priority: high}\n"
    values = _play(text, 2, "max_wait[job=urgent]", "p95_wait[priority=high]", "runs[priority=low]")
    # fifo: the urgent run (due at 5) starts at 60, after the twelve queued before it.
    assert values == (55.0, 55.0, 12.0)


def test_utilisation_is_the_workers_busy_share() -> None:
    # 120 ticks of work on 2 workers over the 60 ticks it takes: both busy all the time.
    assert _play(QUEUE, 2, "utilisation", until=60) == (1.0,)


@pytest.mark.parametrize(
    "name",
    ["p95_wait", "max_lag[job=etl]", "p50_backoff[priority=3]", "runs[priority=low]", "skipped"],
)
def test_known_metric_names_parse(name: str) -> None:
    assert parse_metric(name).name == name


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("p97_wait", "unknown metric 'p97_wait': expected one of p50_lag"),
        ("p95_wait[team=a]", "select by priority or job"),
        ("p95_wait[priority=urgent]", "a priority is high, medium, low or a whole number"),
        ("utilisation[job=a]", "utilisation is the whole fleet's, without a selector"),
        ("failed[priority=high]", "failed is the whole fleet's, without a selector"),
    ],
)
def test_unknown_metrics_say_what_is_known(name: str, message: str) -> None:
    with pytest.raises(MetricError) as raised:
        parse_metric(name)
    assert message in str(raised.value)


def test_the_interval_is_students_t() -> None:
    values = [10.0, 12.0, 9.0, 14.0, 11.0]
    found = estimate(values)
    expected = 2.776 * statistics.stdev(values) / math.sqrt(5)
    assert found.mean == 11.2
    assert found.half_width == pytest.approx(expected)
    assert estimate([3.0]).half_width is None
    assert estimate([None, 4.0, None]).mean == 4.0
    assert estimate([None]).samples == 0
    assert t_975(1) == 12.706 and t_975(30) == 2.042 and t_975(45) == 2.021
