"""Structured logs: one JSON line per state change, from the engine's events after each applied
input; a restart's replay is not logged again."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import threading

from cronlapse.service.codec import DELIVERY
from cronlapse.service.config import Config
from cronlapse.service.delivery.attach import delivery_input
from cronlapse.service.delivery.notice import due_notices
from cronlapse.service.events_log import NAMES, EventLogger
from cronlapse.service.live import LiveService
from cronlapse.service.server import start
from cronlapse.service.store.memory import MemoryStore
from engine.model import events as ev
from engine.model.records import CancelReason, CatchUp, OccurrenceState
from tests.service.test_live import Wall, complete_running, open_live

NOTIFY = [{"on": ["retries_exhausted"], "channel": "email", "to": "ops@example.com"}]


class Written(io.StringIO):
    """What a logger wrote, and the threads that wrote it."""

    def __init__(self) -> None:
        super().__init__()
        self.logger: EventLogger | None = None
        self.writers: set[threading.Thread] = set()

    def write(self, text: str) -> int:
        self.writers.add(threading.current_thread())
        return super().write(text)


def attach(live: LiveService) -> Written:
    out = Written()
    out.logger = EventLogger(out, lambda: live.engine, wall=lambda: 1_700_000_000.0)
    live.on_events.append(out.logger)
    return out


def lines(out: Written) -> list[dict]:
    """The lines written so far, once the logger has written every event it was given."""
    assert out.logger is not None
    out.logger.flush()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_lines_are_written_off_the_thread_that_applies_inputs() -> None:
    """Formatting and writing a line is the logger's thread's work, not the event loop's: the
    loop only hands it the events."""
    live = open_live(MemoryStore(), Wall(), workers=1)
    out = attach(live)
    live.submit("schedule", {"id": "etl", "at": "+10"})
    assert [line["event"] for line in lines(out)] == ["job.created"]
    assert out.writers and threading.current_thread() not in out.writers


def test_every_engine_event_has_a_name() -> None:
    abstract = {"Event", "OccurrenceEvent", "NotificationEvent"}
    kinds = {kind.__name__ for kind in ev.EVENT_KINDS} - abstract
    assert {kind.__name__ for kind in NAMES} == kinds
    assert len(set(NAMES.values())) == len(NAMES)


def test_one_line_per_state_change_with_its_fields() -> None:
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=1)
    out = attach(live)
    live.submit("schedule", {"id": "etl", "at": "+10", "max_retries": 1, "notify": NOTIFY})
    wall.now += 10
    live.advance_clock()
    complete_running(live, ok=False)
    wall.now += 30  # past the backoff (at most 5 s), within the time limit
    live.advance_clock()
    complete_running(live, ok=False)
    for notice in due_notices(live).values():  # the deliverer reports its try
        assert live.submit(DELIVERY, delivery_input(notice, True)).accepted
    names = [line["event"] for line in lines(out)]
    assert names == [
        "job.created",
        "run.started",
        "run.attempt_failed",
        "run.retried",
        "run.started",
        "run.attempt_failed",
        "run.failed",
        "notification.queued",
        "notification.delivered",
    ]
    created, started, failed = lines(out)[:3]
    assert created == {
        "ts": "2023-11-14T22:13:20.000Z",
        "level": "info",
        "event": "job.created",
        "tick": 1_000_000,
        "time": "1970-01-12T13:46:40Z",
        "job": "etl",
        "schedule": "once at 1970-01-12T13:46:50Z",
        "next_run": "1970-01-12T13:46:50Z",
    }
    assert started["scheduled"] == 1_000_010 and started["lag"] == 0
    assert started["worker"] == "w1" and started["attempt"] == 1
    assert started["scheduled_time"] == "1970-01-12T13:46:50Z"
    assert failed["level"] == "warning"
    dead = lines(out)[-1]
    assert (dead["channel"], dead["to"], dead["on"]) == (
        "email",
        "ops@example.com",
        "retries_exhausted",
    )


def test_a_restart_logs_what_it_does_but_not_the_replayed_history() -> None:
    """The server's start attaches the logger between the replay and its own first inputs: the
    attempt it retries (its executor died with the last server) has its ``run.started`` line
    (issue 36: only its ``run.succeeded`` was logged)."""
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "a", "every": 3600})
    assert live.engine.query.record_keys(OccurrenceState.RUNNING)
    written: list[Written] = []
    again = LiveService(store, live.clock, Config(workers=1))
    start(again, 1.0, observe=lambda service: written.append(attach(service)))
    (out,) = written
    events = [(line["event"], line.get("attempt")) for line in lines(out)]
    assert ("job.created", None) not in events, "the replayed history is not logged again"
    assert events[-1] == ("run.started", 2), "the retried attempt's start is"
    complete_running(again)
    assert [line["event"] for line in lines(out)][-1] == "run.succeeded"


COUNTS_AND_DURATIONS = frozenset(
    {"attempt", "attempts", "next_attempt", "tries", "runs", "missed", "limit"}
    | {"delay", "lag", "deadline", "start_deadline", "run_timeout"}
)
"""The whole numbers of a line that are not times: counts, and durations in seconds."""
A_TICK = 1_000_123
RAW_TICK = re.compile(r"\d{7}")
"""A tick of the test's (seven digits) inside text: no ISO time has seven digits in a row."""


def an_event(kind: type[ev.Event]) -> ev.Event:
    """An event of ``kind`` whose every whole number is a tick of the test's."""
    made = {
        "int": A_TICK,
        "int | None": A_TICK,
        "str": "x",
        "str | None": "x",
        "bool": True,
        "tuple[str, ...]": ("priority",),
        "CatchUp": CatchUp.SKIP,
        "CancelReason": CancelReason.USER,
        "tuple[str, int, int, str, str, str]": ("x", A_TICK, 1, "failed", "webhook", "hook"),
    }
    return kind(**{item.name: made[str(item.type)] for item in dataclasses.fields(kind)})


def test_every_tick_of_every_line_has_its_iso_time_beside_it() -> None:
    """A log line names a time as ISO 8601: a tick field has its time in ``FIELD_time``
    (``tick``'s in ``time``), and no text holds a tick (``job.created``'s schedule said
    ``once at 1000010``)."""
    live = open_live(MemoryStore(), Wall(), workers=1)
    live.submit("schedule", {"id": "x", "at": A_TICK})
    out = attach(live)
    live.on_events[-1]([an_event(kind) for kind in NAMES])
    for line in lines(out):
        for key, value in line.items():
            if isinstance(value, int) and not isinstance(value, bool):
                assert key in COUNTS_AND_DURATIONS or (
                    line["time" if key == "tick" else f"{key}_time"] == "1970-01-12T13:48:43Z"
                ), (key, line)
            if isinstance(value, str):
                assert not RAW_TICK.search(value), (key, line)
