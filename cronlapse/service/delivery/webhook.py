"""A webhook try: an HTTP POST of the notification as JSON, with its ``Idempotency-Key``."""

from __future__ import annotations

import httpx

from cronlapse.service.delivery.channels import WebhookChannel
from cronlapse.service.delivery.notice import Notice

TIMEOUT = httpx.Timeout(10.0)
"""Seconds a receiver has to connect and answer: a try that takes longer failed."""


async def post_webhook(http: httpx.AsyncClient, channel: WebhookChannel, notice: Notice) -> bool:
    """POST ``{job, run, event, attempt, time}``; a 2xx answer is a delivery."""
    headers = {**dict(channel.headers), "Idempotency-Key": notice.idempotency_key}
    answer = await http.post(channel.url, json=notice.document(), headers=headers, timeout=TIMEOUT)
    return answer.is_success
