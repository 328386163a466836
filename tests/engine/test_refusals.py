"""The engine's refusals carry a Problem: a stable code and the field it concerns, with the
message every front end has always shown (so the service's 422 can name the request's field
without matching the message's words)."""

from __future__ import annotations

import pytest

from engine.core import Engine
from engine.model.commands import (
    Advance,
    BackfillJob,
    CancelOccurrence,
    Complete,
    DeleteJob,
    DrainWorker,
    ModifyJob,
    Outcome,
    PauseJob,
    RegisterWorker,
    ReportDelivery,
    Result,
    ResumeJob,
    ScheduleJob,
    ScriptFailure,
    WorkerDown,
    WorkerUp,
)
from engine.model.policies import CompletionMode, DispatchMode, Policy
from engine.model.problems import Code
from engine.model.records import JobSpec
from engine.schedules.kinds import Every, Once


def engine_with(*commands: object, **policy: object) -> Engine:
    engine = Engine(Policy(**policy))  # type: ignore[arg-type]
    for command in commands:
        assert engine.apply(command).accepted, command  # type: ignore[arg-type]
    return engine


def refusal(result: Result) -> tuple[Outcome, Code | None, str, str]:
    assert not result.accepted and result.problem is not None
    return result.outcome, result.problem.code, result.problem.path, result.message


def test_an_unknown_dependency_names_the_field_and_the_dependency() -> None:
    engine = engine_with(ScheduleJob(JobSpec("up", Once(5))))
    result = engine.apply(ScheduleJob(JobSpec("down", Once(9), depends_on=("up", "nowhere"))))
    assert refusal(result) == (
        Outcome.INVALID,
        Code.UNKNOWN_DEPENDENCY,
        "depends_on",
        "unknown dependency 'nowhere'",
    )
    assert result.problem is not None and result.problem.subject == "nowhere"


def test_an_unknown_pool_names_the_pool_field() -> None:
    result = engine_with().apply(ScheduleJob(JobSpec("x", Once(1), pool="gpu")))
    assert refusal(result) == (
        Outcome.INVALID,
        Code.UNKNOWN_POOL,
        "pool",
        "pool 'gpu' does not exist: the policy defines no pools",
    )


def test_a_limit_names_the_limited_field() -> None:
    result = engine_with().apply(ScheduleJob(JobSpec("x", Once(1), priority=2**31)))
    outcome, code, path, message = refusal(result)
    assert (outcome, code, path) == (Outcome.INVALID, Code.OUT_OF_RANGE, "priority")
    assert message.startswith("priority: expected a whole number from")


def test_a_run_time_already_past_names_the_schedule() -> None:
    engine = engine_with(Advance(10))
    result = engine.apply(ScheduleJob(JobSpec("x", Once(3))))
    assert refusal(result) == (
        Outcome.INVALID,
        Code.PAST_RUN_TIME,
        "schedule",
        "run time 3 is before the current time 10",
    )


def test_a_job_others_depend_on_keeps_its_schedule() -> None:
    engine = engine_with(
        ScheduleJob(JobSpec("up", Every(0, 60))),
        ScheduleJob(JobSpec("down", Every(0, 60), depends_on=("up",))),
    )
    result = engine.apply(ModifyJob.of("up", schedule=Every(0, 30)))
    assert refusal(result) == (
        Outcome.INVALID,
        Code.DEPENDENTS_KEEP_SCHEDULE,
        "schedule",
        "up keeps its schedule: down depend on it",
    )


def test_a_field_that_cannot_be_modified_is_named() -> None:
    engine = engine_with(ScheduleJob(JobSpec("x", Every(0, 60))))
    result = engine.apply(ModifyJob.of("x", pool="gpu"))
    outcome, code, path, _ = refusal(result)
    assert (outcome, code, path) == (Outcome.INVALID, Code.NOT_MODIFIABLE, "pool")


