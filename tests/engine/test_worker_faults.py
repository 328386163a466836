"""Worker faults: a worker goes down and comes back (scripted), or is drained.

An attempt on a worker that goes down is LOST: it is retried at once and does not count against the
occurrence's attempts; a down worker takes no work. Nothing is lost and nothing runs twice.
"""

from __future__ import annotations

from collections import Counter

from engine_steps import add

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind
from engine.model.commands import (
    Complete,
    Dispatch,
    DrainWorker,
    Outcome,
    PauseJob,
    RegisterWorker,
    WorkerDown,
    WorkerUp,
)
from engine.model.policies import CompletionMode, DispatchMode, Policy
from engine.model.records import AttemptOutcome, OccurrenceState, WorkerState
from engine.schedules.kinds import Every, Once

S = OccurrenceState


def make(workers: int = 1, **policy: object) -> Engine:
    engine = Engine(Policy(**policy))  # type: ignore[arg-type]
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def at(engine: Engine, tick: int, command):
    """Give ``command`` at ``tick`` after the tick's own events (the documented order)."""
    engine.advance(tick)
    engine.begin_tick()
    return engine.apply(command)


def log_after_setup(engine: Engine) -> list[ev.Event]:
    return [e for e in engine.log if not isinstance(e, ev.WorkerRegistered | ev.JobScheduled)]


def test_an_attempt_on_a_worker_that_goes_down_is_lost_and_retried_at_once() -> None:
    # a@0 (duration 5, max_attempts 1) starts on w1 at 0. w1 goes down at 2: attempt 1 is LOST,
    # retried at once (delay 0 despite the fixed backoff 10, which is for failures) on w2, the
    # idle worker, and succeeds at 7. With max_attempts 1 it still succeeds: a loss is not a try.
    engine = make(workers=2)
    add(engine, "a", Once(0), duration=5, backoff=Backoff(BackoffKind.FIXED, base=10))
    assert at(engine, 2, WorkerDown("w1")).accepted
    engine.advance(10)
    assert log_after_setup(engine) == [
        ev.AttemptStarted(0, "a", 0, 1, "w1"),
        ev.WorkerWentDown(2, "w1"),
        ev.AttemptLost(2, "a", 0, 1, "w1"),
        ev.RetryScheduled(2, "a", 0, 2, 2, 0),
        ev.AttemptStarted(2, "a", 0, 2, "w2"),
        ev.AttemptSucceeded(7, "a", 0, 2, "w2"),
    ]
    occurrence = engine.query.record("a", 0)
    assert occurrence.state is S.SUCCEEDED
    assert [
        (a.number, a.worker_id, a.started, a.ended, a.outcome) for a in occurrence.attempts
    ] == [
        (1, "w1", 0, 2, AttemptOutcome.LOST),
        (2, "w2", 2, 7, AttemptOutcome.SUCCEEDED),
    ]
    assert violations(engine) == []


def test_losses_do_not_use_up_retries() -> None:
    # max_attempts 2, duration 2. Attempt 1 (w1, from 0) is lost at 1; attempt 2 (w2, from 1,
    # scripted to fail) fails at 3: one counted failure of two allowed, so attempt 3 runs at 3
    # (on w2, the only worker up) and succeeds at 5.
    engine = make(workers=2)
    add(engine, "a", Once(0), duration=2, max_attempts=2, fail_attempts=frozenset({2}))
    assert at(engine, 1, WorkerDown("w1")).accepted
    engine.advance(10)
    assert [
        (type(e).__name__, e.tick, getattr(e, "attempt", None))
        for e in log_after_setup(engine)
        if isinstance(e, ev.OccurrenceEvent)
    ] == [
        ("AttemptStarted", 0, 1),
        ("AttemptLost", 1, 1),
        ("RetryScheduled", 1, None),
        ("AttemptStarted", 1, 2),
        ("AttemptFailed", 3, 2),
        ("RetryScheduled", 3, None),
        ("AttemptStarted", 3, 3),
        ("AttemptSucceeded", 5, 3),
    ]
    assert violations(engine) == []


