"""What the API answers about jobs, runs and workers, in seed 003's words.

The seed names six statuses: ``created`` (waiting for its time), ``scheduled`` (a scheduler has
queued it: it is due, waiting for a worker or a retry, or less than two minutes from its time),
``running``, ``succeeded``, ``failed`` and ``cancelled``. The engine's states map onto them one
way (:data:`RUN_STATUS`); a job's status is its most advanced live run's, else its last run's.
Times are ISO 8601 in UTC, with the tick alongside.
"""

from __future__ import annotations

from engine.core import Engine
from engine.model import PRIORITY_LEVELS, Job, OccurrenceState
from engine.queries import OccurrenceRow, implicit_front, occurrence_row, worker_rows
from engine.schedules import next_fire_times
from service.clock import ENGINE_CLOCK
from service.live import LiveState

S = OccurrenceState
SCHEDULING_WINDOW = 120
"""Ticks before its time at which a run is ``scheduled`` (the seed's schedulers pick up jobs
less than 2 minutes from their run time)."""
NEXT_RUNS = 5
RUN_STATUS = {
    S.SCHEDULED: "created",
    S.BLOCKED: "created",
    S.QUEUED: "scheduled",
    S.RETRY_PENDING: "scheduled",
    S.RUNNING: "running",
    S.SUCCEEDED: "succeeded",
    S.FAILED: "failed",
    S.CANCELLED: "cancelled",
}
STATUSES = ("created", "scheduled", "running", "succeeded", "failed", "cancelled")
_PRIORITY_NAMES = {value: name for name, value in PRIORITY_LEVELS.items()}


def iso(tick: int) -> str:
    return ENGINE_CLOCK.to_datetime(tick).isoformat().replace("+00:00", "Z")


def priority_value(priority: int) -> str | int:
    return _PRIORITY_NAMES.get(priority, priority)


def next_runs(engine: Engine, job: Job, count: int = NEXT_RUNS) -> list[int]:
    if job.deleted or job.next_due is None:
        return []
    return next_fire_times(job.spec.schedule, max(engine.now + 1, job.next_due), count)


def job_status(state: LiveState, job: Job) -> str:
    engine = state.engine
    states = {engine.occurrences[(job.job_id, tick)].state for tick in job.open}
    if S.RUNNING in states:
        return "running"
    waiting = implicit_front(engine, job.job_id) is not None
    if waiting or S.QUEUED in states or S.RETRY_PENDING in states:
        return "scheduled"
    upcoming = next_runs(engine, job, 1)
    if upcoming:
        return "scheduled" if upcoming[0] - engine.now < SCHEDULING_WINDOW else "created"
    for tick in reversed(state.recent.get(job.job_id, {})):
        row = occurrence_row(engine, job.job_id, tick)
        if row is not None and row.state.is_final:
            return RUN_STATUS[row.state]
    return "cancelled" if job.deleted else "created"


def run_json(row: OccurrenceRow) -> dict:
    return {
        "scheduled": iso(row.scheduled),
        "tick": row.scheduled,
        "status": RUN_STATUS[row.state],
        "attempts": [
            {
                "attempt": attempt.number,
                "worker": attempt.worker_id,
                "started": iso(attempt.started),
                "ended": None if attempt.ended is None else iso(attempt.ended),
                "outcome": attempt.outcome.value.lower(),
            }
            for attempt in row.attempts
        ],
    }


def recent_runs(state: LiveState, job: Job) -> list[dict]:
    engine = state.engine
    ticks = list(state.recent.get(job.job_id, {}))
    front = implicit_front(engine, job.job_id)
    if front is not None and front not in ticks:
        ticks.append(front)
    rows = [occurrence_row(engine, job.job_id, tick) for tick in sorted(ticks)]
    return [run_json(row) for row in rows if row is not None]


def job_json(state: LiveState, job: Job, detail: bool = True) -> dict:
    spec = job.spec
    view = {
        "id": job.job_id,
        "status": job_status(state, job),
        "deleted": job.deleted,
        "schedule": spec.schedule.describe(),
        "priority": priority_value(spec.priority),
        "max_retries": spec.max_attempts - 1,
        "timeout": spec.timeout,
        "payload": spec.payload,
        "run": state.runs.get(job.job_id, "noop"),
        "catch_up": spec.catch_up.value,
        "next_runs": [iso(tick) for tick in next_runs(state.engine, job)],
    }
    if detail:
        view["runs"] = recent_runs(state, job)
    return view


def workers_json(engine: Engine) -> list[dict]:
    return [
        {
            "id": row.worker_id,
            "state": row.state.value.lower(),
            "running": None
            if row.running is None
            else {"job": row.running[0], "scheduled": iso(row.running[1]), "attempt": row.attempt},
            "utilisation": round(row.utilisation, 4),
        }
        for row in worker_rows(engine)
    ]
