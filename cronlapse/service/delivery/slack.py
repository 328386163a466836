"""A Slack try: an incoming-webhook message with readable text, and the ``Idempotency-Key``.

Slack itself ignores the header; a relay in front of it (or a test's receiver) can use it."""

from __future__ import annotations

import httpx

from cronlapse.service.delivery.channels import SlackChannel
from cronlapse.service.delivery.notice import Notice, describe
from cronlapse.service.delivery.webhook import TIMEOUT

_EMOJI = {
    "succeeded": ":white_check_mark:",
    "failed": ":warning:",
    "retries_exhausted": ":x:",
    "timed_out": ":hourglass:",
    "cancelled": ":no_entry_sign:",
}


def slack_text(notice: Notice) -> str:
    """The message: an emoji for the event, then the sentence, escaped as Slack asks."""
    text = describe(notice).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"{_EMOJI.get(notice.event, ':bell:')} {text}"


async def post_slack(http: httpx.AsyncClient, channel: SlackChannel, notice: Notice) -> bool:
    """POST ``{"text": ...}``; a 2xx answer is a delivery."""
    headers = {"Idempotency-Key": notice.idempotency_key}
    body = {"text": slack_text(notice)}
    answer = await http.post(channel.url, json=body, headers=headers, timeout=TIMEOUT)
    return answer.is_success
