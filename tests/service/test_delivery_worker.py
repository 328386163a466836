"""Delivery tries against real receivers on loopback: a webhook server and an SMTP server.

Each test drives :class:`Deliveries` on an event loop of its own and records the reports it
makes (the server journals them as ``delivery`` inputs)."""

from __future__ import annotations

import asyncio

import pytest

from cronlapse.service.delivery.channels import EmailChannel, SlackChannel, WebhookChannel
from cronlapse.service.delivery.notice import Notice, idempotency_key
from cronlapse.service.delivery.slack import slack_text
from cronlapse.service.delivery.worker import Deliveries
from tests.service.conftest import MailReceiver, WebhookReceiver, free_port
from tests.waiting import PATIENCE, until

pytestmark = pytest.mark.integration

RUN = 1_796_115_600
"""2026-12-01T09:00:00Z"""


def notice(channel, job: str = "backup", event: str = "succeeded", attempt: int = 1) -> Notice:
    name = "nowhere" if channel is None else channel.name
    kind = "webhook" if channel is None else channel.kind.value
    return Notice((job, RUN, attempt, event, kind, name), channel, RUN + 3, 1)


class Recorder:
    def __init__(self) -> None:
        self.reports: list[tuple[tuple, bool]] = []
        self.changed = asyncio.Event()

    def __call__(self, notice: Notice, delivered: bool) -> None:
        self.reports.append((notice.key, delivered))
        self.changed.set()

    async def until(self, count: int) -> None:
        """Until ``count`` reports came; a guard turns a hang into a failure."""
        async with asyncio.timeout(PATIENCE):
            while len(self.reports) < count:
                self.changed.clear()
                await self.changed.wait()


def deliver(notices: list[Notice]) -> list[tuple[tuple, bool]]:
    """Sync the notices once, wait for a report of each, return the reports."""

    async def run() -> list[tuple[tuple, bool]]:
        recorder = Recorder()
        deliveries = Deliveries(recorder)
        deliveries.sync({n.key: n for n in notices})
        await recorder.until(len(notices))
        await deliveries.close()
        return recorder.reports

    return asyncio.run(run())


def test_a_webhook_gets_the_document_and_the_idempotency_key(webhooks: WebhookReceiver) -> None:
    hook = WebhookChannel("ops-hook", webhooks.url("/hook"), (("Authorization", "Bearer s3"),))
    sent = notice(hook, event="retries_exhausted", attempt=3)
    assert deliver([sent]) == [(sent.key, True)]
    (request,) = webhooks.requests("/hook")
    assert request.key == idempotency_key(sent.key)
    assert request.body == {
        "job": "backup",
        "run": "2026-12-01T09:00:00Z",
        "event": "retries_exhausted",
        "attempt": 3,
        "time": "2026-12-01T09:00:03Z",
    }


def test_a_refusing_or_missing_receiver_is_a_failed_try(webhooks: WebhookReceiver) -> None:
    webhooks.status = lambda _request: 503
    refused = notice(WebhookChannel("down", webhooks.url("/hook")), job="a")
    closed = notice(WebhookChannel("gone", f"http://127.0.0.1:{free_port()}/x"), job="b")
    unconfigured = notice(None, job="c")
    reports = dict(deliver([refused, closed, unconfigured]))
    assert reports == {refused.key: False, closed.key: False, unconfigured.key: False}
    assert len(webhooks.requests()) == 1


def test_slack_gets_readable_text(webhooks: WebhookReceiver) -> None:
    sent = notice(SlackChannel("team", webhooks.url("/slack")), event="failed", attempt=2)
    assert deliver([sent]) == [(sent.key, True)]
    (request,) = webhooks.requests("/slack")
    assert request.body == {"text": slack_text(sent)}
    assert request.key == idempotency_key(sent.key)
    assert slack_text(sent) == (
        ":warning: Job backup failed: its run of 2026-12-01T09:00:00Z, attempt 2 "
        "(at 2026-12-01T09:00:03Z)."
    )


