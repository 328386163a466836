"""Events in words: for each event type, a short word, a colour and a detail, and the subject
an event is about.

The vocabulary is keyed by the event's type, not its class name: renaming an event type in the
engine breaks this module's import instead of silently leaving the event without a word or a
colour, and a test checks that every event type has an entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.style import Style

from engine.model import events as ev
from engine.model.records import AttemptOutcome, CancelReason, OccurrenceState, WorkerState
from engine.parts.notifications import NotificationState
from engine.schedules.clock import Clock
from tui.model.timefmt import run_label
from tui.states import JOB_CHANGED, JOB_STATUS, PLAIN, style_of

S = OccurrenceState


@dataclass(frozen=True, slots=True)
class Wording:
    """How the dashboard shows one event type."""

    word: str
    """For the event log's narrow column and the detail pane's title."""
    style: Style
    """Mostly the colour of the state the event leads to, so a state reads the same everywhere."""
    detail: Callable[[Any], str]
    """What is worth a glance beyond the subject."""


def _attempt(event: Any) -> str:
    return f"#{event.attempt} on {event.worker_id}"


def _notification(key: tuple) -> str:
    _, _, attempt, happening, channel, target = key
    return f"{happening} #{attempt} via {channel} to {target}"


def _cancelled(event: ev.OccurrenceCancelled) -> str:
    if event.reason is CancelReason.REPLACED:
        return f"replaced by a newer run ({event.cause})"
    if event.cause:
        return f"{event.reason.value}: {event.cause} failed first"
    return event.reason.value


def _failed(event: ev.OccurrenceFailed) -> str:
    return f"after {event.attempts} attempt{'s' if event.attempts != 1 else ''}"


VOCABULARY: dict[type[ev.Event], Wording] = {
    ev.WorkerRegistered: Wording(
        "registered", style_of(WorkerState.IDLE), lambda e: "joined the pool, idle"
    ),
    ev.JobScheduled: Wording("scheduled", style_of(S.SCHEDULED), lambda e: e.schedule),
    ev.OccurrenceBlocked: Wording(
        "blocked", style_of(S.BLOCKED), lambda e: "fell due before its dependencies succeeded"
    ),
    ev.OccurrenceUnblocked: Wording(
        "unblocked", style_of(S.QUEUED), lambda e: "its dependencies succeeded: may run"
    ),
    ev.AttemptStarted: Wording("started", style_of(S.RUNNING), _attempt),
    ev.AttemptSucceeded: Wording("succeeded", style_of(S.SUCCEEDED), _attempt),
    ev.AttemptFailed: Wording("attempt failed", style_of(S.FAILED), _attempt),
    ev.RetryScheduled: Wording(
        "retry",
        style_of(S.RETRY_PENDING),
        lambda e: f"#{e.next_attempt} eligible at {e.eligible_at} (backoff {e.delay})",
    ),
    ev.OccurrenceFailed: Wording("failed", style_of(S.FAILED), _failed),
    ev.OccurrenceCancelled: Wording("cancelled", style_of(S.CANCELLED), _cancelled),
    ev.AttemptTimedOut: Wording("timed out", style_of(AttemptOutcome.TIMED_OUT), _attempt),
    ev.AttemptLost: Wording("lost", style_of(AttemptOutcome.LOST), _attempt),
    ev.AttemptTerminated: Wording(
        "terminated", style_of(AttemptOutcome.TERMINATED), lambda e: f"{_attempt(e)}, replaced"
    ),
    ev.OccurrenceSkipped: Wording(
        "skipped", style_of(S.CANCELLED), lambda e: f"because of {e.because}"
    ),
    ev.OccurrenceHeld: Wording(
        "held", style_of(S.SCHEDULED), lambda e: f"{e.policy}: waits for a slot of max_active"
    ),
    ev.OccurrenceReleased: Wording(
        "released", style_of(S.QUEUED), lambda e: "took a free slot: waits for a worker"
    ),
    ev.TooManyMissedRuns: Wording(
        "too many missed",
        style_of(S.CANCELLED),
        lambda e: f"{e.missed} missed runs, over {e.limit}: only the latest may run",
    ),
    ev.DeadlineMissed: Wording(
        "deadline missed",
        style_of(AttemptOutcome.TIMED_OUT),
        lambda e: f"not finished {e.deadline} after its time",
    ),
    ev.OccurrencesSkipped: Wording(
        "skipped", style_of(S.CANCELLED), lambda e: f"runs in ({e.after}, {e.through}] skipped"
    ),
    ev.BackfillStarted: Wording(
        "backfill",
        JOB_CHANGED,
        lambda e: f"{e.order}: {e.runs} runs for [{e.first}, {e.last}] to create",
    ),
    ev.RunBackfilled: Wording(
        "backfilled", style_of(S.QUEUED), lambda e: "created by a backfill for its logical time"
    ),
    ev.BackfillRunExists: Wording(
        "exists", style_of(S.SCHEDULED), lambda e: "the backfill found it: not created twice"
    ),
    ev.BackfillFinished: Wording("backfill done", JOB_CHANGED, lambda e: "every run created"),
    ev.RunExpired: Wording(
        "expired",
        style_of(S.CANCELLED),
        lambda e: f"not started {e.start_deadline} after its time: never runs",
    ),
    ev.BacklogCancelled: Wording(
        "backlog cancelled",
        style_of(S.CANCELLED),
        lambda e: f"waiting runs in [{e.first}, {e.last}] cancelled",
    ),
    ev.JobModified: Wording(
        "modified", JOB_CHANGED, lambda e: ", ".join(e.fields) or "nothing changed"
    ),
    ev.JobDeleted: Wording(
        "deleted", JOB_STATUS["deleted"], lambda e: "no more runs; its history stays"
    ),
    ev.JobPaused: Wording("paused", JOB_STATUS["paused"], lambda e: "no runs until resumed"),
    ev.JobResumed: Wording(
        "resumed", JOB_STATUS["active"], lambda e: f"catch-up {e.catch_up.value}"
    ),
    ev.WorkerWentDown: Wording(
        "worker down", style_of(WorkerState.DOWN), lambda e: "takes no work until up"
    ),
    ev.WorkerCameUp: Wording("worker up", style_of(WorkerState.IDLE), lambda e: "takes work"),
    ev.WorkerDrainStarted: Wording(
        "draining",
        style_of(WorkerState.DRAINING),
        lambda e: "takes no new work; down when its attempt ends",
    ),
    ev.NotificationQueued: Wording(
        "notify queued", style_of(NotificationState.PENDING), lambda e: _notification(e.key)
    ),
    ev.NotificationDelivered: Wording(
        "notified",
        style_of(NotificationState.DELIVERED),
        lambda e: f"{_notification(e.key)}, try {e.tries}",
    ),
    ev.NotificationRetried: Wording(
        "notify retry",
        style_of(S.RETRY_PENDING),
        lambda e: f"{_notification(e.key)}, try {e.tries} failed, next at {e.next_try}",
    ),
    ev.NotificationDeadLettered: Wording(
        "notify dead",
        style_of(NotificationState.DEAD),
        lambda e: f"{_notification(e.key)}, gave up after {e.tries} tries",
    ),
}


def _wording(event: ev.Event) -> Wording:
    """An event type the dashboard does not know yet (the engine's newer than it) still shows,
    under its class name."""
    wording = VOCABULARY.get(type(event))
    if wording is None:
        return Wording(type(event).__name__, PLAIN, lambda e: "")
    return wording


def event_word(event: ev.Event) -> str:
    return _wording(event).word


def event_style(event: ev.Event) -> Style:
    return _wording(event).style


def detail(event: ev.Event) -> str:
    return _wording(event).detail(event)


def subject(event: ev.Event, clock: Clock | None = None) -> str:
    """What the event is about: ``job@scheduled``, a job, a worker or a notification's job."""
    if isinstance(event, ev.OccurrenceEvent):
        return run_label(event.job_id, event.scheduled, clock)
    if isinstance(event, ev.NotificationEvent):
        return run_label(event.key[0], event.key[1], clock)
    for name in ("job_id", "worker_id"):
        value = getattr(event, name, None)
        if value is not None:
            return str(value)
    return ""