def test_a_down_worker_takes_no_work_until_it_comes_back() -> None:
    # The only worker is down from 0; a@3 waits (QUEUED) until w1 is up at 7 and starts then.
    engine = make()
    add(engine, "a", Once(3))
    assert engine.apply(WorkerDown("w1")).accepted
    engine.advance(6)
    assert engine.query.run_state("a", 3) is S.QUEUED
    assert engine.query.worker("w1").state is WorkerState.DOWN
    assert at(engine, 7, WorkerUp("w1")).accepted
    engine.advance(9)
    assert log_after_setup(engine) == [
        ev.WorkerWentDown(0, "w1"),
        ev.WorkerCameUp(7, "w1"),
        ev.AttemptStarted(7, "a", 3, 1, "w1"),
        ev.AttemptSucceeded(8, "a", 3, 1, "w1"),
    ]


def test_drain_finishes_the_attempt_then_takes_no_more_work() -> None:
    # a every 10 from 0, duration 5. w1 runs a@0 over [0, 5) and is drained at 2: a@0 finishes at
    # 5, then w1 is down, so a@10 and a@20 go to w2. WorkerUp at 30 brings w1 back: a@30 on w1.
    engine = make(workers=2)
    add(engine, "a", Every(0, 10), duration=5)
    assert at(engine, 2, DrainWorker("w1")).accepted
    assert engine.query.worker("w1").state is WorkerState.DRAINING
    assert engine.query.run_state("a", 0) is S.RUNNING  # not lost
    engine.advance(6)
    assert engine.query.worker("w1").state is WorkerState.DOWN
    assert engine.query.run_state("a", 0) is S.SUCCEEDED
    assert at(engine, 30, WorkerUp("w1")).accepted
    engine.advance(31)
    workers = [(e.scheduled, e.worker_id) for e in engine.log if isinstance(e, ev.AttemptStarted)]
    assert workers == [(0, "w1"), (10, "w2"), (20, "w2"), (30, "w1")]
    assert not any(isinstance(e, ev.AttemptLost) for e in engine.log)
    assert violations(engine) == []


def test_drain_logs_the_attempt_end_before_the_worker_goes_down() -> None:
    # The log never shows a down worker running: the attempt's end comes first.
    engine = make(workers=2)
    add(engine, "a", Once(0), duration=5)
    assert at(engine, 2, DrainWorker("w1")).accepted
    engine.advance(6)
    assert log_after_setup(engine) == [
        ev.AttemptStarted(0, "a", 0, 1, "w1"),
        ev.WorkerDrainStarted(2, "w1"),
        ev.AttemptSucceeded(5, "a", 0, 1, "w1"),
        ev.WorkerWentDown(5, "w1"),
    ]


def test_draining_an_idle_worker_takes_it_down_at_once() -> None:
    engine = make()
    assert engine.apply(DrainWorker("w1")).accepted
    assert log_after_setup(engine) == [ev.WorkerDrainStarted(0, "w1"), ev.WorkerWentDown(0, "w1")]
    add(engine, "a", Once(1))
    engine.advance(5)
    assert engine.query.run_state("a", 1) is S.QUEUED


def test_worker_up_during_a_drain_cancels_it() -> None:
    # Drained at 1 while running a@0 (to 3), up again at 2: it finishes a@0 and stays up, so it
    # takes a@3 at 3.
    engine = make()
    add(engine, "a", Every(0, 3), duration=3)
    assert at(engine, 1, DrainWorker("w1")).accepted
    assert at(engine, 2, WorkerUp("w1")).accepted
    assert engine.query.worker("w1").state is WorkerState.BUSY
    engine.advance(4)
    assert [(e.tick, e.scheduled) for e in engine.log if isinstance(e, ev.AttemptStarted)] == [
        (0, 0),
        (3, 3),
    ]
    assert not any(isinstance(e, ev.WorkerWentDown) for e in engine.log)


def test_going_down_while_draining_loses_the_attempt() -> None:
    engine = make(workers=2)
    add(engine, "a", Once(0), duration=5)
    assert at(engine, 1, DrainWorker("w1")).accepted
    assert at(engine, 2, WorkerDown("w1")).accepted
    engine.advance(8)
    assert [
        (type(e).__name__, e.tick)
        for e in log_after_setup(engine)
        if isinstance(e, ev.AttemptStarted | ev.AttemptLost | ev.AttemptSucceeded)
    ] == [("AttemptStarted", 0), ("AttemptLost", 2), ("AttemptStarted", 2), ("AttemptSucceeded", 7)]
    assert engine.query.worker("w1").state is WorkerState.DOWN