def test_an_email_goes_through_smtp_with_a_stable_message_id(mailbox: MailReceiver) -> None:
    mail = EmailChannel(
        "oncall", "127.0.0.1", "cron@example.com", ("ops@example.com",), mailbox.port
    )
    sent = notice(mail)
    assert deliver([sent]) == [(sent.key, True)]
    (message,) = mailbox.messages
    assert message["Message-ID"] == f"<{idempotency_key(sent.key)}@example.com>"
    assert message["To"] == "ops@example.com"
    assert message["X-Cronlapse-Event"] == "succeeded"
    assert "Job backup succeeded" in message.get_content()


def test_a_stalled_mail_server_never_delays_webhooks(
    webhooks: WebhookReceiver, mailbox: MailReceiver
) -> None:
    # The mail server holds its first message until the webhooks have all been delivered: if
    # webhooks waited behind email, this would never finish.
    mail = EmailChannel(
        "oncall", "127.0.0.1", "cron@example.com", ("ops@example.com",), mailbox.port
    )
    hook = WebhookChannel("ops-hook", webhooks.url("/hook"))
    emails = [notice(mail, job=f"m{number}") for number in range(2)]
    hooks = [notice(hook, job=f"h{number}") for number in range(5)]
    mailbox.gate.clear()

    async def run() -> list[tuple[tuple, bool]]:
        recorder = Recorder()
        deliveries = Deliveries(recorder)
        deliveries.sync({n.key: n for n in emails + hooks})
        await recorder.until(len(hooks))
        assert not mailbox.messages
        await asyncio.to_thread(mailbox.waiting.wait)  # the first email is held, not yet sent
        mailbox.gate.set()
        await recorder.until(len(hooks) + len(emails))
        await deliveries.close()
        return recorder.reports

    reports = asyncio.run(run())
    assert {key for key, _ in reports[: len(hooks)]} == {n.key for n in hooks}
    assert [key for key, _ in reports[len(hooks) :]] == [n.key for n in emails], "in queue order"
    assert all(delivered for _, delivered in reports)


def test_a_stalled_mail_server_never_delays_another_email_channel(mailbox: MailReceiver) -> None:
    # The stalled channel's server holds its first message until the other channel's emails
    # have all been delivered: if every email channel shared one queue, this would never end.
    other = MailReceiver()
    try:
        stalled = EmailChannel(
            "stalled", "127.0.0.1", "cron@example.com", ("ops@example.com",), mailbox.port
        )
        working = EmailChannel(
            "oncall", "127.0.0.1", "cron@example.com", ("dev@example.com",), other.port
        )
        held = [notice(stalled, job=f"s{number}") for number in range(2)]
        sent = [notice(working, job=f"w{number}") for number in range(3)]
        mailbox.gate.clear()

        async def run() -> list[tuple[tuple, bool]]:
            recorder = Recorder()
            deliveries = Deliveries(recorder)
            deliveries.sync({n.key: n for n in held + sent})
            await recorder.until(len(sent))
            await asyncio.to_thread(mailbox.waiting.wait)  # the stalled one's first is held
            mailbox.gate.set()
            await recorder.until(len(sent) + len(held))
            await deliveries.close()
            return recorder.reports

        reports = asyncio.run(run())
    finally:
        other.close()
    assert [key for key, _ in reports[: len(sent)]] == [n.key for n in sent], "in queue order"
    assert [key for key, _ in reports[len(sent) :]] == [n.key for n in held], "in queue order"
    assert all(delivered for _, delivered in reports)
    assert len(other.messages) == len(sent) and len(mailbox.messages) == len(held)


