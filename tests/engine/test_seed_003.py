"""Seed 003's semantics in the engine (issue 13, deliverable 3): each rule quotes the seed."""

from __future__ import annotations

import pytest

from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import BackoffKind, Jitter
from engine.model.commands import (
    CancelOccurrence,
    DeleteJob,
    ModifyJob,
    Outcome,
    RegisterWorker,
    ScheduleJob,
)
from engine.model.policies import DispatchOrder, OnTimeout, Policy, RunningJobChanges
from engine.model.presets import seed_003_policy
from engine.model.records import JobSpec, OccurrenceState
from engine.query.status_words import run_word
from engine.scenario import ScenarioRunner
from engine.scenario.errors import ScenarioInvalid
from engine.scenario.validate import parse_scenario
from engine.schedules.kinds import Every, Once

S = OccurrenceState


def engine_with(policy: Policy | None = None, workers: int = 1) -> Engine:
    engine = Engine(policy)
    for number in range(1, workers + 1):
        engine.apply(RegisterWorker(f"w{number}"))
    return engine


def running_job() -> Engine:
    """a (every 10, duration 5) runs a@0 over [0, 5); the engine rests at 2."""
    engine = engine_with()
    engine.apply(ScheduleJob(JobSpec("a", Every(0, 10), duration=5)))
    engine.advance(2)
    return engine


# "PUT /job/{id}: ... as far as the job is not in a status "running" (409 in this case)."


def test_a_running_job_is_not_modified_nor_its_next_run_cancelled() -> None:
    engine = running_job()
    assert engine.apply(ModifyJob.of("a", priority=3)).outcome is Outcome.CONFLICT
    assert engine.apply(CancelOccurrence("a")).outcome is Outcome.CONFLICT
    assert engine.query.job("a").spec.priority == 0
    assert engine.query.run_state("a", 10) is S.SCHEDULED
    engine.advance(6)  # a@0 ended at 5
    assert engine.apply(ModifyJob.of("a", priority=3)).outcome is Outcome.OK
    assert engine.apply(CancelOccurrence("a")).value == 10


def test_a_given_waiting_run_may_still_be_cancelled_while_another_runs() -> None:
    engine = running_job()
    assert engine.apply(CancelOccurrence("a", 10)).value == 10
    assert engine.query.run_state("a", 10) is S.CANCELLED


def test_the_policy_may_allow_changes_while_a_job_runs() -> None:
    engine = engine_with(Policy(running_job_changes=RunningJobChanges.ALLOW))
    engine.apply(ScheduleJob(JobSpec("a", Every(0, 10), duration=5)))
    engine.advance(2)
    assert engine.apply(ModifyJob.of("a", priority=3)).outcome is Outcome.OK
    assert engine.apply(CancelOccurrence("a")).value == 10  # the running a@0 is skipped over


# "DELETE /job/{id}: ... Returns an error 409 if the status of the job is "running". Removes the
# job from the database."


def test_delete_refuses_a_running_job_then_removes_it() -> None:
    engine = running_job()
    assert engine.apply(DeleteJob("a")).outcome is Outcome.CONFLICT
    assert engine.query.live_job("a") is not None
    engine.advance(6)
    assert engine.apply(DeleteJob("a")).outcome is Outcome.OK
    assert engine.query.live_job("a") is None
    assert engine.apply(ModifyJob.of("a", priority=1)).outcome is Outcome.NOT_FOUND
    # The history keeps what happened: a@0's record and its events.
    assert engine.query.record("a", 0).state is S.SUCCEEDED
    assert ev.JobDeleted(6, "a") in list(engine.log)
    assert engine.apply(ScheduleJob(JobSpec("a", Once(50)))).outcome is Outcome.CONFLICT


# "Tasks have priority levels; higher-priority tasks execute before lower-priority ones when
# resources are contended."


def test_with_no_order_named_priority_decides_and_ties_go_first_come() -> None:
    assert Policy().order is DispatchOrder.PRIORITY
    engine = engine_with()
    engine.apply(ScheduleJob(JobSpec("hog", Once(0), duration=10)))
    for job_id, at, priority in (("low", 1, 0), ("tie-b", 2, 1), ("tie-a", 3, 1), ("high", 4, 2)):
        engine.apply(ScheduleJob(JobSpec(job_id, Once(at), priority=priority)))
    engine.advance(20)
    starts = [e.job_id for e in engine.log if isinstance(e, ev.AttemptStarted)]
    assert starts == ["hog", "high", "tie-b", "tie-a", "low"]


