"""Structured logs: one JSON line per state change, from the engine's events.

After every input it applies, the live service hands the engine's new events to its observers
(:attr:`cronlapse.service.live.LiveService.on_events`) before dropping them; :class:`EventLogger`
writes each as one line, to standard error or ``--log-file``. Only inputs applied while serving are
logged: a restart's replay of the journal is not (it happened, and was logged, before), but what
the restart does itself is (an attempt it retries, a slot it registers: ``server.start``).

A line has ``ts`` (the wall time it was written), ``level`` (``warning`` for a failure, a lost
attempt, a dead notification or a worker down; else ``info``), ``event`` (the names below),
``tick`` and ``time`` (the engine's tick and its UTC time), then the event's fields: ``job``,
``scheduled`` (the run's tick), ``attempt``, ``worker``...; a run's start adds ``lag``, the
seconds between its scheduled time and its start. Times are ISO 8601, as in the API: each field
holding a tick (``scheduled``, ``eligible_at``, ``next_try``...) has its time beside it, named
after it (``scheduled_time``), and a job's ``schedule`` is described with times, not ticks. A
time past the year 9999 (a run an interval took there) is null, its tick alongside: no date
names it. Runs are created lazily (a run that falls due is implicit until a worker takes it), so
the engine has no event for a run becoming scheduled: a job's ``job.created`` and
``job.modified`` lines carry its next run (``next_run``) instead.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from enum import Enum
from typing import TextIO

from cronlapse.service.views import iso, schedule_text
from engine.core import Engine
from engine.model import events as ev
from engine.schedules.kinds import Schedule

log = logging.getLogger("cronlapse.serve")

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
TICK_FIELDS = frozenset(
    {"scheduled", "eligible_at", "next_try", "after", "through", "first", "last"}
)
"""The events' fields (besides ``tick``) that hold a tick, each written with its time beside it;
their other whole numbers are counts, and durations in seconds (``delay``, ``deadline``)."""


@dataclass(frozen=True, slots=True)
class JobNow:
    """What a ``job.created`` or ``job.modified`` line says of its job beyond the event: read
    when the event is handed over, since only the engine knows it, and only then."""

    next_due: int | None
    """The job's next run (None if it has none)."""
    schedule: Schedule


def log_record(event: ev.Event, job: JobNow | None = None) -> dict[str, object]:
    """The event as a log line's fields (without ``ts``); ``job``, read when a job was created
    or modified, gives those lines its next run and, for a creation, its schedule in times."""
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
    for name in TICK_FIELDS & record.keys():
        record[f"{name}_time"] = iso(record[name])  # type: ignore[arg-type]
    if kind is ev.AttemptStarted:
        record["lag"] = event.tick - record["scheduled"]  # type: ignore[operator]
    if job is not None:
        record["next_run"] = None if job.next_due is None else iso(job.next_due)
        if kind is ev.JobScheduled:  # the engine's description gives a tick, where it has one
            record["schedule"] = schedule_text(job.schedule)
    return record


def _plain(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list | frozenset):
        return [_plain(item) for item in value]
    return value


class EventLogger:
    """Writes each event as one JSON line to ``out``, on a thread of its own.

    The thread that applies inputs (the event loop's) only hands over the events, with the wall
    time and, for a job created or modified, its next run (which only the engine knows, and only
    now); formatting and writing, a tenth of a burst's time when done in line (issue 36), are
    the logger's thread's. Lines keep the events' order. :meth:`close` writes what is queued
    before the server exits."""

    def __init__(
        self, out: TextIO, engine: Callable[[], Engine], wall: Callable[[], float] = time.time
    ) -> None:
        self.out = out
        self.engine = engine
        self.wall = wall
        self.queue: queue.SimpleQueue[_Batch | threading.Event | None] = queue.SimpleQueue()
        self.writer = threading.Thread(target=self._write, name="structured logs", daemon=True)
        self.writer.start()

    def __call__(self, events: Iterable[ev.Event]) -> None:
        engine = self.engine()
        batch = [(event, _job_now(event, engine)) for event in events]
        if batch:
            self.queue.put(_Batch(self.wall(), batch))

    def flush(self) -> None:
        """Until every event given so far is written and flushed."""
        written = threading.Event()
        self.queue.put(written)
        written.wait()

    def close(self) -> None:
        """Write what is queued, then stop the logger's thread."""
        self.queue.put(None)
        self.writer.join()

    def _write(self) -> None:
        while (item := self.queue.get()) is not None:
            if isinstance(item, threading.Event):
                item.set()
                continue
            stamp = datetime.fromtimestamp(item.wall, UTC).isoformat(timespec="milliseconds")
            stamp = stamp.replace("+00:00", "Z")
            try:
                for event, job in item.events:
                    line = {"ts": stamp, **log_record(event, job)}
                    self.out.write(json.dumps(line, ensure_ascii=False) + "\n")
                self.out.flush()
            except (OSError, ValueError) as error:  # a full disk, a closed file: say so, go on
                log.warning("cannot write the structured logs: %s", error)


@dataclass(frozen=True, slots=True)
class _Batch:
    """One input's events, with what a line needs from the moment they were applied."""

    wall: float
    events: list[tuple[ev.Event, JobNow | None]]


def _job_now(event: ev.Event, engine: Engine) -> JobNow | None:
    """A created or modified job's next run and schedule, read now; None for the other events,
    whose lines have neither."""
    if type(event) not in (ev.JobScheduled, ev.JobModified):
        return None
    job = engine.query.job(event.job_id)  # type: ignore[attr-defined]
    return None if job is None else JobNow(job.next_due, job.spec.schedule)
