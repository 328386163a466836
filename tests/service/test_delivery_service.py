"""Issue 14's exactly-once claim, end to end: a real server, a webhook receiver and an SMTP
server on loopback; jobs whose runs succeed, fail and exhaust their retries; a SIGKILL while
deliveries are in flight and a restart. Each (run, event, attempt, subscription) then has exactly
one idempotency key, none is missing, and a delivery seen twice carries the same key."""

from __future__ import annotations

from collections import defaultdict

import httpx
import pytest

from cronlapse.service.delivery.notice import idempotency_key
from cronlapse.service.store import NOTIFICATION_POLICY
from tests.service.conftest import MailReceiver, Server, WebhookReceiver
from tests.waiting import PATIENCE, wait_until

pytestmark = pytest.mark.e2e

SPEED = "20"
"""Ticks per second: a backoff of a few ticks passes in a fraction of a second."""
RETRIES_SECONDS = sum(
    min(NOTIFICATION_POLICY.backoff.base * 2**tries, NOTIFICATION_POLICY.backoff.cap)
    for tries in range(NOTIFICATION_POLICY.max_tries)
) / int(SPEED)
"""Seconds of the scenario's own time a notification may wait between its tries, at most: a
wait for every delivery allows for them on top of the suite's patience."""
EVENTS = ["succeeded", "failed", "retries_exhausted"]
OK_JOBS = [f"ok-{number}" for number in range(4)]
BAD_JOBS = [f"bad-{number}" for number in range(2)]


def config(webhooks: WebhookReceiver, mailbox: MailReceiver) -> str:
    return f"""\
workers: 2
misfire_grace: 1000000
executors:
  ok: {{argv: [/bin/true]}}
  bad: {{argv: [/bin/false]}}
channels:
  hook: {{webhook: {{url: '{webhooks.url("/hook")}'}}}}
  chat: {{slack: {{url: '{webhooks.url("/slack")}'}}}}
  mail:
    email: {{host: 127.0.0.1, port: {mailbox.port}, from: cron@example.com, to: [ops@example.com]}}
"""


SUBSCRIPTIONS = [
    {"on": EVENTS, "channel": "webhook", "to": "hook"},
    {"on": EVENTS, "channel": "slack", "to": "chat"},
    {"on": EVENTS, "channel": "email", "to": "mail"},
]


def post_jobs(client: httpx.Client) -> None:
    for job_id in OK_JOBS:
        body = {"id": job_id, "run": "ok", "notify": SUBSCRIPTIONS}
        assert client.post("/job", json=body).status_code == 201
    for job_id in BAD_JOBS:
        body = {"id": job_id, "run": "bad", "max_retries": 1, "notify": SUBSCRIPTIONS}
        assert client.post("/job", json=body).status_code == 201


def expected_keys(client: httpx.Client) -> dict[str, set[str]]:
    """Every notification the runs call for, by channel, read from the runs' attempts: an
    attempt that succeeded or failed says so, and the run's last failed attempt also exhausts
    its retries (bad jobs fail twice). A restart that found an attempt running records it lost
    and retries it under the next number, which tells nobody: lost attempts call for nothing."""
    keys: dict[str, set[str]] = defaultdict(set)
    for job_id in OK_JOBS + BAD_JOBS:
        (run,) = client.get(f"/job/{job_id}/runs").json()["runs"]
        ended = [a for a in run["attempts"] if a["outcome"] in ("succeeded", "failed")]
        happenings = [(a["attempt"], a["outcome"]) for a in ended]
        if run["status"] == "failed":
            happenings.append((ended[-1]["attempt"], "retries_exhausted"))
        for attempt, event in happenings:
            for channel, to in (("webhook", "hook"), ("slack", "chat"), ("email", "mail")):
                keys[channel].add(
                    idempotency_key((job_id, run["tick"], attempt, event, channel, to))
                )
    return keys


def runs_over(client: httpx.Client) -> bool:
    """Whether every job's one run has ended (its notifications are then all called for)."""
    return all(
        run["status"] in ("succeeded", "failed")
        for job_id in OK_JOBS + BAD_JOBS
        for run in client.get(f"/job/{job_id}/runs").json()["runs"]
    )


def delivered_keys(webhooks: WebhookReceiver, mailbox: MailReceiver) -> dict[str, set[str]]:
    """The keys each receiver took (answered 2xx, or accepted by the mail server)."""
    return {
        "webhook": {r.key for r in webhooks.requests("/hook") if r.status == 200},  # type: ignore[misc]
        "slack": {r.key for r in webhooks.requests("/slack") if r.status == 200},  # type: ignore[misc]
        "email": {message_key(m["Message-ID"]) for m in list(mailbox.messages)},
    }


