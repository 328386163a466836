"""Deliveries for as long as the server serves: wired around the API's own lifespan.

They start after the API has started (its executors and its clock) and stop before the API
stops (which drains the inputs and writes the last snapshot), and each try's end enters the
journal like an executor's report: through the API's group commit, as a ``delivery`` input.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.applications import Starlette

from cronlapse.service.codec import DELIVERY
from cronlapse.service.delivery.notice import Notice, due_notices
from cronlapse.service.delivery.worker import Deliveries
from cronlapse.service.inputs import Inputs
from cronlapse.service.live import LiveService

log = logging.getLogger("cronlapse.serve")


def delivery_input(notice: Notice, delivered: bool) -> dict:
    """The journaled input that ends a try: the notification's key and whether it was taken."""
    job, scheduled, attempt, event, channel, to = notice.key
    return {
        "job": job,
        "scheduled": scheduled,
        "attempt": attempt,
        "event": event,
        "channel": channel,
        "to": to,
        "ok": delivered,
    }


def attach_deliveries(app: Starlette, live: LiveService, inputs: Inputs) -> None:
    """Run notification deliveries inside ``app``'s lifespan."""
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(application: Starlette):
        async with inner(application):
            reports: set[asyncio.Task] = set()

            def report(notice: Notice, delivered: bool) -> None:
                submitted = inputs.submit(DELIVERY, delivery_input(notice, delivered))
                task = asyncio.get_running_loop().create_task(submitted)
                reports.add(task)
                task.add_done_callback(reports.discard)
                task.add_done_callback(lambda done: journaled(deliveries, notice, done))

            deliveries = Deliveries(report)
            previous = live.on_change

            def changed() -> None:
                previous()
                deliveries.sync(due_notices(live))

            live.on_change = changed
            deliveries.sync(due_notices(live))
            try:
                yield
            finally:
                live.on_change = previous
                await deliveries.close()
                for task in list(reports):
                    with contextlib.suppress(Exception, asyncio.CancelledError):
                        await task

    app.router.lifespan_context = lifespan


def journaled(deliveries: Deliveries, notice: Notice, task: asyncio.Task) -> None:
    """A report that did not reach the journal leaves its notice free to be tried again."""
    if task.cancelled():
        return
    failure = task.exception()
    if failure is not None or not task.result().accepted:
        why = failure or task.result().message
        log.warning("%s: the delivery report was not recorded: %s", notice.key, why)
        deliveries.retry_unreported(notice.key)
