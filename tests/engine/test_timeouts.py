"""Timeouts and the reviewer (seed 003: "an execution limit per job of 5 minutes").

An attempt still running at start + timeout is TIMED_OUT at exactly that tick: it is a failed
attempt (retried by the retry rules, or FAILED when none are left), its worker is freed at that
tick, and a late completion report for it is rejected like any stale report.
"""

from __future__ import annotations

import pytest
from engine_steps import add

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind
from engine.model.commands import Complete, Dispatch, ModifyJob, Outcome, RegisterWorker, WorkerDown
from engine.model.policies import CompletionMode, DispatchMode, Policy
from engine.model.records import AttemptOutcome, OccurrenceState
from engine.schedules.kinds import Every, Once

S = OccurrenceState
HANG_FIRST = frozenset({1})


def make(workers: int = 1, **policy: object) -> Engine:
    engine = Engine(Policy(**policy))  # type: ignore[arg-type]
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def log_after_setup(engine: Engine) -> list[ev.Event]:
    return [e for e in engine.log if not isinstance(e, ev.WorkerRegistered | ev.JobScheduled)]


def test_a_hanging_attempt_times_out_at_exactly_start_plus_timeout_and_is_retried() -> None:
    # a@3 attempt 1 hangs from 3; timeout 5 reaps it at 8. It is a failed attempt with one retry
    # left and no backoff: attempt 2 starts at 8 on the freed w1 and, not scripted to hang, ends
    # after its duration 2, at 10. b@4 waited behind a (fifo: a@3 before b@4) and starts at 10.
    engine = make()
    add(engine, "a", Once(3), timeout=5, hang_attempts=HANG_FIRST, max_attempts=2, duration=2)
    add(engine, "b", Once(4))
    engine.advance(7)
    assert engine.query.run_state("a", 3) is S.RUNNING  # still running at 7
    engine.advance(20)
    assert log_after_setup(engine) == [
        ev.AttemptStarted(3, "a", 3, 1, "w1"),
        ev.AttemptTimedOut(8, "a", 3, 1, "w1"),
        ev.RetryScheduled(8, "a", 3, 2, 8, 0),
        ev.AttemptStarted(8, "a", 3, 2, "w1"),
        ev.AttemptSucceeded(10, "a", 3, 2, "w1"),
        ev.AttemptStarted(10, "b", 4, 1, "w1"),
        ev.AttemptSucceeded(11, "b", 4, 1, "w1"),
    ]
    attempt = engine.query.record("a", 3).attempts[0]
    assert (attempt.started, attempt.ended, attempt.outcome) == (3, 8, AttemptOutcome.TIMED_OUT)
    assert violations(engine) == []


def test_a_timeout_with_no_retry_left_fails_the_occurrence_and_frees_the_worker() -> None:
    # a@0 hangs, timeout 300 (the seed's 5 minutes at one tick a second): FAILED at 300; b (due
    # at 1, waiting for the only worker) starts at 300, the tick the worker is freed.
    engine = make()
    add(engine, "a", Once(0), timeout=300, hang_attempts=HANG_FIRST)
    add(engine, "b", Once(1))
    engine.advance(302)
    assert log_after_setup(engine) == [
        ev.AttemptStarted(0, "a", 0, 1, "w1"),
        ev.AttemptTimedOut(300, "a", 0, 1, "w1"),
        ev.OccurrenceFailed(300, "a", 0, 1),
        ev.AttemptStarted(300, "b", 1, 1, "w1"),
        ev.AttemptSucceeded(301, "b", 1, 1, "w1"),
    ]
    assert engine.query.run_state("a", 0) is S.FAILED


def test_a_timed_out_attempt_retries_after_backoff() -> None:
    # Timeout 4 at 4; fixed backoff 6: RETRY_PENDING with eligible_at 10; attempt 2 at 10.
    engine = make()
    add(
        engine,
        "a",
        Once(0),
        timeout=4,
        hang_attempts=HANG_FIRST,
        max_attempts=2,
        backoff=Backoff(BackoffKind.FIXED, base=6),
    )
    engine.advance(5)
    occurrence = engine.query.record("a", 0)
    assert (occurrence.state, occurrence.eligible_at, occurrence.retry_delay) == (
        S.RETRY_PENDING,
        10,
        6,
    )
    engine.advance(12)
    assert log_after_setup(engine)[1:] == [
        ev.AttemptTimedOut(4, "a", 0, 1, "w1"),
        ev.RetryScheduled(4, "a", 0, 2, 10, 6),
        ev.AttemptStarted(10, "a", 0, 2, "w1"),
        ev.AttemptSucceeded(11, "a", 0, 2, "w1"),
    ]


def test_every_attempt_gets_its_own_limit() -> None:
    # Both attempts hang; each is reaped 5 ticks after it starts: 0 -> 5, 5 -> 10.
    engine = make()
    add(engine, "a", Once(0), timeout=5, hang_attempts=frozenset({1, 2}), max_attempts=2)
    engine.advance(11)
    assert [(e.tick, e.attempt) for e in engine.log if isinstance(e, ev.AttemptTimedOut)] == [
        (5, 1),
        (10, 2),
    ]
    assert engine.log[-1] == ev.OccurrenceFailed(10, "a", 0, 2)


def test_completion_at_exactly_the_limit_wins_over_the_timeout() -> None:
    # Duration 5 = timeout 5: the attempt's end and the reviewer's check fall on tick 5. Attempt
    # ends run before timeouts within a tick, so it succeeds.
    engine = make()
    add(engine, "a", Once(0), duration=5, timeout=5)
    engine.advance(10)
    assert log_after_setup(engine) == [
        ev.AttemptStarted(0, "a", 0, 1, "w1"),
        ev.AttemptSucceeded(5, "a", 0, 1, "w1"),
    ]


