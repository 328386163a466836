"""The notification outbox: what a delivery adapter would consume, modelled deterministically.

Each notification is identified by an idempotency key (job, scheduled tick, attempt, happening,
channel, target) and is delivered at most once: the outbox refuses a second notification with the
same key, and a delivered one is never tried again. The engine sends nothing over a network.

How a try ends depends on the policy's delivery mode. Simulated: a try fails exactly when the
policy scripts its channel as down at that tick. Reported (the service): the engine only says when
a try is due (PENDING, ``next_try`` reached); whoever delivers for real ends the try with a
:class:`~engine.model.commands.ReportDelivery`, and a retry's jitter is drawn from a generator
seeded by the key and the try's number, so each key backs off the same way whatever else happens.

Given the tick clock, the journal, the event log, the timers (a try falls due as a
``NOTIFICATION_TRY`` timer whose payload is ``(key,)``), the jobs (whose subscriptions say who
hears of what), the policy's notification settings and the seeded generator (a simulated retry's
jitter).
"""

from __future__ import annotations

import random
from dataclasses import field
from enum import Enum
from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.commands import Outcome, Result, refused
from engine.model.compact_pickle import pickled_compactly
from engine.model.journaled import BOOKKEEPING, IDENTITY, VERSIONS, journaled
from engine.model.policies import DeliveryMode
from engine.model.problems import Code
from engine.model.records import Channel, NotifyOn, Occurrence
from engine.model.values import mutable_record
from engine.parts.timers import TimerKind, Timers
from engine.rewind.journal import JournaledPart

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.model.policies import NotificationPolicy
    from engine.model.records import Job
    from engine.model.rng import TrackedRandom
    from engine.parts.tick_clock import TickClock
    from engine.rewind.journal import ChangeJournal

NotificationKey = tuple[str, int, int, str, str, str]


class NotificationState(Enum):
    PENDING = "PENDING"
    DELIVERED = "DELIVERED"
    DEAD = "DEAD"
    """Every allowed try failed."""


@pickled_compactly
@journaled
@mutable_record
class Notification:
    key: NotificationKey = field(metadata=IDENTITY)
    created: int = field(metadata=IDENTITY)
    state: NotificationState = NotificationState.PENDING
    tries: int = 0
    next_try: int | None = None
    delivered_at: int | None = None
    gen: int = field(default=0, compare=False, repr=False, metadata=BOOKKEEPING)
    versions: object = field(default=None, init=False, compare=False, repr=False, metadata=VERSIONS)

    @property
    def job_id(self) -> str:
        return self.key[0]

    @property
    def happening(self) -> str:
        return self.key[3]

    @property
    def channel(self) -> str:
        return self.key[4]

    @property
    def target(self) -> str:
        return self.key[5]


class Outbox(JournaledPart):
    """Queues notifications for a job's subscribers and tries to deliver them."""

    def __init__(
        self,
        clock: TickClock,
        journal: ChangeJournal,
        log: EventLog,
        timers: Timers,
        jobs: dict[str, Job],
        policy: NotificationPolicy,
        rng: TrackedRandom,
    ) -> None:
        self._clock = clock
        self._journal = journal
        self._log = log
        self._timers = timers
        self._jobs = jobs
        self._policy = policy
        self._rng = rng
        self.records: dict[NotificationKey, Notification] = {}

    def tables(self) -> tuple[tuple[str, dict], ...]:
        return (("notification", self.records),)

    def notify(self, occurrence: Occurrence, happening: NotifyOn) -> None:
        job_id, scheduled = occurrence.key
        self.notify_run(job_id, scheduled, len(occurrence.attempts), happening)

    def notify_run(self, job_id: str, scheduled: int, attempt: int, happening: NotifyOn) -> None:
        """Queue the notifications of a run, with or without a record (an implicit run has had
        no attempt)."""
        subscriptions = self._jobs[job_id].spec.notify
        if not subscriptions:
            return
        now = self._clock.now
        for subscription in subscriptions:
            if happening not in subscription.on:
                continue
            key = (
                job_id,
                scheduled,
                attempt,
                happening.value,
                subscription.channel.value,
                subscription.target,
            )
            if key in self.records:
                continue
            self.records[key] = Notification(key, created=now, next_try=now)
            self._log.add(ev.NotificationQueued, now, key)
            self._timers.add(now, TimerKind.NOTIFICATION_TRY, (key,))

    def try_delivery(self, key: NotificationKey) -> None:
        """A try falls due: simulated, it ends at once; reported, it waits for its report."""
        now = self._clock.now
        notification = self.records[key]
        if notification.state is not NotificationState.PENDING or notification.next_try != now:
            return
        policy = self._policy
        if policy.delivery is DeliveryMode.SIMULATED:
            delivered = not policy.is_down(Channel(notification.channel), now)
            self._end_try(notification, delivered, self._rng)

    def report(self, key: NotificationKey, delivered: bool) -> Result:
        """End the due try of ``key`` as its deliverer reports (reported delivery only)."""
        if self._policy.delivery is not DeliveryMode.REPORTED:
            message = "delivery is simulated: tries are not reported"
            return refused(Outcome.CONFLICT, Code.DELIVERY_SIMULATED, message)
        notification = self.records.get(key)
        if notification is None:
            message = f"no notification {key!r}"
            return refused(Outcome.NOT_FOUND, Code.UNKNOWN_NOTIFICATION, message, "key")
        if notification.state is not NotificationState.PENDING:
            state = notification.state.value.lower()
            message = f"the notification is already {state}"
            return refused(Outcome.CONFLICT, Code.NOTIFICATION_SETTLED, message, "key")
        assert notification.next_try is not None
        if notification.next_try > self._clock.now:
            message = f"the notification's next try is not due before tick {notification.next_try}"
            return refused(Outcome.CONFLICT, Code.TRY_NOT_DUE, message, "key")
        tries = notification.tries + 1
        self._end_try(notification, delivered, random.Random(f"{key!r}/{tries}"))
        return Result(Outcome.OK)

    def _end_try(self, notification: Notification, delivered: bool, rng: random.Random) -> None:
        """Count the try, then DELIVERED, DEAD after the last allowed try, or retry later."""
        now = self._clock.now
        key = notification.key
        self._journal.touch(notification)
        notification.tries += 1
        policy = self._policy
        if delivered:
            notification.state = NotificationState.DELIVERED
            notification.delivered_at = now
            notification.next_try = None
            self._log.add(ev.NotificationDelivered, now, key, notification.tries)
        elif notification.tries >= policy.max_tries:
            notification.state = NotificationState.DEAD
            notification.next_try = None
            self._log.add(ev.NotificationDeadLettered, now, key, notification.tries)
        else:
            delay = max(1, policy.backoff.delay(notification.tries, rng))
            notification.next_try = now + delay
            self._log.add(
                ev.NotificationRetried, now, key, notification.tries, notification.next_try
            )
            self._timers.add(notification.next_try, TimerKind.NOTIFICATION_TRY, (key,))
