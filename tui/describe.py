"""Events in words: the subject an event is about and the detail worth a glance."""

from __future__ import annotations

from engine import events as ev


def subject(event: ev.Event) -> str:
    """What the event is about: ``job@scheduled``, a job, a worker or a notification's job."""
    if isinstance(event, ev.OccurrenceEvent):
        return f"{event.job_id}@{event.scheduled}"
    if isinstance(event, ev.NotificationEvent):
        return f"{event.key[0]}@{event.key[1]}"
    for name in ("job_id", "worker_id"):
        value = getattr(event, name, None)
        if value is not None:
            return str(value)
    return ""


def detail(event: ev.Event) -> str:
    match event:
        case ev.AttemptStarted() | ev.AttemptSucceeded() | ev.AttemptFailed():
            return f"#{event.attempt} on {event.worker_id}"
        case ev.AttemptTimedOut() | ev.AttemptLost():
            return f"#{event.attempt} on {event.worker_id}"
        case ev.RetryScheduled():
            return f"#{event.next_attempt} eligible at {event.eligible_at} (backoff {event.delay})"
        case ev.OccurrenceFailed():
            return f"after {event.attempts} attempt{'s' if event.attempts != 1 else ''}"
        case ev.OccurrenceCancelled():
            if event.cause:
                return f"{event.reason.value}: {event.cause} failed first"
            return event.reason.value
        case ev.JobScheduled():
            return event.schedule
        case ev.JobModified():
            return ", ".join(event.fields)
        case ev.JobResumed():
            return f"catch-up {event.catch_up}"
        case ev.OccurrencesSkipped():
            return f"runs in ({event.after}, {event.through}] skipped"
        case ev.NotificationQueued():
            return _notification(event.key)
        case ev.NotificationDelivered():
            return f"{_notification(event.key)}, try {event.tries}"
        case ev.NotificationRetried():
            return f"{_notification(event.key)}, try {event.tries} failed, next at {event.next_try}"
        case ev.NotificationDead():
            return f"{_notification(event.key)}, gave up after {event.tries} tries"
    return ""


def _notification(key: tuple) -> str:
    _, _, attempt, happening, channel, target = key
    return f"{happening} #{attempt} via {channel} to {target}"
