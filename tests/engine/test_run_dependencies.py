"""Dependencies between recurring jobs, run by run, under Airflow's trigger rules.

The run of ``transform`` for tick T waits for ``extract``'s run for T (its latest run at or
before T); the trigger rule decides from the upstream outcomes whether it runs, waits, is
cancelled as upstream_failed or is skipped, and both cascade downstream.
"""

from __future__ import annotations

import dataclasses

import pytest
from engine_steps import add, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_stateful import EngineMachine

from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import CancelOccurrence, PauseJob, RegisterWorker, ResumeJob
from engine.model.job_rules import Overlap, OverlapRule, TriggerRule
from engine.model.records import CancelReason, JobSpec, OccurrenceState
from engine.rules.run_dependencies import Verdict, verdict
from engine.schedules.kinds import Every, Once

S = OccurrenceState
R = TriggerRule


def fleet(workers: int = 3) -> Engine:
    engine = Engine()
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def started(engine: Engine, job_id: str) -> list[tuple[int, int]]:
    return [
        (e.tick, e.scheduled)
        for e in engine.log
        if isinstance(e, ev.AttemptStarted) and e.job_id == job_id
    ]


def test_a_run_waits_for_the_upstream_run_of_its_tick() -> None:
    engine = fleet()
    add(engine, "extract", Every(0, 60), duration=10)
    add(engine, "transform", Every(0, 60), duration=5, depends_on=("extract",))
    run(engine, 5)
    assert engine.query.run_state("transform", 0) is S.BLOCKED
    run(engine, 80)
    assert started(engine, "transform") == [(10, 0), (70, 60)]


def test_when_schedules_differ_the_upstream_run_is_the_latest_at_or_before() -> None:
    # A load every 60 waits for the extract every 20 whose run fell due last: 60 for 60, and
    # a load at 50 (first=50) waits for the extract at 40.
    engine = fleet()
    add(engine, "extract", Every(0, 20), duration=15)
    add(engine, "load", Every(50, 60), duration=1, depends_on=("extract",))
    run(engine, 120)
    assert started(engine, "load") == [(55, 50), (115, 110)]


def test_an_upstream_job_with_no_run_yet_is_not_waited_for() -> None:
    engine = fleet()
    add(engine, "later", Every(100, 100), duration=1)
    add(engine, "now", Every(0, 50), duration=1, depends_on=("later",))
    run(engine, 60)
    assert started(engine, "now") == [(0, 0), (50, 50)]


def test_a_failure_cascades_as_upstream_failed_down_a_chain() -> None:
    engine = fleet()
    add(engine, "extract", Every(0, 60), duration=5, fail_attempts=frozenset({1}))
    add(engine, "transform", Every(0, 60), duration=5, depends_on=("extract",))
    add(engine, "load", Every(0, 60), duration=5, depends_on=("transform",))
    run(engine, 10)
    for job_id in ("transform", "load"):
        occurrence = engine.query.record(job_id, 0)
        assert occurrence.state is S.CANCELLED
        assert (occurrence.cancel_reason, occurrence.cancel_cause) == (
            CancelReason.CASCADE,
            "extract",
        )
    # The next runs are judged on their own: the chain is not cancelled as a whole.
    assert engine.query.run_state("transform", 60) is S.SCHEDULED


def test_a_skip_cascades_under_all_success() -> None:
    engine = fleet(workers=1)
    add(engine, "slow", Every(0, 10), duration=15, overlap=OverlapRule(Overlap.FORBID))
    add(engine, "next", Every(0, 10), duration=1, depends_on=("slow",))
    add(engine, "last", Every(0, 10), duration=1, depends_on=("next",))
    run(engine, 17)
    # slow@0 runs 0-15, so slow@10 is skipped; next@10 and then last@10 are skipped in turn,
    # each once the run before it on their cursor (next@0 at 15, last@0 at 16) went on.
    skipped = [
        (e.tick, e.job_id, e.scheduled, e.because)
        for e in engine.log
        if isinstance(e, ev.OccurrenceSkipped)
    ]
    assert skipped == [
        (10, "slow", 10, "Forbid"),
        (15, "next", 10, "all_success"),
        (16, "last", 10, "all_success"),
    ]