# "if a job has been running for more of 5 minutes, a reviewer will unblock the job and put it
# back to the "created" status with the defined cadence"


@pytest.mark.parametrize(
    ("on_timeout", "final", "attempts"),
    [(OnTimeout.RETRY, S.SUCCEEDED, 2), (OnTimeout.NEXT_RUN, S.FAILED, 1)],
)
def test_a_run_over_its_limit_is_retried_or_taken_back(
    on_timeout: OnTimeout, final: OccurrenceState, attempts: int
) -> None:
    engine = engine_with(Policy(on_timeout=on_timeout, execution_limit=5))
    spec = JobSpec("a", Every(0, 100), max_attempts=3, hang_attempts=frozenset({1}))
    engine.apply(ScheduleJob(spec))
    engine.advance(50)
    record = engine.query.record("a", 0)
    assert record.timeout == 5  # the policy's limit: the job sets none
    assert (record.state, len(record.attempts)) == (final, attempts)
    assert engine.query.worker("w1").running is None
    engine.advance(101)
    assert engine.query.run_state("a", 100) is S.RUNNING  # the next run of the cadence


def test_the_seed_003_preset_gathers_the_seeds_choices_in_ticks_of_the_clock() -> None:
    policy = seed_003_policy()
    assert policy.order is DispatchOrder.PRIORITY
    assert (policy.on_timeout, policy.running_job_changes) == (
        OnTimeout.NEXT_RUN,
        RunningJobChanges.REFUSE,
    )
    assert (policy.execution_limit, policy.scheduling_window) == (300, 120)
    assert (policy.backoff.kind, policy.backoff.jitter) == (BackoffKind.EXPONENTIAL, Jitter.FULL)
    minutes = seed_003_policy(tick_seconds=60)
    assert (minutes.execution_limit, minutes.scheduling_window) == (5, 2)


def test_a_scenario_names_the_preset_and_may_override_it() -> None:
    base = "scenario: s\nclock: {epoch: '2026-01-01T00:00:00', timezone: UTC, tick: 60}\n"
    assert parse_scenario(base + "policy: seed-003\n").policy == seed_003_policy(60)
    tuned = parse_scenario(base + "policy: {preset: seed-003, execution_limit: 9}\n").policy
    assert tuned.execution_limit == 9 and tuned.on_timeout is OnTimeout.NEXT_RUN
    with pytest.raises(ScenarioInvalid, match=r"policy.*seed-003"):
        parse_scenario("scenario: s\npolicy: seed-03\n")


def test_a_preset_scenario_that_allows_changes_while_running_runs_clean() -> None:
    text = (
        "scenario: s\npolicy: {preset: seed-003, running_job_changes: allow}\nworkers: [w]\n"
        "jobs: [{id: a, every: 10, duration: 5}]\n"
        "timeline: [{at: 2, modify: {job: a, priority: 1}, expect: ok}]\n"
    )
    assert ScenarioRunner(parse_scenario(text)).run() == []


# "Statuses": created, scheduled, running, succeeded, failed, cancelled; "When there is less than
# 2 minutes to run the job changes the status to "scheduled"".


def test_run_words_follow_the_scheduling_window() -> None:
    assert run_word(S.SCHEDULED, 1000, now=879, window=120) == "created"
    assert run_word(S.SCHEDULED, 1000, now=881, window=120) == "scheduled"
    assert run_word(S.QUEUED, 1000, now=1000, window=120) == "scheduled"
    assert [run_word(s, 0, 0, 120) for s in (S.RUNNING, S.SUCCEEDED, S.FAILED, S.CANCELLED)] == [
        "running",
        "succeeded",
        "failed",
        "cancelled",
    ]


def test_a_jobs_word_is_its_current_runs() -> None:
    engine = engine_with(seed_003_policy())
    engine.apply(ScheduleJob(JobSpec("later", Once(1000))))
    engine.apply(ScheduleJob(JobSpec("now", Once(0), duration=5)))
    engine.advance(1)
    assert (engine.query.job_word("later"), engine.query.job_word("now")) == ("created", "running")
    engine.advance(900)
    assert (engine.query.job_word("later"), engine.query.job_word("now")) == (
        "scheduled",
        "succeeded",
    )
    assert engine.query.job_word("missing") is None
