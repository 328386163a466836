"""Deadline alerts: a run not finished ``deadline`` ticks after its scheduled tick raises a
``DeadlineMissed`` event and a ``deadline_missed`` notification, once per run."""

from __future__ import annotations

import dataclasses

from engine_steps import add, run
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from test_engine_stateful import EngineMachine

from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import DeleteJob, Outcome, PauseJob, RegisterWorker, ScheduleJob
from engine.model.records import Channel, JobSpec, NotifyOn, Subscription
from engine.schedules.kinds import Every, Once

ALERTS = (Subscription(frozenset({NotifyOn.DEADLINE_MISSED}), Channel.SLACK, "#ops"),)


def fleet(workers: int = 1) -> Engine:
    engine = Engine()
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def missed(engine: Engine) -> list[tuple[int, str, int]]:
    return [(e.tick, e.job_id, e.scheduled) for e in engine.log if isinstance(e, ev.DeadlineMissed)]


def test_a_run_waiting_past_its_deadline_raises_an_alert_once() -> None:
    engine = fleet()
    add(engine, "hog", Once(0), duration=50)
    add(engine, "report", Every(0, 30), duration=5, deadline=20, notify=ALERTS)
    run(engine, 100)
    assert missed(engine) == [(20, "report", 0), (50, "report", 30)]
    keys = [key for key in engine.query.notifications() if key[3] == "deadline_missed"]
    assert keys == [
        ("report", 0, 0, "deadline_missed", "slack", "#ops"),
        ("report", 30, 0, "deadline_missed", "slack", "#ops"),
    ]


def test_a_run_that_ends_at_its_deadline_is_on_time() -> None:
    engine = fleet(workers=2)
    add(engine, "exact", Once(0), duration=10, deadline=10)
    add(engine, "late", Once(0), duration=11, deadline=10)
    run(engine, 30)
    assert missed(engine) == [(10, "late", 0)]


def test_a_running_or_retrying_run_is_late_too() -> None:
    engine = fleet()
    flaky = frozenset({1, 2})
    add(engine, "flaky", Once(0), duration=3, max_attempts=3, fail_attempts=flaky, deadline=4)
    add(engine, "long", Once(0), duration=100, deadline=5)
    run(engine, 10)
    # flaky's second attempt runs 3-6 (its first failed at 3); long waits for the one worker.
    assert missed(engine) == [(4, "flaky", 0), (5, "long", 0)]


def test_runs_never_created_or_skipped_miss_nothing() -> None:
    engine = fleet()
    add(engine, "job", Every(0, 10), duration=1, deadline=5)
    run(engine, 3)
    assert engine.apply(PauseJob("job")).accepted
    run(engine, 50)
    assert missed(engine) == []


def test_a_deleted_job_stops_checking() -> None:
    engine = fleet()
    add(engine, "hog", Once(0), duration=100)
    add(engine, "job", Every(0, 10), duration=1, deadline=5)
    run(engine, 3)
    assert engine.apply(DeleteJob("job")).accepted
    run(engine, 60)
    assert missed(engine) == []
    assert engine.query.job("job").deadline_next is None


def test_a_deadline_outside_its_limits_is_refused() -> None:
    result = fleet().apply(ScheduleJob(JobSpec("x", Once(0), deadline=0)))
    assert result.outcome is Outcome.INVALID
    assert (
        result.message
        == "deadline: expected a whole number from 1 to 1000000000000, got the number 0"
    )


class DeadlineMachine(EngineMachine):
    """The engine's state machine with deadlines on most jobs: checks never break the
    invariants, journal or replay, and each run is alerted at most once."""

    def draw_spec(self, data: st.DataObject) -> JobSpec:
        spec = super().draw_spec(data)
        deadline = data.draw(st.none() | st.integers(1, 12), label="deadline")
        return dataclasses.replace(spec, deadline=deadline)

    def largest_safe_jump(self) -> int:
        """A deadline costs one timer per run, created or not (docs/semantics.md): a jump is
        bounded to ~100 runs of the fastest job with a deadline, as automatic dispatch bounds
        it for every job."""
        intervals = [
            job.spec.schedule.interval
            for job in self.engine.query.jobs().values()
            if isinstance(job.spec.schedule, Every)
            and job.spec.deadline is not None
            and job.deadline_next is not None
        ]
        return min([super().largest_safe_jump()] + [100 * interval for interval in intervals])

    def teardown(self) -> None:
        keys = [
            (e.job_id, e.scheduled) for e in self.engine.log if isinstance(e, ev.DeadlineMissed)
        ]
        assert len(keys) == len(set(keys))
        super().teardown()


DeadlineMachine.TestCase.settings = settings(
    max_examples=20,
    stateful_step_count=30,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestDeadlineMachine = DeadlineMachine.TestCase
