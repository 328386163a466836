"""One due notification as its delivery needs it, and the idempotency key that names it.

The key is a hash of the engine's notification key (job, scheduled tick, attempt, event,
channel, target): it names the notification, never a try, so it is the same for every try, for
the retries after a failure and for a try repeated after a restart. A receiver that keeps the
keys it has seen takes each notification once; an email carries it in its ``Message-ID``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from cronlapse.service.delivery.channels import ChannelConfig
from cronlapse.service.live import LiveService
from cronlapse.service.views import iso, time_text
from engine.parts.notifications import NotificationKey, NotificationState


def idempotency_key(key: NotificationKey) -> str:
    """32 hex digits of SHA-256 over the notification's key."""
    text = "\x00".join(str(part) for part in key)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Notice:
    """A due try of one notification; ``channel`` is None when the config lost the channel."""

    key: NotificationKey
    channel: ChannelConfig | None
    time: int
    """The tick the notification was queued: when its event happened."""
    try_number: int

    @property
    def job(self) -> str:
        return self.key[0]

    @property
    def run(self) -> str | None:
        """The run's scheduled time, ISO; None past the year 9999, where no date names it."""
        return iso(self.key[1])

    @property
    def run_text(self) -> str:
        """The run's scheduled time for a sentence or a header: its tick past the year 9999."""
        return time_text(self.key[1])

    @property
    def attempt(self) -> int:
        return self.key[2]

    @property
    def event(self) -> str:
        return self.key[3]

    @property
    def idempotency_key(self) -> str:
        return idempotency_key(self.key)

    def document(self) -> dict:
        """What a webhook receives (and what every channel's message says)."""
        return {
            "job": self.job,
            "run": self.run,
            "event": self.event,
            "attempt": self.attempt,
            "time": iso(self.time),
        }


def due_notices(live: LiveService) -> dict[NotificationKey, Notice]:
    """The outbox's PENDING notifications whose next try has come, by the engine's clock."""
    engine = live.engine
    now, outbox, channels = engine.now, engine.query.notifications(), live.config.channels
    due = {}
    for key in live.pending:
        notification = outbox[key]
        next_try = notification.next_try
        pending = notification.state is NotificationState.PENDING
        if pending and next_try is not None and next_try <= now:
            channel = channel_for(channels, key)
            due[key] = Notice(key, channel, notification.created, notification.tries + 1)
    return due


def channel_for(
    channels: Mapping[str, ChannelConfig], key: NotificationKey
) -> ChannelConfig | None:
    """The configured channel a notification goes to (None: the config no longer has it)."""
    channel = channels.get(key[5])
    return channel if channel is not None and channel.kind.value == key[4] else None


_HAPPENED = {
    "succeeded": "succeeded",
    "failed": "failed",
    "retries_exhausted": "exhausted its retries",
    "timed_out": "timed out",
    "cancelled": "was cancelled",
}


def describe(notice: Notice) -> str:
    """One readable sentence: what happened to which run, and when."""
    happened = _HAPPENED.get(notice.event, notice.event)
    return (
        f"Job {notice.job} {happened}: its run of {notice.run_text}, attempt {notice.attempt} "
        f"(at {time_text(notice.time)})."
    )