def message_key(message_id: str) -> str:
    return message_id.strip("<>").partition("@")[0]


def test_sigkill_mid_delivery_then_restart_delivers_each_notification_under_one_key(
    make_server, webhooks: WebhookReceiver, mailbox: MailReceiver
) -> None:
    # Slack answers 500 to the first try of each key (so every Slack notification is retried);
    # the webhook receiver and the mail server hold what arrives until the server is killed,
    # then take it: the receivers have it, the dead server never heard.
    firsts: set[str] = set()

    def slack_fails_first(request) -> int:
        if request.path == "/slack" and request.key not in firsts:
            firsts.add(request.key)
            return 500
        return 200

    webhooks.status = slack_fails_first
    webhooks.gate.clear()
    mailbox.gate.clear()
    server: Server = make_server(config=config(webhooks, mailbox), speed=SPEED)
    with server.client() as client:
        post_jobs(client)
    wait_until(lambda: webhooks.arrived >= 8 and mailbox.waiting.is_set(), "deliveries in flight")
    held = webhooks.arrived - len(webhooks.requests())
    assert held > 0 and not mailbox.messages, "the kill happens mid-delivery"
    server.kill()
    webhooks.gate.set()
    mailbox.gate.set()
    wait_until(lambda: len(webhooks.requests()) >= held, "the held requests answered")

    server.start()
    with server.client() as client:
        wait_until(
            lambda: runs_over(client),
            "every run over",
            timeout=PATIENCE + RETRIES_SECONDS,
        )
        expected = expected_keys(client)
    assert sum(len(keys) for keys in expected.values()) == 3 * (len(OK_JOBS) + 3 * len(BAD_JOBS))

    def missing_and_extra() -> str:
        delivered = delivered_keys(webhooks, mailbox)
        return "\n".join(
            f"{channel}: missing {sorted(expected[channel] - delivered.get(channel, set()))}, "
            f"extra {sorted(delivered.get(channel, set()) - expected[channel])}"
            for channel in expected
        )

    wait_until(
        lambda: delivered_keys(webhooks, mailbox) == expected,
        "every notification delivered",
        timeout=PATIENCE + RETRIES_SECONDS,
        context=missing_and_extra,
    )

    # One key per (run, event, attempt, subscription); a repeat carries the same key and says
    # the same thing.
    by_content: dict[tuple, set[str]] = defaultdict(set)
    said: dict[str, set[str]] = defaultdict(set)
    for request in webhooks.requests("/hook"):
        body = request.body
        by_content[(body["job"], body["run"], body["event"], body["attempt"])].add(request.key)  # type: ignore[arg-type]
        said[request.key].add(repr(sorted(body.items())))  # type: ignore[index]
    for request in webhooks.requests("/slack"):
        said[request.key].add(request.body["text"])  # type: ignore[index]
    for message in mailbox.messages:
        said[message_key(message["Message-ID"])].add(message.get_content())
    assert len(by_content) == len(expected["webhook"])
    assert all(len(keys) == 1 for keys in by_content.values())
    assert all(len(texts) == 1 for texts in said.values()), "a repeat says the same"

    slack = webhooks.requests("/slack")
    assert {r.key for r in slack if r.status == 500} == expected["slack"], "every first try failed"
    repeated = len(webhooks.requests("/hook")) - len(expected["webhook"])
    repeated += len(mailbox.messages) - len(expected["email"])
    assert repeated > 0, "what the killed server never heard of was delivered again"


def test_a_receiver_that_always_fails_gets_the_policys_tries_then_no_more(
    make_server, webhooks: WebhookReceiver, mailbox: MailReceiver
) -> None:
    webhooks.status = lambda _request: 500
    server: Server = make_server(config=config(webhooks, mailbox), speed="200")
    hook = {"on": ["succeeded"], "channel": "webhook", "to": "hook"}
    with server.client() as client:
        assert client.post("/job", json={"id": "once", "notify": [hook]}).status_code == 201
        tries = NOTIFICATION_POLICY.max_tries
        wait_until(lambda: len(webhooks.requests()) >= tries, "every try")
        # A marker job runs after more than the longest backoff: by then a ninth try is due if
        # there were one.
        later = f"+{2 * (NOTIFICATION_POLICY.backoff.cap or 0)}"
        assert client.post("/job", json={"id": "marker", "at": later}).status_code == 201
        wait_until(lambda: client.get("/job/marker").json()["status"] == "succeeded", "the marker")
    assert len(webhooks.requests()) == tries, "DEAD after its tries"
    assert len({r.key for r in webhooks.requests()}) == 1
