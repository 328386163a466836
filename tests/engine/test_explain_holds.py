"""What holds a waiting run: the answers the audit of Why? found wrong or missing.

Each case names a bundled scenario and a run, and checks the section "What holds it now" against
what the scenario's events show happens to that run.
"""

from __future__ import annotations

from tests.engine.explain_helpers import PAUSED_WHILE_QUEUED, bundled, inline, why

AT_THE_POOL = "semantics/pools-airflow.yaml"


def test_a_run_held_by_a_full_pool_says_so_and_names_the_runs_holding_its_slots() -> None:
    text = why(bundled(AT_THE_POOL), "load-c", 0, at=10)
    assert "its pool warehouse is full: 2 of 2 slots in use" in text
    assert "load-a@0 on w1" in text and "load-b@0 on w2" in text
    assert "it takes the first slot that frees" in text
    assert "an idle worker takes it" not in text
    assert "not in the ready queue" not in text


def test_a_run_held_by_max_active_runs_names_the_active_runs() -> None:
    text = why(bundled("semantics/overlap-airflow.yaml"), "dag", 20, at=22)
    assert "held by its job's overlap rule max_active_runs: 2 of 2 active runs" in text
    assert "dag@0" in text and "dag@10" in text
    assert "it starts when one of them ends" in text
    assert "an idle worker takes it" not in text
    assert "not in the ready queue" not in text


def test_a_run_behind_a_buffer_all_hold_is_held_too() -> None:
    text = why(bundled("semantics/overlap-temporal.yaml"), "buffer-all", 30, at=60)
    assert "held by its job's overlap rule BufferAll: 1 of 1 active runs" in text
    assert "buffer-all@20" in text
    assert "an idle worker takes it" not in text


def test_a_dependency_on_a_recurring_job_names_the_upstream_run_and_its_state() -> None:
    text = why(bundled("semantics/dependencies-airflow.yaml"), "transform", 0, at=5)
    assert "waits for extract@0, which is RUNNING" in text
    assert "not scheduled" not in text


def test_a_trigger_rule_says_what_it_waits_for_and_what_no_longer_holds_it() -> None:
    text = why(bundled("semantics/trigger-rules.yaml"), "one-failed", 0, at=3)
    assert "trigger rule one_failed: it runs as soon as one upstream run fails" in text
    assert "waits for bad@0, which is RUNNING" in text
    assert "good@0 succeeded" in text
    assert "waits for good@0" not in text


def test_a_queued_run_of_a_paused_job_still_runs() -> None:
    text = why(inline(PAUSED_WHILE_QUEUED), "q", 1, at=5)
    assert "no run of it starts until it is resumed" not in text
    assert "its job is paused since tick 3" in text
    assert "this run was waiting already: a pause holds back only runs still to fall due" in text
    assert "it would start at tick 10" in text


def test_runs_behind_another_jobs_front_are_counted_ahead() -> None:
    """FIFO: airflow@10 to @40 and systemd@10 to @30 start before systemd@40; celery@40 is
    ahead too, until it expires at 56."""
    text = why(bundled("semantics/worker-shortage.yaml"), "systemd", 40, at=49)
    assert "8 run(s) ahead of it" in text
    assert "celery@40 priority 0 (low), expires at tick 56 unless it starts" in text
    assert "3 more run(s) of airflow behind airflow@10" in text
    assert "3 earlier run(s) of systemd first" in text


def test_a_front_at_tick_0_is_in_the_ready_queue() -> None:
    text = why(bundled("semantics/deadline-airflow.yaml"), "report", 30, at=45)
    assert "not in the ready queue" not in text
    assert "run(s) ahead of it" in text


def test_the_aged_priority_is_the_runs_own() -> None:
    """hot@24 has waited nothing at 24; hot@20, its job's front, has waited 4."""
    text = why(bundled("starvation-aging.yaml"), "hot", 24, at=24)
    assert "its aged priority: 2 + 0 // 10 = 2" in text


def test_starvation_names_the_runs_that_fall_due_before_a_worker_frees() -> None:
    text = why(bundled("starvation-priority.yaml"), "batch", 0, at=1)
    assert "falls due by tick 2, when a worker frees, and goes first" in text
    assert "hot@2 priority 2 (high)" in text


def test_a_busy_worker_ends_by_its_timeout_when_that_comes_first() -> None:
    scenario = inline(
        """
scenario: timeout probe
policy: {order: fifo}
clock: {until: 60}
workers: [w1]
jobs:
  - {id: long, at: 0, duration: 40, timeout: 10, max_retries: 0}
  - {id: short, at: 1, duration: 2}
"""
    )
    text = why(scenario, "short", 1, at=5)
    assert "w1 runs long@0 #1 since tick 0, ends at tick 10 by its timeout" in text
    assert "it would start at tick 10 on w1" in text


def test_a_hung_attempt_ends_by_its_timeout() -> None:
    text = why(bundled("stuck-job-timeout.yaml"), "report", 1, at=3)
    assert "runs sync-ledger@0 #1 since tick 0" in text
    assert "ends at tick 5 (Mon 2026-05-04 09:05 +00:00) by its timeout" in text


def test_priorities_read_with_their_names() -> None:
    text = why(bundled("starvation-priority.yaml"), "batch", 0, at=1)
    assert "its priority: 0 (low)" in text
