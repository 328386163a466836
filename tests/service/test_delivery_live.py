"""The outbox in the live service: which notifications are due, tries reported as journaled
``delivery`` inputs, and a replay (from the journal or a snapshot) that rebuilds the same outbox.

Also the pieces whose stability the exactly-once claim rests on: the idempotency key (a function
of the notification alone) and the email's Message-ID."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cronlapse.service.clock import Anchor, LiveClock
from cronlapse.service.codec import DELIVERY, InputInvalid
from cronlapse.service.config import Config
from cronlapse.service.delivery.attach import delivery_input
from cronlapse.service.delivery.channels import EmailChannel, WebhookChannel
from cronlapse.service.delivery.email import build_message
from cronlapse.service.delivery.notice import Notice, due_notices, idempotency_key
from cronlapse.service.live import LiveService
from cronlapse.service.store import CLOCK_KEY, NOTIFICATION_POLICY, Store
from cronlapse.service.store.memory import MemoryStore
from engine.parts.notifications import NotificationState
from tests.service.test_live import START, Wall, complete_running

HOOK = WebhookChannel("ops-hook", "http://127.0.0.1:9/hook")
CONFIG = Config(workers=1, channels={"ops-hook": HOOK})
SUBSCRIPTION = {"on": ["succeeded", "failed"], "channel": "webhook", "to": "ops-hook"}


def open_live(store: Store, wall: Wall) -> LiveService:
    saved = store.journal.get_meta(CLOCK_KEY)
    clock = LiveClock.resume(None if saved is None else Anchor.loads(saved), 1.0, wall)
    store.journal.set_meta(CLOCK_KEY, clock.anchor.dumps())
    live = LiveService(store, clock, CONFIG)
    live.open()
    return live


def outbox(live: LiveService) -> dict:
    return {
        key: (n.state, n.tries, n.next_try) for key, n in live.engine.query.notifications().items()
    }


def succeeded_once(store: Store) -> tuple[LiveService, Wall, tuple]:
    """A job that ran and succeeded: one notification queued for the webhook, due now."""
    wall = Wall()
    live = open_live(store, wall)
    live.submit("schedule", {"id": "a", "notify": [SUBSCRIPTION]})
    assert complete_running(live) == 1
    (key,) = live.engine.query.notifications()
    return live, wall, key


def test_a_queued_notification_is_due_with_its_channel() -> None:
    live, _wall, key = succeeded_once(MemoryStore())
    assert key == ("a", START, 1, "succeeded", "webhook", "ops-hook")
    assert due_notices(live) == {key: Notice(key, HOOK, START, 1)}
    assert set(live.pending) == {key}


def test_a_failed_try_waits_for_its_backoff_then_is_due_again() -> None:
    live, wall, key = succeeded_once(MemoryStore())
    notice = due_notices(live)[key]
    assert live.submit(DELIVERY, delivery_input(notice, False)).accepted
    next_try = live.engine.query.notifications()[key].next_try
    assert next_try is not None and next_try > START
    assert due_notices(live) == {}
    wall.now = float(next_try)
    assert live.advance_clock(), "the retry's timer wakes the clock"
    assert due_notices(live)[key].try_number == 2


def test_replay_rebuilds_the_same_outbox() -> None:
    store = MemoryStore()
    live, wall, key = succeeded_once(store)
    live.submit(DELIVERY, delivery_input(due_notices(live)[key], False))
    before = (outbox(live), dict(live.pending), due_notices(live))
    again = open_live(store, wall)
    assert (outbox(again), dict(again.pending), due_notices(again)) == before
    wall.now = float(again.engine.query.notifications()[key].next_try)  # type: ignore[arg-type]
    again.advance_clock()
    assert again.submit(DELIVERY, delivery_input(due_notices(again)[key], True)).accepted
    assert again.engine.query.notifications()[key].state is NotificationState.DELIVERED
    assert again.pending == {} and due_notices(again) == {}
    again.snapshot()
    from_snapshot = open_live(store, wall)
    assert outbox(from_snapshot) == outbox(again) and from_snapshot.pending == {}


def test_dead_after_the_policys_tries() -> None:
    live, wall, key = succeeded_once(MemoryStore())
    for _ in range(NOTIFICATION_POLICY.max_tries):
        notice = due_notices(live)[key]
        assert live.submit(DELIVERY, delivery_input(notice, False)).accepted
        next_try = live.engine.query.notifications()[key].next_try
        if next_try is not None:
            wall.now = float(next_try)
            live.advance_clock()
    notification = live.engine.query.notifications()[key]
    assert (notification.state, notification.tries) == (
        NotificationState.DEAD,
        NOTIFICATION_POLICY.max_tries,
    )
    assert live.pending == {} and due_notices(live) == {}


def test_a_report_that_does_not_read_journals_nothing() -> None:
    live, _wall, key = succeeded_once(MemoryStore())
    seq = live.store.journal.last_seq()
    bad = {**delivery_input(due_notices(live)[key], True), "ok": "yes", "extra": 1}
    with pytest.raises(InputInvalid) as raised:
        live.submit(DELIVERY, bad)
    assert [p.path for p in raised.value.problems] == ["ok", "extra"]
    assert live.store.journal.last_seq() == seq


def test_a_channel_the_config_lost_is_due_without_one() -> None:
    wall = Wall()
    live = open_live(MemoryStore(), wall)
    live.submit("schedule", {"id": "a", "notify": [SUBSCRIPTION]})
    complete_running(live)
    live.config = Config(workers=1)
    (notice,) = due_notices(live).values()
    assert notice.channel is None


KEYS = st.tuples(
    st.text(min_size=1, max_size=8),
    st.integers(0, 2**40),
    st.integers(0, 9),
    st.sampled_from(["succeeded", "failed", "retries_exhausted"]),
    st.sampled_from(["webhook", "slack", "email"]),
    st.text(min_size=1, max_size=8),
)


@given(KEYS, KEYS)
def test_distinct_notifications_have_distinct_keys(first: tuple, second: tuple) -> None:
    assert (idempotency_key(first) == idempotency_key(second)) == (first == second)


def test_the_key_is_a_function_of_the_notification_alone() -> None:
    # Pinned: a restart, another process or another version must derive the same key.
    key = ("backup", 1_796_115_600, 2, "failed", "webhook", "ops-hook")
    assert idempotency_key(key) == "a40641ffb37b759d98fc24def3e8884f"


def test_every_try_of_an_email_is_the_same_message() -> None:
    mail = EmailChannel("oncall", "127.0.0.1", "cron@example.com", ("ops@example.com",))
    key = ("backup", 1_796_115_600, 1, "succeeded", "email", "oncall")
    first = build_message(mail, Notice(key, mail, 1_796_115_603, 1))
    later = build_message(mail, Notice(key, mail, 1_796_115_603, 5))
    assert first["Message-ID"] == later["Message-ID"] == f"<{idempotency_key(key)}@example.com>"
    assert first.as_bytes() == later.as_bytes()
    assert first["Date"] == "Tue, 01 Dec 2026 09:00:03 +0000"
