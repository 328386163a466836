"""Delivery tries: the engine's outbox says which notifications are due; this module sends them.

After every applied input the service hands :meth:`Deliveries.sync` the due notices
(:func:`~cronlapse.service.delivery.notice.due_notices`). A due notice that is not being tried gets
a try; when the try ends, :attr:`Deliveries.report` journals its outcome as a ``delivery`` input,
and the engine then marks the notification DELIVERED, DEAD, or due again after its backoff. Until
that report is applied the notice is still due, so it is remembered as reported, not tried twice.

Webhook and Slack tries run at once, each in a task of its own (at most :data:`HTTP_AT_ONCE`
sending together). Email has queues of its own, as seed 003 asks ("a dedicated queue so emails can
be sent"): one per email channel, each with one sender working through it in order, so a slow or
stalled mail server holds up the next email of its own channel, never another channel's email
(each waited 30 s a try behind it when they shared one queue), a webhook or a Slack message.

A try that was in flight when the server died was never reported: after the restart its
notification is due again and is tried again with the same idempotency key.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from cronlapse.service.delivery.channels import EmailChannel, SlackChannel
from cronlapse.service.delivery.notice import Notice
from cronlapse.service.http_client import LazyClient
from engine.parts.notifications import NotificationKey

log = logging.getLogger("cronlapse.serve")

Report = Callable[[Notice, bool], None]
"""Called when a try has ended: was the notification delivered."""
HTTP_AT_ONCE = 64
"""Webhook and Slack tries sending at once; the others wait their turn (a burst of due
notifications must not open thousands of connections, nor count a wait for one as a failure)."""


@dataclass
class _MailQueue:
    """One email channel's queue and the task that sends from it."""

    notices: asyncio.Queue[Notice] = field(default_factory=asyncio.Queue)
    sender: asyncio.Task | None = None


class Deliveries:
    """The tries in flight, and the email queues with their senders."""

    def __init__(self, report: Report, http_at_once: int = HTTP_AT_ONCE) -> None:
        self.report = report
        self.sending = asyncio.Semaphore(http_at_once)
        self.tasks: dict[NotificationKey, asyncio.Task] = {}
        """Webhook and Slack tries in flight."""
        self.mail: dict[str, _MailQueue] = {}
        """The email queues, by channel name."""
        self.mailing: set[NotificationKey] = set()
        """Emails queued or being sent."""
        self.reported: set[NotificationKey] = set()
        """Tries that ended but whose report the engine has not applied yet."""
        self.http = LazyClient(follow_redirects=False)

    def sync(self, due: dict[NotificationKey, Notice]) -> None:
        """Start a try for each due notice not already tried or reported."""
        self.reported.intersection_update(due)
        for key, notice in due.items():
            if key in self.tasks or key in self.mailing or key in self.reported:
                continue
            if isinstance(notice.channel, EmailChannel):
                self.mailing.add(key)
                self._mail_queue(notice.channel.name).notices.put_nowait(notice)
            else:
                self.tasks[key] = asyncio.get_running_loop().create_task(self._try(notice))

    def _mail_queue(self, channel: str) -> _MailQueue:
        """The channel's email queue, its sender started with it."""
        queue = self.mail.get(channel)
        if queue is None:
            queue = self.mail[channel] = _MailQueue()
            sending = self._send_mail(queue.notices)
            queue.sender = asyncio.get_running_loop().create_task(sending)
        return queue

    def retry_unreported(self, key: NotificationKey) -> None:
        """A report that could not be journaled: the notice may be tried again."""
        self.reported.discard(key)

    async def close(self) -> None:
        """Cancel every try in flight (a restart tries them again, with the same keys)."""
        senders = [queue.sender for queue in self.mail.values() if queue.sender is not None]
        tasks = [*self.tasks.values(), *senders]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.tasks.clear()
        await self.http.aclose()

    async def _try(self, notice: Notice) -> None:
        async with self.sending:
            delivered = await self._send(notice)
        del self.tasks[notice.key]
        self._ended(notice, delivered)

    async def _send_mail(self, notices: asyncio.Queue[Notice]) -> None:
        """An email queue's one sender: one message at a time, in the order they fell due."""
        while True:
            notice = await notices.get()
            delivered = await self._send(notice)
            self.mailing.discard(notice.key)
            self._ended(notice, delivered)

    def _ended(self, notice: Notice, delivered: bool) -> None:
        self.reported.add(notice.key)
        self.report(notice, delivered)

    async def _send(self, notice: Notice) -> bool:
        """One try; whatever goes wrong, the engine hears of a failed try."""
        channel = notice.channel
        try:
            if channel is None:
                log.warning("%s: the notification's channel is not configured", notice.key)
                return False
            if isinstance(channel, EmailChannel):
                # Loaded at the first email: a server whose config has no email channel never
                # pays for aiosmtplib and the email package (issue 36: serve imports only what
                # serving needs).
                from cronlapse.service.delivery.email import send_email

                return await send_email(channel, notice)
            if isinstance(channel, SlackChannel):
                from cronlapse.service.delivery.slack import post_slack  # httpx, at first use

                return await post_slack(self.http.client, channel, notice)
            from cronlapse.service.delivery.webhook import post_webhook

            return await post_webhook(self.http.client, channel, notice)
        except Exception as error:
            log.warning("%s: delivery try %d failed: %s", notice.key, notice.try_number, error)
            return False
