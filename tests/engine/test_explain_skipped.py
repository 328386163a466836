"""The "why?" of a tick with no run (a rule skipped it) and of a run a backfill created."""

from __future__ import annotations

from pathlib import Path

from cronlapse.analyses.explain import explain_run, plain
from engine.play.history import History
from engine.scenario import load_scenario

SEMANTICS = Path(__file__).resolve().parents[2] / "scenarios" / "semantics"


def why(name: str, job: str, scheduled: int, at: int) -> str:
    scenario = load_scenario(str(SEMANTICS / name))
    history = History(scenario.new_engine, scenario.commands, scenario.until)
    history.seek(at)
    return plain(explain_run(history, job, scheduled, scenario.clock))


def test_a_run_a_resume_skipped_says_which_rule_left_it_out() -> None:
    answer = why("scheduler-outage.yaml", "cleanup", 50, 100)
    assert "skipped at tick 95" in answer
    assert "catch_up: latest: only the latest missed run runs" in answer
    assert "a backfill can still create it" in answer


def test_kubernetes_limit_is_named_when_it_left_out_the_older_missed_runs() -> None:
    answer = why("scheduler-outage.yaml", "k8s", 50, 100)
    warning = "max_missed: 5: more than 5 runs were missed, so only the latest of them may run"
    assert warning in answer


def test_an_overlap_rule_skip_names_the_rule() -> None:
    answer = why("overlap-kubernetes.yaml", "forbid", 10, 40)
    assert "its rule (overlap: Forbid) skips a new one" in answer


def test_a_backfilled_run_says_when_the_backfill_created_it() -> None:
    answer = why("backfill-airflow.yaml", "extract", 120, 215)
    assert "created by a backfill at tick 210" in answer
    assert "before its backfill: 90 ticks" in answer
    assert "paused" not in answer and "schedule lag" not in answer


def test_a_tick_nothing_skipped_says_nothing_of_skipping() -> None:
    answer = why("backfill-airflow.yaml", "report", 240, 239)
    assert "skipped" not in answer


def test_a_skipped_tick_names_the_fire_time_after_it_not_itself() -> None:
    # Tick 50 is a fire time of cleanup (every 10) that the resume skipped: its next fire time
    # from there is 60, not 50 again.
    answer = why("scheduler-outage.yaml", "cleanup", 50, 100)
    assert "its next fire time from there: tick 60" in answer
