"""Notifications (email, webhook, Slack) and the outbox a delivery adapter would consume.

A job subscribes per happening (succeeded, failed, retries_exhausted, timed_out, cancelled) with a
channel and a target. Each notification has an idempotency key (job, scheduled tick, attempt,
happening, channel, target); delivery tries back off while the channel is down (scripted outages)
and end DELIVERED, or DEAD after ``max_tries``. Each key is delivered exactly once.
"""

from __future__ import annotations

from collections import Counter

import pytest
from engine_steps import add

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind, Jitter
from engine.model.commands import CancelOccurrence, DeleteJob, RegisterWorker
from engine.model.policies import ChannelOutage, NotificationPolicy, Policy
from engine.model.records import Channel, NotifyOn, Subscription
from engine.parts.notifications import NotificationState
from engine.schedules.kinds import Every, Once

ON = NotifyOn
EVERYTHING = frozenset(NotifyOn)
EMAIL = Subscription(EVERYTHING, Channel.EMAIL, "ops@example.com")


def make(notifications: NotificationPolicy | None = None, workers: int = 1) -> Engine:
    engine = Engine(Policy(notifications=notifications or NotificationPolicy()))
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def queued(engine: Engine) -> list[tuple[int, tuple]]:
    return [(e.tick, e.key) for e in engine.log if isinstance(e, ev.NotificationQueued)]


def note_events(engine: Engine) -> list[ev.Event]:
    return [e for e in engine.log if isinstance(e, ev.NotificationEvent)]


# ----------------------------------------------------------------------- what each happening sends


def test_succeeded_failed_and_retries_exhausted_keys() -> None:
    # bad@0 (on w1: "bad" < "ok") fails attempt 1 at 1 (retry), attempt 2 at 2 (last): "failed"
    # for each attempt, "retries_exhausted" for the second. ok@0 (on w2) succeeds at 1, after
    # bad's attempt 1 ended (attempt ends run in start order). Keys carry the attempt number.
    engine = make(workers=2)
    add(engine, "ok", Once(0), notify=(EMAIL,))
    add(engine, "bad", Once(0), notify=(EMAIL,), max_attempts=2, fail_attempts=frozenset({1, 2}))
    engine.advance(5)
    target = ("email", "ops@example.com")
    assert queued(engine) == [
        (1, ("bad", 0, 1, "failed", *target)),
        (1, ("ok", 0, 1, "succeeded", *target)),
        (2, ("bad", 0, 2, "failed", *target)),
        (2, ("bad", 0, 2, "retries_exhausted", *target)),
    ]
    assert all(
        n.state is NotificationState.DELIVERED for n in engine.query.notifications().values()
    )
    assert set(engine.query.notifications()) == {key for _, key in queued(engine)}


def test_timed_out_and_cancelled_keys() -> None:
    # slow@0 hangs; timeout 3 reaps it at 3: "timed_out" and (no retry left) "retries_exhausted",
    # but not "failed" (a timeout is its own happening). At 5 slow@10 is cancelled before it ran:
    # its key's attempt is 0.
    engine = make()
    add(engine, "slow", Every(0, 10), notify=(EMAIL,), timeout=3, hang_attempts=frozenset({1}))
    engine.advance(5)
    assert engine.apply(CancelOccurrence("slow", 10)).accepted
    engine.advance(6)
    assert [key[:4] for _, key in queued(engine)] == [
        ("slow", 0, 1, "timed_out"),
        ("slow", 0, 1, "retries_exhausted"),
        ("slow", 10, 0, "cancelled"),
    ]


