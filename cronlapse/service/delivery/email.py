"""An email try: one message over SMTP (aiosmtplib: asyncio, so a stop cancels a stalled send).

The ``Message-ID`` is the notification's idempotency key at the sender's domain, and the
``Date`` is when the event happened: every try of a notification sends the same message, so a
mail system that drops repeated Message-IDs shows it once.
"""

from __future__ import annotations

import contextlib
import json
from email.message import EmailMessage
from email.utils import format_datetime

import aiosmtplib

from cronlapse.service.clock import ENGINE_CLOCK
from cronlapse.service.delivery.channels import EmailChannel
from cronlapse.service.delivery.notice import Notice, describe

TIMEOUT = 30.0
"""Seconds each SMTP step may take before the try fails."""


def message_id(notice: Notice, sender: str) -> str:
    return f"<{notice.idempotency_key}@{sender.rpartition('@')[2]}>"


def build_message(channel: EmailChannel, notice: Notice) -> EmailMessage:
    message = EmailMessage()
    message["From"] = channel.sender
    message["To"] = ", ".join(channel.to)
    message["Subject"] = f"cronlapse: {notice.job} {notice.event.replace('_', ' ')}"
    message["Message-ID"] = message_id(notice, channel.sender)
    if ENGINE_CLOCK.names(notice.time):  # else no Date: the mail system's own says when
        message["Date"] = format_datetime(ENGINE_CLOCK.to_datetime(notice.time))
    message["X-Cronlapse-Job"] = notice.job
    message["X-Cronlapse-Run"] = notice.run_text
    message["X-Cronlapse-Event"] = notice.event
    message["X-Cronlapse-Attempt"] = str(notice.attempt)
    message.set_content(f"{describe(notice)}\n\n{json.dumps(notice.document(), indent=2)}\n")
    return message


async def send_email(channel: EmailChannel, notice: Notice) -> bool:
    """Send the message; the server's acceptance is a delivery (errors raise).

    The connection is closed without a QUIT when the try fails or is cancelled: a stop must not
    wait on a stalled server (aiosmtplib's ``send`` says QUIT on the way out, however it ends)."""
    client = aiosmtplib.SMTP(
        hostname=channel.host,
        port=channel.port,
        username=channel.username,
        password=channel.password,
        start_tls=channel.starttls,
        use_tls=False,
        timeout=TIMEOUT,
    )
    try:
        await client.connect()
        await client.send_message(build_message(channel, notice))
        with contextlib.suppress(aiosmtplib.SMTPException, OSError):
            await client.quit()
    finally:
        client.close()
    return True
