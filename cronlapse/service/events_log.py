"""Structured logs: one JSON line per state change, from the engine's events.

After every input it applies, the live service hands the engine's new events to its observers
(:attr:`cronlapse.service.live.LiveService.on_events`) before dropping them; :class:`EventLogger`
writes each as one line, to standard error or ``--log-file``. Only inputs applied while serving are
logged: a restart's replay of the journal is not (it happened, and was logged, before).

A line has ``ts`` (the wall time it was written), ``level`` (``warning`` for a failure, a lost
attempt, a dead notification or a worker down; else ``info``), ``event`` (the names below),
``tick`` and ``time`` (the engine's tick and its UTC time), then the event's fields: ``job``,
``scheduled`` (the run's tick) with ``scheduled_time``, ``attempt``, ``worker``...; a run's
start adds ``lag``, the seconds between its scheduled time and its start. A time past the
year 9999 (a run an interval took there) is null, its tick alongside: no date names it. Runs
are created lazily (a run that falls due is implicit until a worker takes it), so the engine has
no event for a run becoming scheduled: a job's ``job.created`` and ``job.modified`` lines carry
its next run (``next_run``) instead.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import fields
from datetime import UTC, datetime
from enum import Enum
from typing import TextIO

from cronlapse.service.views import iso
from engine.core import Engine
from engine.model import events as ev

NAMES: dict[type[ev.Event], str] = {
    ev.JobScheduled: "job.created",
    ev.JobModified: "job.modified",
    ev.JobDeleted: "job.deleted",
    ev.JobPaused: "job.paused",
    ev.JobResumed: "job.resumed",
    ev.OccurrenceBlocked: "run.blocked",
    ev.OccurrenceUnblocked: "run.unblocked",
    ev.AttemptStarted: "run.started",
    ev.AttemptSucceeded: "run.succeeded",
    ev.AttemptFailed: "run.attempt_failed",
    ev.AttemptTimedOut: "run.timed_out",
    ev.AttemptLost: "run.lost",
    ev.RetryScheduled: "run.retried",
    ev.OccurrenceFailed: "run.failed",
    ev.OccurrenceCancelled: "run.cancelled",
    ev.OccurrencesSkipped: "runs.skipped",
    ev.OccurrenceSkipped: "run.skipped",
    ev.OccurrenceHeld: "run.held",
    ev.OccurrenceReleased: "run.released",
    ev.AttemptTerminated: "run.terminated",
    ev.TooManyMissedRuns: "runs.too_many_missed",
    ev.DeadlineMissed: "run.deadline_missed",
    ev.BacklogCancelled: "runs.cancelled",
    ev.BackfillStarted: "backfill.started",
    ev.RunBackfilled: "run.backfilled",
    ev.BackfillRunExists: "run.backfill_found",
    ev.BackfillFinished: "backfill.finished",
    ev.RunExpired: "run.expired",
    ev.NotificationQueued: "notification.queued",
    ev.NotificationDelivered: "notification.delivered",
    ev.NotificationRetried: "notification.retried",
    ev.NotificationDeadLettered: "notification.dead",
    ev.WorkerRegistered: "worker.registered",
    ev.WorkerWentDown: "worker.down",
    ev.WorkerCameUp: "worker.up",
    ev.WorkerDrainStarted: "worker.draining",
}
"""Every engine event's name in the logs (``tests/service/test_logs.py`` checks none is
missing)."""
WARNINGS = frozenset(
    {
        ev.AttemptFailed,
        ev.AttemptTimedOut,
        ev.AttemptLost,
        ev.OccurrenceFailed,
        ev.NotificationDeadLettered,
        ev.WorkerWentDown,
        ev.TooManyMissedRuns,
        ev.DeadlineMissed,
    }
)
_RENAMED = {"job_id": "job", "worker_id": "worker"}
_NOTIFICATION_KEY = ("job", "scheduled", "attempt", "on", "channel", "to")


def log_record(event: ev.Event, engine: Engine | None = None) -> dict[str, object]:
    """The event as a log line's fields (without ``ts``); ``engine``, when given, adds a job's
    next run to its creation and modification."""
    kind = type(event)
    record: dict[str, object] = {
        "level": "warning" if kind in WARNINGS else "info",
        "event": NAMES[kind],
        "tick": event.tick,
        "time": iso(event.tick),
    }
    for item in fields(event):
        if item.name == "tick":
            continue
        value = getattr(event, item.name)
        if item.name == "key":
            record.update(zip(_NOTIFICATION_KEY, value, strict=True))
        else:
            record[_RENAMED.get(item.name, item.name)] = _plain(value)
    if "scheduled" in record:
        record["scheduled_time"] = iso(int(record["scheduled"]))  # type: ignore[call-overload]
    if kind is ev.AttemptStarted:
        record["lag"] = event.tick - record["scheduled"]  # type: ignore[operator]
    if engine is not None and kind in (ev.JobScheduled, ev.JobModified):
        job = engine.query.job(str(record["job"]))
        due = None if job is None else job.next_due
        record["next_run"] = None if due is None else iso(due)
    return record


def _plain(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list | frozenset):
        return [_plain(item) for item in value]
    return value


class EventLogger:
    """Writes each event as one JSON line to ``out``, flushed after each input's events."""

    def __init__(
        self, out: TextIO, engine: Callable[[], Engine], wall: Callable[[], float] = time.time
    ) -> None:
        self.out = out
        self.engine = engine
        self.wall = wall

    def __call__(self, events: Iterable[ev.Event]) -> None:
        engine = self.engine()
        written = False
        for event in events:
            stamp = datetime.fromtimestamp(self.wall(), UTC).isoformat(timespec="milliseconds")
            line = {"ts": stamp.replace("+00:00", "Z"), **log_record(event, engine)}
            self.out.write(json.dumps(line, ensure_ascii=False) + "\n")
            written = True
        if written:
            self.out.flush()
