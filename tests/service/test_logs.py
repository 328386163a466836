"""Structured logs: one JSON line per state change, from the engine's events after each applied
input; a restart's replay is not logged again."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cronlapse.service.codec import DELIVERY
from cronlapse.service.delivery.attach import delivery_input
from cronlapse.service.delivery.notice import due_notices
from cronlapse.service.events_log import NAMES, EventLogger
from cronlapse.service.live import LiveService
from cronlapse.service.store.memory import MemoryStore
from engine.model import events as ev
from engine.model.records import OccurrenceState
from tests.service.test_live import Wall, complete_running, open_live
from tests.waiting import wait_until

NOTIFY = [{"on": ["retries_exhausted"], "channel": "email", "to": "ops@example.com"}]


def attach(live: LiveService) -> io.StringIO:
    out = io.StringIO()
    live.on_events.append(EventLogger(out, lambda: live.engine, wall=lambda: 1_700_000_000.0))
    return out


def lines(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


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
        "schedule": "once at 1000010",
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


def test_a_restart_does_not_log_the_replayed_history() -> None:
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "a", "every": 60})
    assert live.engine.query.record_keys(OccurrenceState.RUNNING)
    again = open_live(store, wall, workers=1)
    out = attach(again)
    assert out.getvalue() == ""
    complete_running(again)
    assert [line["event"] for line in lines(out)] == ["run.succeeded"]


@pytest.mark.e2e
def test_the_server_writes_them_to_stderr_or_its_log_file(make_server, tmp_path: Path) -> None:
    server = make_server()
    with server.client() as client:
        assert client.post("/job", json={"id": "now"}).status_code == 201
    logged = server.directory / "structured.log"
    other = make_server(options=("--log-file", str(logged)))
    with other.client() as client:
        assert client.post("/job", json={"id": "now"}).status_code == 201
        assert client.put("/job/now", json={"priority": "high"}).status_code in (204, 409)
    logs = lambda: (server.output(), logged.read_text())  # noqa: E731
    succeeded = lambda: all("run.succeeded" in log for log in logs())  # noqa: E731
    wait_until(succeeded, "a run to succeed on each server", context=server.output)
    from_stderr = [json.loads(line) for line in server.output().splitlines() if line[:1] == "{"]
    assert [line["event"] for line in from_stderr][:2] == ["job.created", "run.started"]
    from_file = [json.loads(line) for line in logged.read_text().splitlines()]
    assert {"job.created", "run.started", "run.succeeded"} <= {line["event"] for line in from_file}
    assert not any(line[:1] == "{" for line in other.output().splitlines())


@pytest.mark.e2e
def test_the_servers_own_messages_go_to_stderr_and_nothing_to_stdout(make_server) -> None:
    """ "listening on" and how to authenticate are diagnostics, on standard error as every
    cronlapse command writes them (and as the logs are); they were on standard output, where
    a supervisor or a pipe took them for the command's output."""
    server = make_server()
    messages = server.output()
    assert f"cronlapse serve: listening on {server.url} (journal " in messages
    assert "cronlapse serve: authenticate with the token in $CRONLAPSE_TOKEN" in messages
    assert server.stop() == 0
    assert server.stdout() == ""