@pytest.mark.parametrize(
    ("rule", "runs"),
    [
        (R.ALL_SUCCESS, False),
        (R.ALL_FAILED, False),
        (R.ALL_DONE, True),
        (R.ONE_SUCCESS, True),
        (R.ONE_FAILED, True),
        (R.NONE_FAILED, False),
        (R.NONE_SKIPPED, True),
        (R.ALWAYS, True),
    ],
)
def test_each_trigger_rule_with_one_success_and_one_failure(rule, runs) -> None:
    engine = fleet()
    add(engine, "good", Every(0, 60), duration=2)
    add(engine, "bad", Every(0, 60), duration=4, fail_attempts=frozenset({1}))
    add(engine, "after", Every(0, 60), duration=1, depends_on=("good", "bad"), trigger_rule=rule)
    run(engine, 10)
    assert (started(engine, "after") != []) is runs


def test_one_success_runs_as_soon_as_one_upstream_succeeds() -> None:
    engine = fleet()
    add(engine, "fast", Every(0, 60), duration=2)
    add(engine, "slow", Every(0, 60), duration=30)
    add(
        engine,
        "after",
        Every(0, 60),
        duration=1,
        depends_on=("fast", "slow"),
        trigger_rule=R.ONE_SUCCESS,
    )
    run(engine, 10)
    assert started(engine, "after") == [(2, 0)]


def test_a_cancelled_upstream_run_counts_as_skipped() -> None:
    engine = fleet(workers=1)
    add(engine, "busy", Once(0), duration=20)
    add(engine, "up", Every(0, 60), duration=1)
    add(engine, "down", Every(0, 60), duration=1, depends_on=("up",))
    run(engine, 3)
    assert engine.apply(CancelOccurrence("up", 0)).accepted
    skipped = [(e.job_id, e.scheduled) for e in engine.log if isinstance(e, ev.OccurrenceSkipped)]
    assert skipped == [("down", 0)]


def test_a_paused_upstream_holds_its_dependents_until_its_resume_skips_the_runs() -> None:
    engine = fleet()
    add(engine, "up", Every(0, 10), duration=1)
    add(engine, "down", Every(0, 10), duration=1, depends_on=("up",), trigger_rule=R.NONE_FAILED)
    run(engine, 5)
    assert engine.apply(PauseJob("up")).accepted
    run(engine, 25)
    assert engine.query.run_state("down", 10) is S.BLOCKED
    assert engine.query.run_state("down", 20) is S.BLOCKED  # behind 10, its cursor run
    assert engine.apply(ResumeJob("up")).accepted  # skips up's runs 10 and 20
    run(engine, 40)
    # Skipped upstream runs do not fail none_failed: down@10 and down@20 run at the resume;
    # down@30 waits for up@30 (30-31) as usual.
    assert started(engine, "down") == [(1, 0), (26, 10), (26, 20), (31, 30)]


def test_a_one_time_job_may_wait_for_a_recurring_one() -> None:
    engine = fleet()
    add(engine, "hourly", Every(0, 60), duration=10)
    add(engine, "report", Once(30), duration=1, depends_on=("hourly",))
    run(engine, 40)
    assert started(engine, "report") == [(30, 30)]  # hourly@0 had succeeded at 10


@given(
    st.sampled_from(TriggerRule),
    st.lists(st.sampled_from(["success", "failed", "upstream_failed", "skipped", "pending"])),
)
def test_a_verdict_waits_only_while_an_outcome_is_pending_and_could_change_it(rule, outcomes):
    decided = verdict(rule, outcomes)
    if "pending" not in outcomes:
        assert decided is not Verdict.WAIT
    if decided is not Verdict.WAIT:
        # Whatever the pending runs turn out to be, the verdict stands.
        for outcome in ("success", "failed", "skipped"):
            settled = [outcome if o == "pending" else o for o in outcomes]
            assert verdict(rule, settled) is decided


# ------------------------------------------------------------------ exactly-once, run by run


class RunDependencyMachine(EngineMachine):
    """The engine's state machine where jobs may depend on recurring jobs, with any trigger
    rule, next to one-time dependencies, overlap rules and pauses."""

    def draw_spec(self, data: st.DataObject) -> JobSpec:
        spec = super().draw_spec(data)
        recurring = sorted(
            job_id
            for job_id, job in self.engine.query.jobs().items()
            if not isinstance(job.spec.schedule, Once)
        )
        upstream = data.draw(
            st.lists(st.sampled_from(recurring), max_size=2, unique=True)
            if recurring
            else st.just([]),
            label="recurring upstream",
        )
        return dataclasses.replace(
            spec,
            depends_on=tuple(dict.fromkeys((*spec.depends_on, *upstream))),
            trigger_rule=data.draw(st.sampled_from(TriggerRule), label="trigger rule"),
        )


RunDependencyMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=30,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestRunDependencyMachine = pytest.mark.integration(RunDependencyMachine.TestCase)
