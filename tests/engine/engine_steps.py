"""Steps the engine's rule tests share: add a job that must be accepted, play through a tick
with the invariant checker's approval."""

from __future__ import annotations

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model.commands import ScheduleJob
from engine.model.records import JobSpec


def add(engine: Engine, job_id: str, schedule, **fields: object) -> None:
    """Schedule a job the test means to be valid: a refusal fails the test with its message."""
    result = engine.apply(ScheduleJob(JobSpec(job_id, schedule, **fields)))  # type: ignore[arg-type]
    assert result.accepted, result.message


def run(engine: Engine, through: int) -> None:
    """Play every tick up to ``through``, then check the engine's invariants."""
    engine.advance(through + 1)
    assert violations(engine) == []
