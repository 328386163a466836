"""``run_timeout: N``: a run must be over N ticks after its first attempt started, retries and
backoffs included; past it the running attempt is timed out and the run fails for good, its
retries unused (Kubernetes' Job ``activeDeadlineSeconds``, which "takes precedence over
backoffLimit": docs/semantics.md)."""

from __future__ import annotations

from engine_steps import add, run

from cronlapse.analyses.explain.failed import failed_for_good
from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.limits import spec_problem
from engine.model.policies import Policy
from engine.model.records import JobSpec, NotifyOn, OccurrenceState
from engine.scenario import ScenarioRunner, parse_scenario
from engine.schedules.kinds import Every, Once
from tests.engine.explain_helpers import history_at, inline, why

S = OccurrenceState


def make(workers: int = 1) -> Engine:
    engine = Engine(Policy())
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def of(engine: Engine) -> list[ev.Event]:
    return [e for e in engine.log if not isinstance(e, ev.WorkerRegistered | ev.JobScheduled)]


def test_the_run_fails_for_good_when_its_time_is_up_however_many_retries_are_left() -> None:
    # Four attempts of 30 allowed; the run has 40 from its first start: attempt 1 times out
    # at 30, attempt 2 starts at once and is ended at 40 with the run.
    engine = make()
    add(engine, "a", Once(0), duration=50, timeout=30, max_attempts=4, run_timeout=40)
    run(engine, 100)
    assert of(engine) == [
        ev.AttemptStarted(0, "a", 0, 1, "w1"),
        ev.AttemptTimedOut(30, "a", 0, 1, "w1"),
        ev.RetryScheduled(30, "a", 0, 2, 30, 0),
        ev.AttemptStarted(30, "a", 0, 2, "w1"),
        ev.AttemptTimedOut(40, "a", 0, 2, "w1"),
        ev.OccurrenceFailed(40, "a", 0, 2, run_timeout=40),
    ]
    assert engine.query.run_state("a", 0) is S.FAILED
    assert engine.query.worker("w1").running is None


def test_a_run_waiting_for_its_retry_fails_when_its_time_is_up() -> None:
    backoff = Backoff(BackoffKind.FIXED, base=30)
    engine = make()
    add(
        engine,
        "a",
        Once(0),
        duration=10,
        fail_attempts=frozenset({1}),
        max_attempts=3,
        backoff=backoff,
        run_timeout=25,
    )
    run(engine, 60)
    assert of(engine)[-2:] == [
        ev.RetryScheduled(10, "a", 0, 2, 40, 30),
        ev.OccurrenceFailed(25, "a", 0, 1, run_timeout=25),
    ]
    assert len(engine.query.record("a", 0).attempts) == 1  # no attempt at 40


def test_a_run_that_ends_at_the_very_tick_is_on_time() -> None:
    engine = make()
    add(engine, "a", Once(0), duration=30, run_timeout=30)
    run(engine, 40)
    assert engine.query.run_state("a", 0) is S.SUCCEEDED


def test_the_limit_counts_from_the_first_attempts_start_not_the_scheduled_tick() -> None:
    # b waits 20 for the only worker; its 15 start counting at 20, and it succeeds at 30.
    engine = make()
    add(engine, "a", Once(0), duration=20)
    add(engine, "b", Once(0), duration=10, run_timeout=15)
    run(engine, 40)
    assert engine.query.run_state("b", 0) is S.SUCCEEDED


def test_each_run_of_a_recurring_job_has_its_own_limit() -> None:
    engine = make(workers=2)
    add(engine, "a", Every(0, 10), duration=12, max_attempts=2, run_timeout=5)
    run(engine, 25)
    failed = [(e.tick, e.scheduled) for e in engine.log if isinstance(e, ev.OccurrenceFailed)]
    assert failed == [(5, 0), (15, 10), (25, 20)]


def test_a_run_timeout_outside_its_limits_is_refused() -> None:
    problem = spec_problem(JobSpec("x", Once(0), run_timeout=0))
    assert problem is not None and problem.message == (
        "run_timeout: expected a whole number from 1 to 1000000000000, got the number 0"
    )
    assert spec_problem(JobSpec("x", Once(0), run_timeout=1)) is None
    result = make().apply(ScheduleJob(JobSpec("x", Once(0), run_timeout=0)))
    assert not result.accepted


def test_the_timed_out_subscribers_hear_of_it() -> None:
    text = (
        "scenario: t\nworkers: [w1]\njobs:\n"
        "  - {id: a, at: 0, duration: 50, max_retries: 3, run_timeout: 20,\n"
        "     notify: [{on: [timed_out, retries_exhausted], channel: email, to: ops}]}\n"
        "expect:\n  - {at: 20, job: a, scheduled: 0, status: FAILED}\n"
    )
    runner = ScenarioRunner(parse_scenario(text, "s.yaml"))
    assert runner.run() == []
    queued = [e.key for e in runner.engine.log if isinstance(e, ev.NotificationQueued)]
    assert [key[3] for key in queued] == [NotifyOn.TIMED_OUT.value, "retries_exhausted"]


def test_why_says_the_run_timeout_ended_it_and_the_pane_says_so_too() -> None:
    """It read "its last allowed attempt failed (max_attempts 4)" with two attempts left."""
    scenario = inline(
        """
scenario: run timeout
clock: {until: 40}
policy: {order: fifo}
workers: [w1]
jobs:
  - {id: k, at: 0, duration: 10, max_retries: 3, fail: [1], run_timeout: 15}
"""
    )
    text = why(scenario, "k", 0, at=30)
    assert "failed for good after 2 attempt(s): its run_timeout passed" in text
    assert "15 ticks from its first attempt's start at tick 0" in text
    engine = history_at(scenario, 30).engine
    assert failed_for_good(engine, engine.query.record("k", 0)).short == "run_timeout"
