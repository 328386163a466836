"""The outbox claim: whichever live process holds it delivers the notifications, once each.

An API process takes the claim first and is SIGKILLed while its webhook try is held open by the
receiver (loopback); the scheduler takes the claim over and tries the notification again under
the same idempotency key; once its delivery is journaled, a new holder of the claim sends
nothing again.
"""

from __future__ import annotations

import time

import pytest

from cronlapse.service.store import open_store
from tests.service.conftest import FROZEN, TOKEN, Server, WebhookReceiver
from tests.service.role_processes import Processes
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e

HOOK = [{"on": ["failed"], "channel": "webhook", "to": "ops"}]
HOLDS = "holds the outbox claim"


def _config(webhooks: WebhookReceiver) -> str:
    return (
        "workers: 1\nexecutors:\n  bad: {argv: [/bin/false]}\n"
        f"channels:\n  ops: {{webhook: {{url: '{webhooks.url('/hook')}'}}}}\n"
    )


def _api(group: Processes, name: str) -> Server:
    directory = group.directory / name
    directory.mkdir()
    server = Server(directory, group.config, FROZEN, TOKEN, group.url, ("--role", "api"))
    group.made.append(server)
    return server


def _deliveries(url: str) -> list[dict]:
    store = open_store(url)
    try:
        return [row.args for row in store.journal.rows_after(0) if row.verb == "delivery"]
    finally:
        store.close()


def test_the_claims_holder_delivers_and_a_successor_takes_over_without_repeats(
    processes, webhooks: WebhookReceiver
) -> None:
    group: Processes = processes(_config(webhooks))
    holder = _api(group, "holder")
    holder.start()
    wait_until(lambda: HOLDS in holder.output(), "the first API process took the claim")
    scheduler = group.scheduler("scheduler")
    scheduler.start()
    group.worker("worker").wait_ready()
    webhooks.gate.clear()
    with holder.client() as client:
        body = {"id": "bad", "run": "bad", "notify": HOOK}
        assert client.post("/job", json=body).status_code == 201
    wait_until(lambda: webhooks.arrived == 1, "the holder tried the notification")
    assert HOLDS not in scheduler.output()
    holder.kill()
    wait_until(lambda: HOLDS in scheduler.output(), "the scheduler took the claim over")
    wait_until(lambda: webhooks.arrived == 2, "the successor tried the notification again")
    webhooks.gate.set()
    wait_until(lambda: any(d["ok"] for d in _deliveries(group.url)), "the delivery was journaled")
    keys = {request.key for request in webhooks.requests("/hook")}
    assert len(keys) == 1 and None not in keys, "both tries carry the notification's key"

    successor = _api(group, "successor")
    successor.start()
    scheduler.kill()
    wait_until(lambda: HOLDS in successor.output(), "a new API process took the claim")
    time.sleep(1.5)  # the scenario: a few of its rounds, in which it finds nothing due
    assert webhooks.arrived == 2, "a delivery that was journaled is never sent again"
    assert [d["ok"] for d in _deliveries(group.url)] == [True]