def test_worker_command_outcomes() -> None:
    engine = make()
    results = {
        "register again": engine.apply(RegisterWorker("w1")),
        "down unknown": engine.apply(WorkerDown("ghost")),
        "up unknown": engine.apply(WorkerUp("ghost")),
        "drain unknown": engine.apply(DrainWorker("ghost")),
        "up while up": engine.apply(WorkerUp("w1")),
        "down": engine.apply(WorkerDown("w1")),
        "down again": engine.apply(WorkerDown("w1")),
        "drain while down": engine.apply(DrainWorker("w1")),
        "up": engine.apply(WorkerUp("w1")),
    }
    assert {name: r.outcome for name, r in results.items()} == {
        "register again": Outcome.CONFLICT,
        "down unknown": Outcome.NOT_FOUND,
        "up unknown": Outcome.NOT_FOUND,
        "drain unknown": Outcome.NOT_FOUND,
        "up while up": Outcome.CONFLICT,
        "down": Outcome.OK,
        "down again": Outcome.CONFLICT,
        "drain while down": Outcome.CONFLICT,
        "up": Outcome.OK,
    }


def test_reported_a_report_for_a_lost_attempt_is_stale() -> None:
    # Seed 000 style. Attempt 1 on w1 is lost when w1 goes down; the occurrence waits for a
    # dispatch (RETRY_PENDING, eligible now). The report for attempt 1 is a conflict; once w1 is
    # back, the dispatch starts attempt 2 and its report is accepted.
    engine = make(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    add(engine, "a", Once(0))
    assert [x.attempt for x in engine.apply(Dispatch()).value] == [1]
    assert engine.apply(WorkerDown("w1")).accepted
    assert engine.query.run_state("a", 0) is S.RETRY_PENDING
    assert engine.apply(Dispatch()).value == []  # no worker up
    assert engine.apply(Complete("a", 0, 1, True)).outcome is Outcome.CONFLICT
    assert engine.apply(WorkerUp("w1")).accepted
    assert [x.attempt for x in engine.apply(Dispatch()).value] == [2]
    assert engine.apply(Complete("a", 0, 2, True)).accepted
    assert engine.query.run_state("a", 0) is S.SUCCEEDED
    assert violations(engine) == []


def test_a_flapping_fleet_loses_nothing_and_runs_nothing_twice() -> None:
    # Three workers, four recurring jobs; the workers go down and come up on a fixed script. Every
    # occurrence that fell due by the end succeeded exactly once; the invariants hold throughout.
    engine = make(workers=3)
    for n, interval in enumerate((3, 4, 5, 7)):
        add(engine, f"j{n}", Every(n, interval), duration=2 + n % 2, max_attempts=1)
    script = {
        4: WorkerDown("w1"),
        6: WorkerDown("w2"),
        9: WorkerUp("w1"),
        11: DrainWorker("w3"),
        15: WorkerUp("w2"),
        18: WorkerDown("w1"),
        19: WorkerUp("w3"),
        23: WorkerUp("w1"),
        26: WorkerDown("w2"),
        31: WorkerUp("w2"),
    }
    for tick, command in script.items():
        assert at(engine, tick, command).accepted
        assert violations(engine) == []
    # Stop new work after 40 and let everything drain with all workers up.
    for job_id in list(engine.query.jobs()):
        assert at(engine, 40, PauseJob(job_id)).accepted
    engine.advance(200)
    succeeded = Counter(
        (e.job_id, e.scheduled) for e in engine.log if isinstance(e, ev.AttemptSucceeded)
    )
    assert max(succeeded.values()) == 1
    due = {
        (job_id, tick)
        for job_id, job in engine.query.jobs().items()
        for tick in range(0, 41)
        if job.spec.schedule.contains(tick)
    }
    assert set(succeeded) == due
    assert sum(isinstance(e, ev.AttemptLost) for e in engine.log) > 0
    assert all(o.state is S.SUCCEEDED for o in engine.query.records().values())
    assert violations(engine) == []


def test_worker_rows_show_down_and_draining() -> None:
    engine = make(workers=3)
    add(engine, "a", Once(0), duration=10)
    assert at(engine, 1, DrainWorker("w1")).accepted
    assert engine.apply(WorkerDown("w3")).accepted
    assert [(r.worker_id, r.state, r.running) for r in engine.query.worker_rows()] == [
        ("w1", WorkerState.DRAINING, ("a", 0)),
        ("w2", WorkerState.IDLE, None),
        ("w3", WorkerState.DOWN, None),
    ]