def test_a_try_in_flight_or_reported_is_not_started_again(webhooks: WebhookReceiver) -> None:
    sent = notice(WebhookChannel("ops-hook", webhooks.url("/hook")))
    webhooks.gate.clear()

    async def run() -> int:
        recorder = Recorder()
        deliveries = Deliveries(recorder)
        due = {sent.key: sent}
        deliveries.sync(due)
        deliveries.sync(due)  # in flight
        webhooks.gate.set()
        await recorder.until(1)
        deliveries.sync(due)  # reported, not applied yet: still due
        deliveries.retry_unreported(sent.key)  # the report never reached the journal
        deliveries.sync(due)
        await recorder.until(2)
        deliveries.sync({})  # applied: no longer due
        deliveries.sync(due)  # due again (a retry after its backoff)
        await recorder.until(3)
        await deliveries.close()
        return len(webhooks.requests())

    assert asyncio.run(run()) == 3


@pytest.mark.parametrize(
    ("event", "attempt", "text"),
    [
        ("succeeded", 1, ":white_check_mark: Job backup succeeded: its run of"),
        ("failed", 2, ":warning: Job backup failed: its run of"),
        ("retries_exhausted", 3, ":x: Job backup exhausted its retries: its run of"),
        ("timed_out", 1, ":hourglass: Job backup timed out: its run of"),
        ("cancelled", 0, ":no_entry_sign: Job backup was cancelled: its run of"),
    ],
)
def test_slack_text_says_what_happened(event: str, attempt: int, text: str) -> None:
    sent = notice(SlackChannel("team", "http://127.0.0.1:9/x"), event=event, attempt=attempt)
    assert slack_text(sent) == (
        f"{text} 2026-12-01T09:00:00Z, attempt {attempt} (at 2026-12-01T09:00:03Z)."
    )


def test_slack_text_escapes_what_slack_reads_as_markup() -> None:
    sent = notice(SlackChannel("team", "http://127.0.0.1:9/x"), job="a<b>&c")
    assert "Job a&lt;b&gt;&amp;c succeeded" in slack_text(sent)


def test_webhook_tries_send_a_bounded_number_at_once(webhooks: WebhookReceiver) -> None:
    hook = WebhookChannel("ops-hook", webhooks.url("/hook"))
    notices = [notice(hook, job=f"j{number}") for number in range(8)]
    webhooks.gate.clear()

    async def run() -> None:
        recorder = Recorder()
        deliveries = Deliveries(recorder, http_at_once=3)
        deliveries.sync({n.key: n for n in notices})
        await until(lambda: webhooks.arrived >= 3, "three requests at the receiver")
        await asyncio.sleep(0.3)  # the scenario: room for a fourth request to arrive, if one could
        webhooks.gate.set()
        await recorder.until(len(notices))
        await deliveries.close()

    asyncio.run(run())
    assert webhooks.most_held == 3
    assert len(webhooks.requests()) == len(notices)


def test_a_stop_does_not_wait_on_a_stalled_mail_server(
    mailbox: MailReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No SMTP timeout at all: only a close that abandons the connection can end this.
    monkeypatch.setattr("cronlapse.service.delivery.email.TIMEOUT", None)
    mail = EmailChannel(
        "oncall", "127.0.0.1", "cron@example.com", ("ops@example.com",), mailbox.port
    )
    sent = notice(mail)
    mailbox.gate.clear()

    async def run() -> list[tuple[tuple, bool]]:
        recorder = Recorder()
        deliveries = Deliveries(recorder)
        deliveries.sync({sent.key: sent})
        await asyncio.to_thread(mailbox.waiting.wait)
        closing = asyncio.get_running_loop().create_task(deliveries.close())
        await asyncio.wait([closing], timeout=PATIENCE)
        stopped = closing.done()
        mailbox.gate.set()
        await closing
        assert stopped, "the stop waited on the stalled server"
        return recorder.reports

    assert asyncio.run(run()) == [], "a cancelled try is not reported: a restart sends it again"
    assert not mailbox.messages
