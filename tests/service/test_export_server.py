"""THE test of the export: a real server runs a simulated hour (runs that succeed, fail, retry
and exhaust their retries, a job modified, a run cancelled, a job deleted), then a stretch of its
journal, exported, replays headless exactly as the service's own replay of the journal does."""

from __future__ import annotations

from pathlib import Path

import pytest
from export_helpers import scenario_events, service_events

from cronlapse.cli.main import main
from cronlapse.service.export import export_stretch
from cronlapse.service.store import open_store
from engine.model import events as ev
from tests.service.conftest import Received, Server, WebhookReceiver
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e

SPEED = 600
"""Ticks per wall second: an hour in 6 seconds."""
HOUR = 3600
CONFIG = """\
workers: 2
snapshot_every: 40
executors:
  ok: {argv: [/bin/true]}
  bad: {argv: [/bin/false]}
  flaky: {argv: [/bin/sh, -c, 'test "$CRONLAPSE_ATTEMPT" -gt 1']}
channels:
  ops: {webhook: {url: '%s'}}
"""
NOTIFY = [{"on": ["failed", "retries_exhausted"], "channel": "webhook", "to": "ops"}]


def _wait_ticks(client, ticks: int) -> None:
    """Until the server's clock has moved ``ticks`` on."""
    start = client.get("/health").json()["tick"]
    moved = lambda: client.get("/health").json()["tick"] >= start + ticks  # noqa: E731
    wait_until(moved, f"the server's clock to move {ticks} ticks on")


def _accepted(request) -> None:
    """Send until the answer is 204: a job's changes are refused (409) while it runs (the jobs
    changed run every 15 minutes, for a moment)."""
    statuses: list[int] = []

    def not_running() -> bool:
        statuses.append(request().status_code)
        return statuses[-1] != 409

    wait_until(not_running, "the job to stop running, to take the change")
    assert statuses[-1] == 204


def _hour(server: Server) -> None:
    with server.client() as client:
        jobs = [
            {"id": "ok", "every": 60, "run": "ok"},
            {"id": "bad", "every": 120, "run": "bad", "max_retries": 2, "notify": NOTIFY},
            {"id": "flaky", "every": 90, "run": "flaky", "max_retries": 2, "priority": "high"},
            {"id": "once", "at": "+600", "run": "flaky"},
            {"id": "amended", "every": 900, "run": "ok"},
            {"id": "skipped", "every": 900, "first": "+450", "run": "flaky", "max_retries": 1},
            {"id": "doomed", "every": 900, "run": "bad", "notify": NOTIFY},
        ]
        for job in jobs:
            assert client.post("/job", json=job).status_code == 201
        _wait_ticks(client, 900)
        _accepted(lambda: client.put("/job/amended", json={"every": 450, "priority": "high"}))
        _wait_ticks(client, 600)
        _accepted(lambda: client.put("/job/skipped", json={"cancel_next": True}))
        _wait_ticks(client, 600)
        _accepted(lambda: client.delete("/job/doomed"))
        late = {"id": "late", "every": 300, "run": "ok"}
        assert client.post("/job", json=late).status_code == 201
        _wait_ticks(client, HOUR - 2100)


def test_an_exported_hour_replays_the_services_events_exactly(
    make_server, webhooks: WebhookReceiver, tmp_path: Path
) -> None:
    tried: set[str | None] = set()

    def first_try_fails(request: Received) -> int:
        """Each notification's first try is refused: its retry and its delivery are journaled."""
        first = request.key not in tried
        tried.add(request.key)
        return 500 if first else 200

    webhooks.status = first_try_fails
    server = make_server(config=CONFIG % webhooks.url("/hook"), speed=str(SPEED))
    _hour(server)
    server.stop()
    url = f"sqlite:///{server.db}"
    store = open_store(url)
    rows = list(store.journal.rows_after(0))
    assert rows[-1].tick - rows[0].tick >= HOUR
    target = tmp_path / "hour.yaml"
    assert main(["export", "--scenario", "--db", url, "-o", str(target)]) == 0
    assert main(["check", str(target)]) == 0

    text = target.read_text()
    start = rows[0].tick - 1
    expected = service_events(store, start, rows[-1].tick)
    events, runner = scenario_events(text, start)
    assert runner.failures == [] and runner.rejections == []
    assert events == expected
    kinds = {type(event) for event in events}
    assert {ev.AttemptSucceeded, ev.AttemptFailed, ev.RetryScheduled, ev.OccurrenceFailed} <= kinds
    assert {ev.JobModified, ev.OccurrenceCancelled, ev.JobDeleted} <= kinds
    assert {ev.NotificationQueued, ev.NotificationRetried, ev.NotificationDelivered} <= kinds

    # The second half hour alone, from the last quiet moment before it.
    stretch = export_stretch(url, str(rows[0].tick + HOUR // 2), None)
    assert stretch.start > rows[0].tick
    expected = service_events(store, stretch.start, stretch.end)
    events, runner = scenario_events(stretch.text, stretch.start)
    assert runner.failures == [] and runner.rejections == []
    assert events == expected and len(events) > 50
    store.close()
