"""The notification outbox: what a delivery adapter would consume, modelled deterministically.

Each notification is identified by an idempotency key (job, scheduled tick, attempt, happening,
channel, target) and is delivered at most once: the outbox refuses a second notification with the
same key, and a delivered one is never tried again. The engine sends nothing over a network; a
delivery try fails exactly when the policy scripts its channel as down at that tick.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

NotificationKey = tuple[str, int, int, str, str, str]


class NotificationState(Enum):
    PENDING = "PENDING"
    DELIVERED = "DELIVERED"
    DEAD = "DEAD"
    """Every allowed try failed."""


@dataclass(slots=True)
class Notification:
    key: NotificationKey
    created: int
    state: NotificationState = NotificationState.PENDING
    tries: int = 0
    next_try: int | None = None
    delivered_at: int | None = None

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