@pytest.mark.parametrize(
    ("setup", "command", "outcome", "code"),
    [
        ([], ModifyJob.of("ghost", priority=1), Outcome.NOT_FOUND, Code.UNKNOWN_JOB),
        ([], DeleteJob("ghost"), Outcome.NOT_FOUND, Code.UNKNOWN_JOB),
        ([], CancelOccurrence("ghost"), Outcome.NOT_FOUND, Code.UNKNOWN_JOB),
        ([], ScriptFailure("ghost", 1), Outcome.NOT_FOUND, Code.UNKNOWN_JOB),
        (
            [ScheduleJob(JobSpec("x", Once(5)))],
            ScheduleJob(JobSpec("x", Once(6))),
            Outcome.CONFLICT,
            Code.JOB_EXISTS,
        ),
        (
            [ScheduleJob(JobSpec("x", Once(5)))],
            CancelOccurrence("x", 7),
            Outcome.NOT_FOUND,
            Code.UNKNOWN_RUN,
        ),
        (
            [ScheduleJob(JobSpec("x", Once(5))), PauseJob("x")],
            PauseJob("x"),
            Outcome.CONFLICT,
            Code.ALREADY_PAUSED,
        ),
        ([ScheduleJob(JobSpec("x", Once(5)))], ResumeJob("x"), Outcome.CONFLICT, Code.NOT_PAUSED),
        (
            [ScheduleJob(JobSpec("x", Once(5)))],
            ScriptFailure("x", 0),
            Outcome.INVALID,
            Code.OUT_OF_RANGE,
        ),
        ([Advance(10)], Advance(3), Outcome.INVALID, Code.BEFORE_NOW),
        ([RegisterWorker("w")], RegisterWorker("w"), Outcome.CONFLICT, Code.WORKER_EXISTS),
        ([], WorkerDown("w"), Outcome.NOT_FOUND, Code.UNKNOWN_WORKER),
        ([RegisterWorker("w")], WorkerUp("w"), Outcome.CONFLICT, Code.WORKER_ALREADY_UP),
        (
            [RegisterWorker("w"), WorkerDown("w")],
            WorkerDown("w"),
            Outcome.CONFLICT,
            Code.WORKER_ALREADY_DOWN,
        ),
        (
            [RegisterWorker("w"), WorkerDown("w")],
            DrainWorker("w"),
            Outcome.CONFLICT,
            Code.WORKER_NOT_UP,
        ),
        (
            [ScheduleJob(JobSpec("x", Once(5)))],
            Complete("x", 5, 1, True),
            Outcome.CONFLICT,
            Code.NO_RUNNING_ATTEMPT,
        ),
        (
            [],
            ReportDelivery(("x", 0, 1, "failed", "email", "a@b"), True),
            Outcome.CONFLICT,
            Code.DELIVERY_SIMULATED,
        ),
        (
            [ScheduleJob(JobSpec("x", Once(5)))],
            BackfillJob("x", 0, 1),
            Outcome.INVALID,
            Code.RUNS_ONCE,
        ),
        (
            [ScheduleJob(JobSpec("x", Every(0, 10))), Advance(50)],
            BackfillJob("x", 0, 100),
            Outcome.INVALID,
            Code.RANGE_NOT_PAST,
        ),
    ],
)
def test_every_refusal_has_its_code(
    setup: list[object], command: object, outcome: Outcome, code: Code
) -> None:
    engine = engine_with(*setup)
    result = engine.apply(command)  # type: ignore[arg-type]
    assert (result.outcome, result.problem and result.problem.code) == (outcome, code)
    assert result.message == result.problem.message != ""


def test_a_running_attempt_refuses_a_change_with_its_code() -> None:
    engine = engine_with(
        RegisterWorker("w"),
        ScheduleJob(JobSpec("x", Every(0, 60), duration=30)),
        dispatch=DispatchMode.AUTO,
        completion=CompletionMode.REPORTED,
    )
    engine.advance(1)
    assert refusal(engine.apply(DeleteJob("x")))[:2] == (Outcome.CONFLICT, Code.ATTEMPT_RUNNING)
    wrong = engine.apply(Complete("x", 0, 2, True))
    assert refusal(wrong)[:2] == (Outcome.CONFLICT, Code.WRONG_ATTEMPT)


def test_an_accepted_command_carries_no_problem() -> None:
    result = engine_with().apply(ScheduleJob(JobSpec("x", Once(1))))
    assert (result.outcome, result.problem, result.message) == (Outcome.CREATED, None, "")