def test_deleting_a_job_notifies_the_cancelled_waiting_occurrences() -> None:
    engine = make()
    add(
        engine,
        "a",
        Every(0, 10),
        notify=(EMAIL,),
        max_attempts=2,
        fail_attempts=frozenset({1}),
        backoff=Backoff(BackoffKind.FIXED, base=5),
    )
    engine.advance(3)  # a@0 failed at 1, RETRY_PENDING until 6
    assert engine.apply(DeleteJob("a")).accepted
    engine.advance(4)
    assert [key[:4] for _, key in queued(engine)] == [
        ("a", 0, 1, "failed"),
        ("a", 0, 1, "cancelled"),
    ]


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        ({ON.SUCCEEDED}, ["succeeded"]),
        ({ON.FAILED}, ["failed", "failed"]),
        ({ON.RETRIES_EXHAUSTED}, []),
        ({ON.TIMED_OUT}, ["timed_out"]),
        ({ON.CANCELLED}, []),
        ({ON.FAILED, ON.TIMED_OUT}, ["failed", "timed_out", "failed"]),
    ],
)
def test_subscriptions_are_per_happening(on: set[NotifyOn], expected: list[str]) -> None:
    # Attempts: 1 fails at 1, 2 hangs and times out at 1 + 4 = 5, 3 fails at 6, 4 succeeds at 7.
    engine = make()
    add(
        engine,
        "a",
        Once(0),
        max_attempts=4,
        fail_attempts=frozenset({1, 3}),
        hang_attempts=frozenset({2}),
        timeout=4,
        notify=(Subscription(frozenset(on), Channel.SLACK, "#ops"),),
    )
    engine.advance(10)
    assert [key[3] for _, key in queued(engine)] == expected
    assert all(key[4:] == ("slack", "#ops") for _, key in queued(engine))


def test_each_channel_and_target_gets_its_own_key() -> None:
    subscriptions = (
        Subscription(frozenset({ON.SUCCEEDED}), Channel.EMAIL, "a@x"),
        Subscription(frozenset({ON.SUCCEEDED}), Channel.EMAIL, "b@x"),
        Subscription(frozenset({ON.SUCCEEDED}), Channel.WEBHOOK, "https://hook"),
        Subscription(frozenset({ON.SUCCEEDED}), Channel.SLACK, "#ops"),
        # The same channel and target subscribed twice is one key: it is delivered once.
        Subscription(frozenset({ON.SUCCEEDED, ON.FAILED}), Channel.SLACK, "#ops"),
    )
    engine = make()
    add(engine, "a", Once(0), notify=subscriptions)
    engine.advance(3)
    assert sorted(key[4:] for key in engine.query.notifications()) == [
        ("email", "a@x"),
        ("email", "b@x"),
        ("slack", "#ops"),
        ("webhook", "https://hook"),
    ]
    delivered = Counter(e.key for e in engine.log if isinstance(e, ev.NotificationDelivered))
    assert sorted(delivered.values()) == [1, 1, 1, 1]


def test_no_subscription_no_notification() -> None:
    engine = make()
    add(engine, "a", Once(0), fail_attempts=frozenset({1}))
    engine.advance(5)
    assert engine.query.notifications() == {}
    assert note_events(engine) == []


# ---------------------------------------------------------------------------- delivery and outages


def outage_engine(max_tries: int, outage_end: int) -> Engine:
    # a@12 succeeds at 13; the webhook is down over [10, outage_end). Delivery backoff is the
    # default exponential base 1: waits 1, 2, 4, 8 ... after tries 1, 2, 3, 4.
    policy = NotificationPolicy(
        max_tries=max_tries,
        outages=(ChannelOutage(Channel.WEBHOOK, 10, outage_end),),
    )
    engine = make(policy)
    hook = Subscription(frozenset({ON.SUCCEEDED}), Channel.WEBHOOK, "https://hook")
    mail = Subscription(frozenset({ON.SUCCEEDED}), Channel.EMAIL, "ops@x")
    add(engine, "a", Once(12), notify=(hook, mail))
    engine.advance(100)
    return engine


HOOK = ("a", 12, 1, "succeeded", "webhook", "https://hook")
MAIL = ("a", 12, 1, "succeeded", "email", "ops@x")


def test_an_outage_delays_delivery_with_backoff_until_it_ends() -> None:
    # Tries at 13 (down), 14 (down), 16 (down), 20 (up: the outage ended at 20): DELIVERED, tries 4.
    # The email channel is up: delivered at 13 on the first try.
    engine = outage_engine(max_tries=5, outage_end=20)
    assert note_events(engine) == [
        ev.NotificationQueued(13, HOOK),
        ev.NotificationQueued(13, MAIL),
        ev.NotificationRetried(13, HOOK, 1, 14),
        ev.NotificationDelivered(13, MAIL, 1),
        ev.NotificationRetried(14, HOOK, 2, 16),
        ev.NotificationRetried(16, HOOK, 3, 20),
        ev.NotificationDelivered(20, HOOK, 4),
    ]
    hook = engine.query.notifications()[HOOK]
    assert (hook.state, hook.tries, hook.delivered_at, hook.created) == (
        NotificationState.DELIVERED,
        4,
        20,
        13,
    )
    assert violations(engine) == []


