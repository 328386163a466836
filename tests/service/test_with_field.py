"""The engine's refusal, as a problem of the request: its code and field become the JSON path of
the body that gave the field, without asking the engine again or reading the message."""

from __future__ import annotations

import pytest

from cronlapse.service.codec import REQUEST, with_field
from engine.model.commands import ModifyJob, Outcome, Result, ScheduleJob, refused
from engine.model.problems import Code
from engine.model.records import JobSpec
from engine.schedules.kinds import Every

SCHEDULE = ScheduleJob(JobSpec("down", Every(0, 60), depends_on=("up", "gone")))
MODIFY = ModifyJob.of("up", schedule=Every(0, 30))


@pytest.mark.parametrize(
    ("command", "args", "result", "path"),
    [
        (
            SCHEDULE,
            {"id": "down", "every": 60, "depends_on": ["up", "gone"]},
            refused(
                Outcome.INVALID,
                Code.UNKNOWN_DEPENDENCY,
                "unknown dependency 'gone'",
                "depends_on",
                "gone",
            ),
            "depends_on[1]",
        ),
        (
            SCHEDULE,
            {"id": "down", "every": 60, "depends_on": "up, gone"},
            refused(
                Outcome.INVALID,
                Code.UNKNOWN_DEPENDENCY,
                "unknown dependency 'gone'",
                "depends_on",
                "gone",
            ),
            "depends_on",
        ),
        (
            SCHEDULE,
            {"id": "down", "every": 60, "pool": "gpu"},
            refused(Outcome.INVALID, Code.UNKNOWN_POOL, "pool 'gpu' does not exist", "pool"),
            "pool",
        ),
        (
            MODIFY,
            {"job": "up", "first": "+60", "timezone": "UTC", "every": 30},
            refused(
                Outcome.INVALID, Code.DEPENDENTS_KEEP_SCHEDULE, "up keeps its schedule", "schedule"
            ),
            "every",
        ),
        (
            MODIFY,
            {"job": "up", "every": 30},
            refused(Outcome.CONFLICT, Code.ATTEMPT_RUNNING, "up has a running attempt", "job_id"),
            "",
        ),
    ],
)
def test_the_engines_field_becomes_the_requests_path(
    command: object, args: dict, result: Result, path: str
) -> None:
    mapped = with_field(command, args, result)  # type: ignore[arg-type]
    assert mapped.problem is not None and result.problem is not None
    assert (mapped.outcome, mapped.message, mapped.problem.code) == (
        result.outcome,
        result.message,
        result.problem.code,
    )
    assert (mapped.problem.source, mapped.problem.path) == (REQUEST, path)


def test_an_accepted_command_is_left_as_it_is() -> None:
    accepted = Result(Outcome.CREATED, "down")
    assert with_field(SCHEDULE, {"id": "down"}, accepted) is accepted
