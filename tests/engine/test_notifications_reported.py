"""Reported delivery: the engine says when a notification's try is due; the deliverer ends it.

The service delivers notifications for real and reports each try's end as a ReportDelivery
command (journaled like an executor's ``complete``), so replaying the journal rebuilds the same
outbox. A retry's jitter is drawn from a generator seeded by the key and the try's number.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind, Jitter
from engine.model.commands import (
    Advance,
    Complete,
    Outcome,
    RegisterWorker,
    ReportDelivery,
    ScheduleJob,
)
from engine.model.policies import CompletionMode, DeliveryMode, NotificationPolicy, Policy
from engine.model.records import Channel, JobSpec, NotifyOn, Subscription
from engine.parts.notifications import NotificationState
from engine.schedules.kinds import Once

HOOK = Subscription(frozenset({NotifyOn.SUCCEEDED}), Channel.WEBHOOK, "ops-hook")
JITTERED = Backoff(BackoffKind.EXPONENTIAL, base=5, cap=300, jitter=Jitter.FULL)


def make(max_tries: int = 3, seed: int = 0, jobs: tuple[str, ...] = ("a",)) -> Engine:
    """Jobs whose attempts succeed when reported at tick 1; a webhook subscriber on each."""
    notifications = NotificationPolicy(
        max_tries=max_tries, backoff=JITTERED, delivery=DeliveryMode.REPORTED
    )
    policy = Policy(completion=CompletionMode.REPORTED, notifications=notifications)
    engine = Engine(policy, seed=seed)
    for number in range(len(jobs)):
        assert engine.apply(RegisterWorker(f"w{number}")).accepted
    for job_id in jobs:
        assert engine.apply(ScheduleJob(JobSpec(job_id, Once(0), notify=(HOOK,)))).accepted
    engine.advance(1)
    for job_id in jobs:
        assert engine.apply(Complete(job_id, 0, 1, True)).accepted
    return engine


def key(job_id: str = "a") -> tuple:
    return (job_id, 0, 1, "succeeded", "webhook", "ops-hook")


def test_a_due_try_waits_for_its_report() -> None:
    engine = make()
    engine.advance(50)
    notification = engine.query.notifications()[key()]
    assert notification.state is NotificationState.PENDING
    assert (notification.tries, notification.next_try) == (0, 1)


def test_a_delivered_report_ends_it_delivered() -> None:
    engine = make()
    engine.advance(3)
    assert engine.apply(ReportDelivery(key(), True)).accepted
    notification = engine.query.notifications()[key()]
    assert (notification.state, notification.tries, notification.delivered_at) == (
        NotificationState.DELIVERED,
        1,
        3,
    )
    assert ev.NotificationDelivered(3, key(), 1) in list(engine.log)


def test_a_failed_report_retries_after_a_jittered_backoff_then_dead() -> None:
    engine = make(max_tries=3)
    assert engine.apply(ReportDelivery(key(), False)).accepted
    first = engine.query.notifications()[key()].next_try
    assert first is not None and 2 <= first <= 1 + 5  # full jitter in [0, 5], at least 1
    engine.settle()  # the tick's own timers (the first try's, spent) run
    assert engine.next_event_tick() == first, "the retry's timer wakes the clock"
    engine.advance(first)
    assert engine.apply(ReportDelivery(key(), False)).accepted
    second = engine.query.notifications()[key()].next_try
    assert second is not None and first + 1 <= second <= first + 10
    engine.advance(second)
    assert engine.apply(ReportDelivery(key(), False)).accepted
    notification = engine.query.notifications()[key()]
    assert (notification.state, notification.tries) == (NotificationState.DEAD, 3)
    assert ev.NotificationDeadLettered(second, key(), 3) in list(engine.log)


def test_jitter_depends_on_the_key_alone() -> None:
    # Another seed and another notification failing first: the key still backs off the same way.
    alone = make(seed=1)
    crowded = make(seed=99, jobs=("a", "b"))
    assert crowded.apply(ReportDelivery(key("b"), False)).accepted
    for engine in (alone, crowded):
        assert engine.apply(ReportDelivery(key(), False)).accepted
    assert alone.query.notification(key()).next_try == crowded.query.notification(key()).next_try


def test_jitter_differs_between_keys() -> None:
    names = tuple(f"j{number}" for number in range(12))
    engine = make(jobs=names)
    for name in names:
        assert engine.apply(ReportDelivery(key(name), False)).accepted
    assert len({engine.query.notifications()[key(name)].next_try for name in names}) > 1


def test_reports_that_do_not_fit_are_refused_and_change_nothing() -> None:
    engine = make()
    unknown = engine.apply(ReportDelivery(key("nobody"), True))
    assert unknown.outcome is Outcome.NOT_FOUND
    assert engine.apply(ReportDelivery(key(), False)).accepted
    early = engine.apply(ReportDelivery(key(), True))
    assert early.outcome is Outcome.CONFLICT and "not due" in early.message
    assert engine.query.notifications()[key()].tries == 1
    engine.apply(Advance(engine.query.notifications()[key()].next_try))
    assert engine.apply(ReportDelivery(key(), True)).accepted
    again = engine.apply(ReportDelivery(key(), True))
    assert again.outcome is Outcome.CONFLICT and "already delivered" in again.message
    assert engine.query.notifications()[key()].tries == 2


def test_a_simulated_outbox_refuses_reports() -> None:
    engine = Engine(Policy())
    answer = engine.apply(ReportDelivery(key(), True))
    assert answer.outcome is Outcome.CONFLICT and "simulated" in answer.message


@given(st.lists(st.booleans(), min_size=1, max_size=8), st.integers(1, 5))
def test_tries_end_delivered_or_dead_within_max_tries(outcomes: list[bool], max_tries: int) -> None:
    engine = make(max_tries=max_tries)
    for delivered in outcomes:
        notification = engine.query.notifications()[key()]
        if notification.state is not NotificationState.PENDING:
            break
        assert notification.next_try is not None
        engine.apply(Advance(notification.next_try))
        assert engine.apply(ReportDelivery(key(), delivered)).accepted
    tried = outcomes[:max_tries]
    delivered = True in tried
    notification = engine.query.notifications()[key()]
    assert notification.tries == (tried.index(True) + 1 if delivered else len(tried))
    if delivered:
        assert notification.state is NotificationState.DELIVERED
    elif len(tried) == max_tries:
        assert notification.state is NotificationState.DEAD
    else:
        assert notification.state is NotificationState.PENDING