def test_a_notification_is_dead_after_max_tries() -> None:
    # max_tries 3 and a long outage: tries at 13, 14, 16; the third fails: DEAD at 16.
    engine = outage_engine(max_tries=3, outage_end=1000)
    assert [e for e in note_events(engine) if e.key == HOOK] == [
        ev.NotificationQueued(13, HOOK),
        ev.NotificationRetried(13, HOOK, 1, 14),
        ev.NotificationRetried(14, HOOK, 2, 16),
        ev.NotificationDeadLettered(16, HOOK, 3),
    ]
    assert engine.query.notifications()[HOOK].state is NotificationState.DEAD
    assert engine.query.notifications()[HOOK].next_try is None
    assert engine.query.notifications()[MAIL].state is NotificationState.DELIVERED


def test_pending_notifications_are_visible_in_the_outbox() -> None:
    policy = NotificationPolicy(outages=(ChannelOutage(Channel.WEBHOOK, 0, 50),))
    engine = make(policy)
    hook = Subscription(frozenset({ON.SUCCEEDED}), Channel.WEBHOOK, "https://hook")
    add(engine, "a", Once(12), notify=(hook,))
    engine.advance(15)
    pending = engine.query.notifications()[HOOK]
    assert (pending.state, pending.tries, pending.next_try) == (NotificationState.PENDING, 2, 16)
    assert (pending.job_id, pending.happening, pending.channel, pending.target) == (
        "a",
        "succeeded",
        "webhook",
        "https://hook",
    )


def test_jittered_delivery_backoff_is_deterministic() -> None:
    def run(seed: int) -> list[ev.Event]:
        policy = NotificationPolicy(
            max_tries=8,
            backoff=Backoff(BackoffKind.EXPONENTIAL, base=4, jitter=Jitter.FULL),
            outages=(ChannelOutage(Channel.SLACK, 0, 40),),
        )
        engine = Engine(Policy(notifications=policy), seed=seed)
        assert engine.apply(RegisterWorker("w1")).accepted
        slack = Subscription(EVERYTHING, Channel.SLACK, "#ops")
        add(engine, "a", Every(0, 7), notify=(slack,), failure_rate=0.3, max_attempts=2)
        engine.advance(200)
        assert violations(engine) == []
        return note_events(engine)

    assert run(3) == run(3)
    assert len({tuple(run(seed)) for seed in range(5)}) > 1


def test_every_key_is_delivered_at_most_once_and_ends_final() -> None:
    # A busy fleet with flaky channels: every key in the outbox is DELIVERED (exactly one
    # NotificationDelivered) or DEAD (none); nothing is left pending once the outages are over.
    policy = NotificationPolicy(
        max_tries=4,
        outages=(
            ChannelOutage(Channel.EMAIL, 5, 12),
            ChannelOutage(Channel.WEBHOOK, 0, 30),
            ChannelOutage(Channel.SLACK, 20, 22),
        ),
    )
    engine = make(policy, workers=2)
    subscriptions = (
        Subscription(EVERYTHING, Channel.EMAIL, "ops@x"),
        Subscription(frozenset({ON.FAILED, ON.SUCCEEDED}), Channel.WEBHOOK, "https://hook"),
        Subscription(frozenset({ON.RETRIES_EXHAUSTED, ON.TIMED_OUT}), Channel.SLACK, "#ops"),
    )
    for n in range(4):
        add(
            engine,
            f"j{n}",
            Every(n, 3 + n),
            notify=subscriptions,
            max_attempts=2,
            fail_attempts=frozenset({1}) if n % 2 else frozenset(),
            timeout=4,
            hang_attempts=frozenset({2}) if n == 3 else frozenset(),
        )
    engine.advance(60)
    for job_id in list(engine.query.jobs()):
        assert engine.apply(DeleteJob(job_id)).outcome.value in (200, 409)
    engine.advance(200)
    delivered = Counter(e.key for e in engine.log if isinstance(e, ev.NotificationDelivered))
    assert delivered and max(delivered.values()) == 1
    states = Counter(n.state for n in engine.query.notifications().values())
    assert states[NotificationState.PENDING] == 0
    assert states[NotificationState.DEAD] > 0
    for key, notification in engine.query.notifications().items():
        assert (notification.state is NotificationState.DELIVERED) == (delivered[key] == 1)
    assert violations(engine) == []