def test_one_tick_over_the_limit_times_out() -> None:
    engine = make()
    add(engine, "a", Once(0), duration=6, timeout=5)
    engine.advance(10)
    assert log_after_setup(engine) == [
        ev.AttemptStarted(0, "a", 0, 1, "w1"),
        ev.AttemptTimedOut(5, "a", 0, 1, "w1"),
        ev.OccurrenceFailed(5, "a", 0, 1),
    ]


def reported_engine() -> Engine:
    engine = make(completion=CompletionMode.REPORTED)
    add(engine, "a", Once(0), timeout=5, max_attempts=2)
    return engine


def test_reported_a_late_completion_of_a_timed_out_attempt_is_rejected() -> None:
    # Attempt 1 runs from 0; no report by 5: timed out, attempt 2 starts at 5. A report for
    # attempt 1 at 6 is stale (409); the one for attempt 2 is accepted.
    engine = reported_engine()
    engine.advance(6)
    late = engine.apply(Complete("a", 0, 1, True))
    assert late.outcome is Outcome.CONFLICT and late.outcome.value == 409
    assert "runs attempt 2" in late.message
    assert engine.apply(Complete("a", 0, 2, True)).accepted
    assert log_after_setup(engine) == [
        ev.AttemptStarted(0, "a", 0, 1, "w1"),
        ev.AttemptTimedOut(5, "a", 0, 1, "w1"),
        ev.RetryScheduled(5, "a", 0, 2, 5, 0),
        ev.AttemptStarted(5, "a", 0, 2, "w1"),
        ev.AttemptSucceeded(6, "a", 0, 2, "w1"),
    ]
    # After the occurrence is final, any report for it is stale.
    assert engine.apply(Complete("a", 0, 2, True)).outcome is Outcome.CONFLICT


def test_reported_completion_given_at_the_limit_before_the_tick_runs_wins() -> None:
    # advance(5) leaves tick 5 unprocessed: a report given now is applied before the reviewer's
    # check of tick 5, which then finds nothing running.
    engine = reported_engine()
    engine.advance(5)
    assert engine.apply(Complete("a", 0, 1, True)).accepted
    engine.advance(10)
    assert log_after_setup(engine) == [
        ev.AttemptStarted(0, "a", 0, 1, "w1"),
        ev.AttemptSucceeded(5, "a", 0, 1, "w1"),
    ]


def test_reported_completion_after_the_tick_own_events_is_too_late() -> None:
    # In the documented tick order (own events, then commands) the reviewer runs first at 5.
    engine = reported_engine()
    engine.advance(5)
    engine.begin_tick()
    assert engine.apply(Complete("a", 0, 1, True)).outcome is Outcome.CONFLICT
    assert engine.query.record("a", 0).attempts[0].outcome is AttemptOutcome.TIMED_OUT


def test_timeout_frees_the_worker_but_manual_dispatch_waits_for_a_dispatch() -> None:
    engine = make(dispatch=DispatchMode.MANUAL)
    add(engine, "a", Once(0), timeout=3, hang_attempts=HANG_FIRST, max_attempts=2)
    assert [x.attempt for x in engine.apply(Dispatch()).value] == [1]
    engine.advance(10)
    assert engine.query.worker("w1").running is None
    assert engine.query.run_state("a", 0) is S.RETRY_PENDING
    assert [(x.attempt, x.worker_id) for x in engine.apply(Dispatch()).value] == [(2, "w1")]


def test_a_hang_without_a_timeout_runs_forever() -> None:
    # Nothing can happen any more: a jump of a billion ticks is instant and changes nothing.
    engine = make()
    add(engine, "a", Once(0), hang_attempts=HANG_FIRST)
    engine.advance(1)
    assert engine.next_event_tick() is None
    engine.advance(10**9)
    assert engine.query.run_state("a", 0) is S.RUNNING
    assert engine.query.worker("w1").running == ("a", 0)


def test_a_stale_timeout_never_reaps_a_later_attempt() -> None:
    # Attempt 1 (w1, from 0, limit at 5) is lost at 2 and attempt 2 starts on w2 at 2 with its own
    # limit at 7. Tick 5 (attempt 1's old limit) must leave attempt 2 alone.
    engine = make(workers=2)
    add(engine, "a", Once(0), timeout=5, duration=10)
    engine.advance(2)
    assert engine.apply(WorkerDown("w1")).accepted
    engine.advance(6)
    assert engine.query.run_state("a", 0) is S.RUNNING
    engine.advance(8)
    assert [e for e in engine.log if isinstance(e, ev.AttemptTimedOut)] == [
        ev.AttemptTimedOut(7, "a", 0, 2, "w2")
    ]
    assert violations(engine) == []


@pytest.mark.parametrize(("new_timeout", "reaped_at"), [(2, 12), (None, None)])
def test_a_modified_timeout_applies_to_later_occurrences(
    new_timeout: int | None, reaped_at: int | None
) -> None:
    # Every 10 from 0, duration 4, timeout 8. At 5 the timeout becomes new_timeout: a@0 (already
    # done) and nothing else is affected; a@10 runs with the new limit (2: reaped at 12).
    engine = make()
    add(engine, "a", Every(0, 10), duration=4, timeout=8)
    engine.advance(5)
    assert engine.apply(ModifyJob.of("a", timeout=new_timeout)).accepted
    engine.advance(15)
    timed_out = [e.tick for e in engine.log if isinstance(e, ev.AttemptTimedOut)]
    assert timed_out == ([] if reaped_at is None else [reaped_at])
    assert engine.query.record("a", 0).state is S.SUCCEEDED
    assert engine.query.record("a", 10).timeout == new_timeout
